import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import type { ErrorDefinition } from '../platform/errors.js';
import { DOCS_STYLESHEET_PATH, type OpenApiDocument, renderDocsPage } from '../web/docs-page.js';
import { PAGE_SECURITY_HEADERS } from '../web/pages.js';
import { DOCS_CSS } from '../web/styles.js';
import { failure, success } from './envelope.js';
import { HTTP_ERRORS } from './errors.js';
import { EXAMPLE_KEY } from './examples.js';
import { BODY_OPTIONAL_KEY } from './route.js';

const description = (errors: readonly ErrorDefinition[]) =>
  `
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
  options: {
    config: Pick<Config, 'publicBaseUrl' | 'mode'>;
    version: string;
    errors: readonly ErrorDefinition[];
    tags: ReadonlyArray<{ name: string; description: string }>;
  },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'paygate', version: options.version, description: description(options.errors) },
      servers: [{ url: options.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          Credential: {
            type: 'apiKey',
            in: 'header',
            name: 'Credential',
            description: '`{AppID}/{yyyyMMddHHmmss}/Wonder-RSA-SHA256`',
          },
          Nonce: {
            type: 'apiKey',
            in: 'header',
            name: 'Nonce',
            description: 'Random, never reused within the time window.',
          },
          Signature: {
            type: 'apiKey',
            in: 'header',
            name: 'Signature',
            description: 'Base64 RSA-SHA256 signature; see docs/signing.md.',
          },
        },
      },
      tags: [...options.tags, { name: 'operations', description: 'Health, readiness and metrics for operators.' }],
    },
    // An OpenAPI 3 document (the `openapi` option above), never a Swagger 2 one.
    transformObject: (document) =>
      withOptionalBodies(
        withMediaExamples((document as { openapiObject: unknown }).openapiObject as OpenApiDocument),
      ) as never,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Rendered on the first request: the document is complete only once every route is registered (and the
  // public address once the server listens, when it took a free port).
  let page: string | undefined;
  const docsPage = () =>
    (page ??= renderDocsPage(app.swagger() as unknown as OpenApiDocument, {
      baseUrl: options.config.publicBaseUrl,
      errors: options.errors,
      successEnvelope: success(null),
      errorExample: failure(HTTP_ERRORS.signatureInvalid),
      sandbox: options.config.mode === 'sandbox',
    }));
  const hide = { schema: { hide: true } };
  app.get('/docs', hide, async (_request, reply) =>
    reply
      .headers(PAGE_SECURITY_HEADERS)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(docsPage()),
  );
  app.get(DOCS_STYLESHEET_PATH, hide, async (_request, reply) =>
    reply
      .headers(PAGE_SECURITY_HEADERS)
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(DOCS_CSS),
  );
  // The addresses a stock viewer uses for itself and the document, which bookmarks and tools may hold.
  app.get('/docs/', hide, async (_request, reply) => reply.redirect('/docs', 301));
  app.get('/docs/json', hide, async (_request, reply) => reply.redirect('/openapi.json', 301));
}

/**
 * Each operation's example, carried by its route as `x-paygate-example`, moved to where OpenAPI keeps examples:
 * the request body's and the success reply's media objects (so other viewers show the real reply too).
 */
function withMediaExamples(document: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(document.paths)) {
    // biome-ignore lint/suspicious/noExplicitAny: an operation object as the OpenAPI plugin built it, edited in place
    for (const operation of Object.values(methods) as Array<Record<string, any>>) {
      const example = operation[EXAMPLE_KEY] as { body?: unknown; reply?: unknown } | undefined;
      if (example === undefined) continue;
      delete operation[EXAMPLE_KEY];
      const body = operation.requestBody?.content?.['application/json'];
      if (body && example.body !== undefined) body.example = example.body;
      const content = (operation.responses?.['200']?.content ?? {}) as Record<string, { example?: unknown }>;
      if (example.reply === undefined) continue;
      if (content['application/json']) content['application/json'].example = example.reply;
      // A file (a route with `download`) is shown as itself, not in the envelope.
      else for (const media of Object.values(content)) media.example = (example.reply as { data: unknown }).data;
    }
  }
  return document;
}

/** The plugin marks every body it documents as required (Fastify's own rule); a `bodyOptional` route's is not. */
function withOptionalBodies(document: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(document.paths)) {
    // biome-ignore lint/suspicious/noExplicitAny: an operation object as the OpenAPI plugin built it, edited in place
    for (const operation of Object.values(methods) as Array<Record<string, any>>) {
      if (operation[BODY_OPTIONAL_KEY] === undefined) continue;
      delete operation[BODY_OPTIONAL_KEY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}
