import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { nodeFetch } from '../../src/cli/node-fetch.js';

// The fetch `paygate call` sends its one request with (src/cli/node-fetch.ts): what the SDK's client reads of a
// reply, and the failures it tells apart (docs/benchmarks.md, "The command line's start", says why it exists).
describe('nodeFetch', () => {
  const server = createServer((request, reply) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const status = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
      if (request.url?.startsWith('/slow')) return void setTimeout(() => reply.end('late'), 2_000);
      reply.writeHead(status, { 'content-type': 'application/json', 'x-seen': request.headers['x-sent'] ?? '' });
      reply.end(
        status === 204 || status === 205 || status === 304
          ? undefined
          : JSON.stringify({ method: request.method, body }),
      );
    });
  });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('sends the method, headers and body, and reads the status, headers and body', async () => {
    const reply = await nodeFetch(`${base}/echo?status=201`, {
      method: 'POST',
      headers: { 'x-sent': 'yes' },
      body: '{"a":1}',
    });
    assert.equal(reply.status, 201);
    assert.equal(reply.headers.get('x-seen'), 'yes');
    assert.deepEqual(await reply.json(), { method: 'POST', body: '{"a":1}' });
  });

  test('a reply without a body (204, 205, 304) is read as empty', async () => {
    for (const status of [204, 205, 304]) {
      const reply = await nodeFetch(`${base}/?status=${status}`);
      assert.equal(reply.status, status);
      assert.equal(await reply.text(), '');
    }
  });

  test('fails as fetch does: the abort reason on a timeout, a TypeError with the cause on a refused connection', async () => {
    await assert.rejects(nodeFetch(`${base}/slow`, { signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(nodeFetch(`http://127.0.0.1:${port}/`), (error: Error) => {
      assert.equal(error.name, 'TypeError');
      assert.equal((error.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('a body it cannot send is refused before anything is sent', async () => {
    await assert.rejects(nodeFetch(`${base}/`, { method: 'POST', body: new URLSearchParams('a=1') }), {
      name: 'TypeError',
      message: 'nodeFetch sends text or bytes only',
    });
  });
});
