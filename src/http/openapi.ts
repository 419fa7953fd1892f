import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { ErrorDefinition } from '../platform/errors.js';

const description = (errors: readonly ErrorDefinition[]) => `
The merchant payments interface. Every operation under \`/svc/\` is signed with Wonder-RSA-SHA256: the headers
\`Credential\` (\`{AppID}/{yyyyMMddHHmmss UTC}/Wonder-RSA-SHA256\`), \`Nonce\` (16 to 64 characters from
\`[0-9A-Za-z]\`, never reused) and \`Signature\` (see docs/signing.md for the algorithm and a worked example).

Every reply is an envelope \`{code, message, data}\`; success is \`code: 200\`. Errors carry \`code\` (integer),
\`error_code\` (text), \`message\` and \`data: null\`. Any POST or PUT may carry \`Idempotency-Key\`.

| error_code | HTTP status | meaning |
|---|---|---|
${errors.map((e) => `| \`${e.code}\` | ${e.status} | ${e.message} |`).join('\n')}
`.trim();

export async function registerOpenApi(
  app: FastifyInstance,
  options: { publicBaseUrl: string; version: string; errors: readonly ErrorDefinition[]; tags: ReadonlyArray<{ name: string; description: string }> },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'paygate', version: options.version, description: description(options.errors) },
      servers: [{ url: options.publicBaseUrl }],
      components: {
        securitySchemes: {
          Credential: { type: 'apiKey', in: 'header', name: 'Credential', description: '`{AppID}/{yyyyMMddHHmmss}/Wonder-RSA-SHA256`' },
          Nonce: { type: 'apiKey', in: 'header', name: 'Nonce', description: 'Random, never reused within the time window.' },
          Signature: { type: 'apiKey', in: 'header', name: 'Signature', description: 'Base64 RSA-SHA256 signature; see docs/signing.md.' },
        },
      },
      tags: [...options.tags, { name: 'operations', description: 'Health, readiness and metrics for operators.' }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
