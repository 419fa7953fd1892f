import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import {
  IDEMPOTENCY_IN_PROGRESS,
  PaygateClient,
  type PaygateClientOptions,
  PaygateConnectionError,
  PaygateError,
  parseRequestTime,
  type RetryPolicy,
  signingMessage,
  verifyMessage,
} from '@paygate/client';
import { PLATFORM_ERRORS } from '../../src/platform/errors.js';
import { TEST_PRIVATE_KEY, TEST_PUBLIC_KEY } from '../support/keys.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const ECHO = '/svc/payment/api/v1/openapi/echo';
const CUSTOMERS = '/svc/payment/api/v1/openapi/customers';

/** Resolves to what `promise` rejected with, checked to be an instance of `type`. */
async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    (value) => assert.fail(`expected a ${type.name}, got the value ${JSON.stringify(value)}`),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof type, `expected a ${type.name}, got ${String(error)}`);
  return error;
}

/** A `fetch` that keeps the X-Request-ID of every request sent and every reply received. */
function requestIdRecorder() {
  const sent: (string | null)[] = [];
  const received: (string | null)[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    sent.push(new Headers(init?.headers).get('x-request-id'));
    const response = await fetch(input, init);
    received.push(response.headers.get('x-request-id'));
    return response;
  };
  return { sent, received, fetch: recordingFetch };
}

describe('the client against a paygate server', () => {
  let server: TestServer;
  let merchant: TestMerchant;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('echo carries the message back', async () => {
    assert.deepEqual(await merchant.client.echo('hi'), { message: 'hi' });
  });

  test('customers: create, get and update round-trip', async () => {
    const created = await merchant.client.customers.create({
      reference_number: 'client-test-1',
      name: 'Chan Tai Man',
      phone: '91234567',
      email: 'chan@example.com',
    });
    assert.equal(typeof created.uuid, 'string');
    assert.deepEqual(created, {
      uuid: created.uuid,
      reference_number: 'client-test-1',
      name: 'Chan Tai Man',
      phone: '91234567',
      dial_code: '',
      email: 'chan@example.com',
    });
    assert.deepEqual(await merchant.client.customers.get(created.uuid), created);

    const updated = await merchant.client.customers.update(created.uuid, {
      name: 'Chan Siu Ming',
      phone: '98765432',
      dial_code: '852',
      email: null,
    });
    assert.deepEqual(updated, {
      uuid: created.uuid,
      reference_number: 'client-test-1',
      name: 'Chan Siu Ming',
      phone: '98765432',
      dial_code: '852',
    });
    assert.deepEqual(await merchant.client.customers.get(created.uuid), updated);
  });

  test("an error reply throws PaygateError with status, code, message and the reply's request id", async () => {
    const recorder = requestIdRecorder();
    const client = server.client(merchant, { fetch: recorder.fetch });

    const error = await rejectionOf(client.customers.get('00000000-0000-4000-8000-000000000000'), PaygateError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 200101);
    assert.equal(error.errorCode, '200101');
    assert.equal(error.message, 'Customer not found.');
    assert.equal(recorder.received.length, 1);
    assert.ok(recorder.received[0], 'paygate answers with an X-Request-ID');
    assert.equal(error.requestId, recorder.received[0]);
  });

  test('a fixed request id is sent with every request and comes back on the error', async () => {
    const recorder = requestIdRecorder();
    const client = server.client(merchant, { requestId: 'client-fixed-id', fetch: recorder.fetch });

    await client.echo('first');
    const error = await rejectionOf(client.customers.get('no-such-customer'), PaygateError);
    assert.equal(error.requestId, 'client-fixed-id');
    assert.deepEqual(recorder.sent, ['client-fixed-id', 'client-fixed-id']);
    assert.deepEqual(recorder.received, ['client-fixed-id', 'client-fixed-id']);

    const perCall = await rejectionOf(
      client.customers.get('no-such-customer', { requestId: 'per-call-id' }),
      PaygateError,
    );
    assert.equal(perCall.requestId, 'per-call-id');
  });

  test('a client with the wrong private key is refused with 100104', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const client = server.client({
      appId: merchant.appId,
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    });

    const error = await rejectionOf(client.echo('hi'), PaygateError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 100104);
    assert.equal(error.errorCode, '100104');
  });

  test('the idempotency key reaches paygate: a repeat replays, a different body under the same key is refused', async () => {
    const customer = { reference_number: 'client-test-idem', name: 'Lee', phone: '1' };
    const first = await merchant.client.customers.create(customer, { idempotencyKey: 'client-idem-1' });
    assert.deepEqual(await merchant.client.customers.create(customer, { idempotencyKey: 'client-idem-1' }), first);

    const error = await rejectionOf(
      merchant.client.customers.create({ ...customer, name: 'Other' }, { idempotencyKey: 'client-idem-1' }),
      PaygateError,
    );
    assert.equal(error.status, 409);
    assert.equal(error.errorCode, '100302');
  });

  test('a target with spaces, quotes and non-ASCII is signed as it goes on the wire', async () => {
    const data = await merchant.client.call<{ message: string }>('POST', `${ECHO}?note=O'Brien Smith&city=香港`, {
      message: 'encoded',
    });
    assert.deepEqual(data, { message: 'encoded' });
  });

  test("the client's copy of the still-processing code is the server's", () => {
    assert.equal(IDEMPOTENCY_IN_PROGRESS, PLATFORM_ERRORS.idempotencyInProgress.code);
  });

  test('rawBody sends the exact bytes, and paygate verifies the signature over them', async () => {
    // Escapes as PHP's json_encode writes them: the bytes differ from JSON.stringify's, the decoded value does not.
    const rawBody = String.raw`{"message":"https:\/\/x\/\u9673"}`;
    const data = await merchant.client.call<{ message: string }>('POST', ECHO, undefined, { rawBody });
    assert.deepEqual(data, { message: 'https://x/\u9673' });
  });
});

