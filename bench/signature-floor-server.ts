/**
 * The floor for a signed API on this machine: Fastify answering each path with paygate's exact bytes after
 * verifying the Wonder-RSA-SHA256 signature, and doing nothing else (no nonce store, no database, no log).
 * No server that checks signatures can be faster; paygate's distance to it is what paygate itself costs.
 *
 * Usage: node signature-floor-server.js PORT REPLIES.json PUBLIC_KEY.pem
 */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signingMessage, verifyMessage } from '@paygate/client';
import Fastify from 'fastify';

const [portText, repliesFile, keyFile] = process.argv.slice(2);
const replies = JSON.parse(readFileSync(repliesFile!, 'utf8')) as Record<string, { status: number; body: string }>;
const key = createPublicKey(readFileSync(keyFile!, 'utf8'));

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
for (const route of Object.keys(replies)) {
  const [method, url] = route.split(' ') as [string, string];
  app.route({
    method: method as 'GET' | 'POST',
    url,
    handler: async (request, reply) => {
      const [, requestTime = ''] = String(request.headers.credential).split('/');
      const body = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
      const message = signingMessage({
        requestTime,
        nonce: String(request.headers.nonce),
        method,
        target: request.url,
        body,
      });
      const valid = verifyMessage(message, String(request.headers.signature), key);
      const answer = valid ? replies[route]! : { status: 401, body: '{}' };
      return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
    },
  });
}
app.listen({ port: Number(portText), host: '127.0.0.1' }).then(() => process.stdout.write('ready\n'));
