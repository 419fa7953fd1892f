import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type FetchLimits, fetchBatchFile } from '../../src/batches/fetch-file.js';
import { BatchFileError } from '../../src/batches/sheet-row.js';
import type { Mode } from '../../src/platform/config.js';

// Fetching a batch's file_url (issue 13, point 1): no redirects, a time limit, a size limit, http(s) only, and in
// live mode nothing on this machine or a private network.

const CSV = 'Action,Reference Number,Customer UUID,Amount,Token ID\npayment,R-1,c,1.00,t\n';

describe('fetching a batch file', () => {
  let server: Server;
  let base: string;
  /** Where a download's chunks go: kept in order, as the batch's stored parts keep them. */
  const collector = () => {
    const chunks: Buffer[] = [];
    return { chunks, write: async (chunk: Buffer) => void chunks.push(chunk) };
  };
  const limits: FetchLimits & { mode: Mode } = { timeoutMs: 2_000, maxBytes: 4_096, mode: 'sandbox' };

  before(async () => {
    server = createServer((request, response) => {
      switch (request.url) {
        case '/file.csv':
          response.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
          return;
        case '/moved':
          response.writeHead(302, { location: '/file.csv' }).end();
          return;
        case '/large-declared':
          response.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
          return;
        case '/large-chunked':
          response.writeHead(200);
          for (let i = 0; i < 10; i += 1) response.write('x'.repeat(1000));
          response.end();
          return;
        case '/slow':
          response.writeHead(200);
          response.write('Action');
          return; // never ends
        default:
          response.writeHead(404).end('no such file');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function failure(url: string, options = limits): Promise<{ message: string }> {
    const error = await fetchBatchFile(url, collector().write, options).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof BatchFileError, `expected a refusal, got ${String(error)}`);
    return { message: error.message };
  }

  test('the file is written as served', async () => {
    const file = collector();
    await fetchBatchFile(`${base}/file.csv`, file.write, limits);
    assert.equal(Buffer.concat(file.chunks).toString('utf8'), CSV);
  });

  test("what the writer throws is the writer's: passed on as it is, not taken for the file's fault", async () => {
    const refusal = new Error('the batch was cancelled');
    const error = await fetchBatchFile(
      `${base}/file.csv`,
      async () => {
        throw refusal;
      },
      limits,
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.equal(error, refusal);
  });

  test('a 404, a redirect, a file too large (declared or counted) and a server that stalls each fail with the reason', async () => {
    assert.match((await failure(`${base}/missing.csv`)).message, /answered 404, not 200/);
    assert.match(
      (await failure(`${base}/moved`)).message,
      /answered 302, a redirect: paygate does not follow redirects/,
    );
    assert.match((await failure(`${base}/large-declared`)).message, /larger than 4096 bytes/);
    assert.match((await failure(`${base}/large-chunked`)).message, /larger than 4096 bytes/);
    assert.match(
      (await failure(`${base}/slow`, { ...limits, timeoutMs: 300 })).message,
      /did not give the whole file within 300 ms/,
    );
  });

  test('only http and https; in live mode not this machine, nor a name that resolves to it', async () => {
    assert.match((await failure('ftp://example.com/file.csv')).message, /must be an http or https URL/);
    assert.match((await failure('not a url')).message, /is not a URL/);
    assert.match(
      (await failure(`${base}/file.csv`, { ...limits, mode: 'live' })).message,
      /address paygate may not fetch from/,
    );
    assert.match(
      (await failure(`${base.replace('127.0.0.1', 'localhost')}/file.csv`, { ...limits, mode: 'live' })).message,
      /address paygate may not fetch from/,
    );
    assert.match(
      (await failure('http://169.254.169.254/latest/meta-data')).message,
      /address paygate may not fetch from/,
      'metadata services are refused even in the sandbox',
    );
  });
});
