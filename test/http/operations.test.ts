import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lockDataDir } from '../../src/platform/database/data-dir-lock.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { freePort, startServe } from '../support/processes.js';
import { rawRequest, signedHeaders, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const ECHO = '/svc/payment/api/v1/openapi/echo';

describe('health, readiness, metrics and logs', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  const logLines: Array<Record<string, unknown>> = [];
  before(async () => {
    server = await startTestServer({ logLines });
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('/healthz and /readyz answer in the envelope', async () => {
    assert.deepEqual((await rawRequest(server.url, { method: 'GET', target: '/healthz' })).json, {
      code: 200,
      message: 'success',
      data: { status: 'ok' },
    });
    assert.deepEqual((await rawRequest(server.url, { method: 'GET', target: '/readyz' })).json, {
      code: 200,
      message: 'success',
      data: { status: 'ready' },
    });
  });

  test('/metrics counts requests by route pattern and status, in Prometheus format', async () => {
    await merchant.client.echo('counted');
    await rawRequest(server.url, { method: 'GET', target: '/nope' });
    const metrics = await rawRequest(server.url, { method: 'GET', target: '/metrics' });
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain/);
    assert.match(
      metrics.text,
      /paygate_http_requests_total\{method="POST",route="\/svc\/payment\/api\/v1\/openapi\/echo",status="200"\} \d+/,
    );
    assert.match(metrics.text, /paygate_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
    assert.match(metrics.text, /paygate_http_request_duration_seconds_bucket/);
    assert.match(metrics.text, /paygate_process_cpu_seconds_total/);
  });

  test('each request writes one log line with request id, merchant, route, status and duration, and no secrets', async () => {
    const requestId = `log-line-${Date.now()}`;
    await server.client(merchant, { requestId }).customers.create({ reference_number: 'LOG-1', name: 'A', phone: '1' });
    const lines = logLines.filter((line) => line.client_request_id === requestId);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.deepEqual(
      {
        route: lines[0]!.route,
        status: lines[0]!.status,
        merchant: lines[0]!.merchant_id,
        app: lines[0]!.app_id,
        msg: lines[0]!.msg,
      },
      {
        route: '/svc/payment/api/v1/openapi/customers',
        status: 200,
        merchant: merchant.merchantId,
        app: merchant.appId,
        msg: 'request',
      },
    );
    assert.equal(typeof lines[0]!.duration_ms, 'number');
    assert.match(String(lines[0]!.request_id), /^[0-9a-f-]{36}$/, "our own id, beside the client's");
    assert.doesNotMatch(JSON.stringify(logLines), /Wonder-RSA-SHA256|"signature"|"nonce"/i);
  });
});

describe('graceful shutdown', () => {
  test('a request in flight when shutdown starts is finished; new connections are refused', async () => {
    const server = await startTestServer();
    const merchant = await server.newMerchant();
    const body = JSON.stringify({ message: 'in flight' });
    const headers = signedHeaders(merchant, { method: 'POST', target: ECHO, body });
    const url = new URL(server.url);

    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const head = [
      `POST ${ECHO} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    socket.write(head + body.slice(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));

    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(rawRequest(server.url, { method: 'GET', target: '/healthz' }), /ECONNREFUSED/);

    socket.write(body.slice(5));
    await ended;
    await closing;
    assert.match(received, /^HTTP\/1\.1 200/);
    assert.match(received, /"message":"in flight"/);
  });

  test('SIGTERM stops `paygate serve` cleanly and releases the data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-stop-'));
    const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    try {
      const serve = await startServe({
        PAYGATE_DATA_DIR: dataDir,
        PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        PAYGATE_DEMO: '0',
        ...(schema ? { DATABASE_URL: schema.url } : {}),
      });
      if (!schema) assert.throws(() => lockDataDir(dataDir), /Another paygate server/, 'held while serving');
      assert.equal(await serve.stop('SIGTERM'), 0);
      lockDataDir(dataDir).release();
    } finally {
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('rate limiting per app', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PAYGATE_RATE_LIMIT: '2', PAYGATE_RATE_LIMIT_BURST: '3' } });
    server.clock.freeze();
  });
  after(() => server.close());

  const echo = (merchant: TestMerchant) =>
    rawRequest(server.url, {
      method: 'POST',
      target: ECHO,
      body: '{"message":"x"}',
      headers: {
        ...signedHeaders(merchant, { method: 'POST', target: ECHO, body: '{"message":"x"}', at: server.clock.now() }),
        'content-type': 'application/json',
      },
    });

  test('an app past its burst gets 429 with Retry-After; the bucket refills; other apps are not affected', async () => {
    const busy = await server.newMerchant();
    const quiet = await server.newMerchant();
    for (let i = 0; i < 3; i += 1) assert.equal((await echo(busy)).status, 200);
    const limited = await echo(busy);
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error_code, '100401');
    assert.equal(limited.headers['retry-after'], '1');
    assert.equal((await echo(quiet)).status, 200);

    server.clock.advance(500);
    assert.equal((await echo(busy)).status, 200, 'half a second at 2 per second gives one request');
    assert.equal((await echo(busy)).status, 429);
  });
});
