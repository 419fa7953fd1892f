/**
 * The bare baseline: node:http answering each path with the exact bytes paygate answers it with (status,
 * body, content type, a fresh X-Request-ID), and doing nothing else.
 *
 * Usage: node baseline-server.js PORT REPLIES.json   (REPLIES: { "METHOD path": { status, body } })
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [portText, repliesFile] = process.argv.slice(2);
const replies = JSON.parse(readFileSync(repliesFile!, 'utf8')) as Record<string, { status: number; body: string }>;

createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const reply = replies[`${request.method} ${request.url}`] ?? { status: 404, body: '{}' };
    response.writeHead(reply.status, {
      'x-request-id': randomUUID(),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(reply.body),
    });
    response.end(reply.body);
  });
}).listen(Number(portText), '127.0.0.1', () => process.stdout.write('ready\n'));