interface RecordedRequest {
  method: string;
  target: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** `performance.now()` when the request had been read. */
  receivedAt: number;
}

/** One scripted answer: an HTTP status (with an error envelope, or success for 200), or `drop`: close the socket. */
type Scripted =
  | number
  | 'drop'
  | {
      status: number;
      headers?: Record<string, string>;
      errorCode?: string;
      withoutRequestId?: boolean;
      delayMs?: number;
    };

interface FakePaygate {
  url: string;
  requests: RecordedRequest[];
  /** Forgets what was recorded and answers the next requests in this order; once they run out, 200. */
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

/**
 * A stand-in for paygate that records every request and answers as scripted. Every reply names its attempt
 * (`data.attempt` on success, `message` on failure), so a test can tell which reply the client surfaced.
 */
async function startFakePaygate(): Promise<FakePaygate> {
  const requests: RecordedRequest[] = [];
  let pending: Scripted[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        target: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: performance.now(),
      });
      const answer = pending.shift() ?? 200;
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      const {
        status,
        headers = {},
        errorCode = String(status),
        withoutRequestId = false,
        delayMs = 0,
      } = typeof answer === 'number' ? { status: answer } : answer;
      const attempt = requests.length;
      const envelope =
        status === 200
          ? { code: 200, message: 'success', data: { attempt } }
          : { code: status, error_code: errorCode, message: `attempt ${attempt}`, data: null };
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, {
          ...headers,
          'content-type': 'application/json',
          ...(!withoutRequestId && { 'x-request-id': req.headers['x-request-id'] ?? 'fake-request-id' }),
        });
        res.end(JSON.stringify(envelope));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...answers) {
      requests.length = 0;
      pending = answers;
    },
    close() {
      // fetch keeps connections alive; without this, close() would wait for them to time out.
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

const FAKE_APP_ID = 'fake-app';

/** Checks that a recorded request carries a signature, by the test key, over its own method, target, body and time. */
function assertSignedAnew(request: RecordedRequest): void {
  const credential = String(request.headers.credential);
  const [appId, requestTime = '', algorithm] = credential.split('/');
  assert.equal(appId, FAKE_APP_ID);
  assert.equal(algorithm, 'Wonder-RSA-SHA256');
  assert.ok(parseRequestTime(requestTime), `a real request time in ${credential}`);
  const message = signingMessage({
    requestTime,
    nonce: String(request.headers.nonce),
    method: request.method,
    target: request.target,
    body: request.body,
  });
  assert.ok(
    verifyMessage(message, String(request.headers.signature), TEST_PUBLIC_KEY),
    `signature of ${request.method} ${request.target}`,
  );
}

/** Milliseconds between consecutive requests' arrivals. */
function gapsBetween(requests: RecordedRequest[]): number[] {
  return requests.slice(1).map((request, index) => request.receivedAt - requests[index]!.receivedAt);
}

describe('the client retries safely (against a scripted fake)', () => {
  let fake: FakePaygate;

  before(async () => {
    fake = await startFakePaygate();
  });
  after(() => fake.close());

  /** A client of the fake with short delays; three attempts unless `retry` says otherwise. */
  const fakeClient = (retry: Partial<RetryPolicy> = {}, options: Partial<PaygateClientOptions> = {}) =>
    new PaygateClient({
      baseUrl: fake.url,
      appId: FAKE_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, ...retry },
      ...options,
    });

  test('a POST with an idempotency key is retried on 503, each attempt with the same key but signed anew', async () => {
    fake.script(503, 503, 200);
    const data = await fakeClient().call('POST', ECHO, { message: 'once' }, { idempotencyKey: 'key-1' });

    assert.deepEqual(data, { attempt: 3 });
    assert.equal(fake.requests.length, 3);
    for (const request of fake.requests) {
      assert.equal(request.headers['idempotency-key'], 'key-1');
      assert.equal(request.body.toString('utf8'), '{"message":"once"}');
      assertSignedAnew(request);
    }
    const nonces = new Set(fake.requests.map((request) => request.headers.nonce));
    assert.equal(nonces.size, 3, 'every attempt has a nonce of its own');
  });

  test('a POST or PUT without an idempotency key is sent once, and its 503 surfaces as PaygateError', async () => {
    for (const method of ['POST', 'PUT']) {
      fake.script(503, 200);
      const error = await rejectionOf(fakeClient().call(method, `${CUSTOMERS}/c1`, { name: 'x' }), PaygateError);
      assert.equal(error.status, 503, method);
      assert.equal(error.code, 503);
      assert.equal(error.errorCode, '503');
      assert.equal(error.message, 'attempt 1');
      assert.equal(fake.requests.length, 1, `${method} is attempted once`);
      assert.equal(fake.requests[0]!.headers['idempotency-key'], undefined);
    }
  });

  test('a GET is retried on 500 without a key', async () => {
    fake.script(500, 200);
    const data = await fakeClient().call('GET', `${CUSTOMERS}/c1`);

    assert.deepEqual(data, { attempt: 2 });
    assert.equal(fake.requests.length, 2);
    fake.requests.forEach(assertSignedAnew);
  });

  test('a 429 with Retry-After: 0 is retried without waiting out the backoff', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '0' } }, 200);
    // Backoff alone would wait at least 5 s here: a much shorter gap shows Retry-After was followed.
    const client = fakeClient({ baseDelayMs: 10_000, maxDelayMs: 10_000 });
    const data = await client.call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-429' });

    assert.deepEqual(data, { attempt: 2 });
    const [gap] = gapsBetween(fake.requests);
    assert.ok(gap !== undefined && gap < 5_000, `gap ${gap} ms`);
  });

  test('400 and 404 are never retried, even for a GET or with a key', async () => {
    for (const status of [400, 404]) {
      for (const send of [
        () => fakeClient().call('GET', `${CUSTOMERS}/c1`),
        () => fakeClient().call('POST', ECHO, { message: 'm' }, { idempotencyKey: `key-${status}` }),
      ]) {
        fake.script(status, 200);
        const error = await rejectionOf(send(), PaygateError);
        assert.equal(error.status, status);
        assert.equal(fake.requests.length, 1, `${status} is final`);
      }
    }
  });

  test('with a key, a connection dropped without a reply is retried', async () => {
    fake.script('drop', 200);
    const data = await fakeClient().call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-drop' });

    assert.deepEqual(data, { attempt: 2 });
    assert.equal(fake.requests.length, 2);
    fake.requests.forEach(assertSignedAnew);
  });

  test('without a key, a dropped connection throws PaygateConnectionError after one attempt', async () => {
    fake.script('drop', 200);
    const client = fakeClient({}, { requestId: 'drop-request-id' });
    const error = await rejectionOf(client.call('POST', ECHO, { message: 'm' }), PaygateConnectionError);

    assert.equal(fake.requests.length, 1);
    assert.equal(error.requestId, 'drop-request-id');
    assert.ok(error.cause, 'the network error is kept as the cause');
  });

  test("an answer slower than the client's timeoutMs is given up; a request's own timeoutMs waits longer", async () => {
    const client = fakeClient({ maxAttempts: 1 }, { timeoutMs: 100 });
    fake.script({ status: 200, delayMs: 400 });
    await rejectionOf(client.call('POST', ECHO, { message: 'slow' }), PaygateConnectionError);
    fake.script({ status: 200, delayMs: 400 });
    assert.deepEqual(await client.call('POST', ECHO, { message: 'slow' }, { timeoutMs: 5_000 }), { attempt: 1 });
  });

  test('a closed port is tried maxAttempts times, then throws PaygateConnectionError', async () => {
    const closed = await startFakePaygate();
    await closed.close();
    let attempts = 0;
    const countingFetch: typeof fetch = (input, init) => {
      attempts += 1;
      return fetch(input, init);
    };
    const client = fakeClient({ maxAttempts: 2 }, { baseUrl: closed.url, fetch: countingFetch });

    await rejectionOf(client.call('GET', `${CUSTOMERS}/c1`), PaygateConnectionError);
    assert.equal(attempts, 2);
  });

  test('attempts stop at retry.maxAttempts and the last reply is surfaced', async () => {
    fake.script(503, 502, 500, 200);
    const error = await rejectionOf(
      fakeClient({ maxAttempts: 3 }).call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-max' }),
      PaygateError,
    );

    assert.equal(fake.requests.length, 3);
    assert.equal(error.status, 500);
    assert.equal(error.message, 'attempt 3');
  });

  test('the backoff between attempts grows', async () => {
    fake.script(503, 503, 503, 200);
    const client = fakeClient({ maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 1_000 });
    await client.call('GET', `${CUSTOMERS}/c1`);

    // Wait k is between half and all of 50·2^(k-1) ms. Timers fire late but not early, so only lower bounds are
    // checked (with a few ms to spare); they rise 25, 50, 100.
    const gaps = gapsBetween(fake.requests);
    assert.equal(gaps.length, 3);
    const floors = [20, 45, 95];
    for (const [index, gap] of gaps.entries())
      assert.ok(gap >= floors[index]!, `gap ${index + 1} was ${gap} ms: ${gaps.join(', ')}`);
  });

  test('the backoff is capped at maxDelayMs', async () => {
    fake.script(503, 200);
    const client = fakeClient({ baseDelayMs: 10_000, maxDelayMs: 20 });
    await client.call('GET', `${CUSTOMERS}/c1`);

    // Uncapped, the wait would be at least 5 s.
    const [gap] = gapsBetween(fake.requests);
    assert.ok(gap !== undefined && gap < 5_000, `gap ${gap} ms`);
  });

  test('rawBody goes on the wire byte for byte, as a string or as bytes, and is what gets signed', async () => {
    const rawText = String.raw`{"url":"https:\/\/x","name":"\u9673"}`;
    for (const rawBody of [rawText, new TextEncoder().encode(rawText)]) {
      fake.script(200);
      await fakeClient().call('POST', ECHO, { ignored: true }, { rawBody });

      const [request] = fake.requests;
      assert.equal(request!.body.toString('latin1'), rawText);
      assert.equal(request!.headers['content-type'], 'application/json');
      assertSignedAnew(request!);
    }
  });

  test('a 409 "still being processed" (100303) is retried when a key was sent: the first attempt may have timed out', async () => {
    fake.script({ status: 409, errorCode: '100303' }, 200);
    assert.deepEqual(await fakeClient().call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-busy' }), {
      attempt: 2,
    });

    fake.script({ status: 409, errorCode: '100302' }, 200);
    const reused = await rejectionOf(
      fakeClient().call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-reused' }),
      PaygateError,
    );
    assert.equal(reused.errorCode, '100302');
    assert.equal(fake.requests.length, 1, 'a key reused for another request is final');
  });

  test('a Retry-After longer than maxDelayMs is surfaced, not retried early', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '60' } }, 200);
    const error = await rejectionOf(
      fakeClient({ maxDelayMs: 1_000 }).call('POST', ECHO, { message: 'm' }, { idempotencyKey: 'key-later' }),
      PaygateError,
    );
    assert.equal(error.status, 429);
    assert.equal(fake.requests.length, 1);
  });

  test('an error from a proxy without X-Request-ID still carries the id the client sent', async () => {
    fake.script({ status: 502, withoutRequestId: true });
    const error = await rejectionOf(
      fakeClient({ maxAttempts: 1 }, { requestId: 'sent-id' }).call('GET', `${CUSTOMERS}/c1`),
      PaygateError,
    );
    assert.equal(error.status, 502);
    assert.equal(error.requestId, 'sent-id');
  });

  test("the caller's headers cannot replace the signature or content type, whatever their case", async () => {
    fake.script(200);
    await fakeClient().call(
      'POST',
      ECHO,
      { message: 'm' },
      {
        headers: { Signature: 'forged', NONCE: 'forged', 'Content-Type': 'text/plain', 'X-Custom': 'kept' },
      },
    );
    const [request] = fake.requests;
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.equal(request!.headers['x-custom'], 'kept');
    assertSignedAnew(request!);
  });
});
