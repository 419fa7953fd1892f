import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatRequestTime, parseRequestTime, signingSteps, signMessage, verifyMessage } from '@paygate/client';
import { createAuthenticator } from '../../src/http/auth/authenticate.js';
import { type NonceStore, openNonceStore } from '../../src/http/auth/nonce-store.js';
import { HTTP_ERRORS } from '../../src/http/errors.js';
import { createMerchant } from '../../src/merchants/merchants.js';
import { insertApp } from '../../src/merchants/store.js';
import { AppError } from '../../src/platform/errors.js';
import { type SigningVector, TEST_PRIVATE_KEY, TEST_PUBLIC_KEY, VECTORS } from '../support/keys.js';
import { rawRequest, startTestServer, TestClock, type TestServer } from '../support/server.js';

const timeOf = (vector: SigningVector) => vector.credential.split('/')[1]!;

describe('signing vectors (compatibility.md section 2)', () => {
  for (const [index, vector] of VECTORS.vectors.entries()) {
    test(`vector ${index + 1}: ${vector.method} ${vector.uri} computes every step`, () => {
      const steps = signingSteps({
        requestTime: timeOf(vector),
        nonce: vector.nonce,
        method: vector.method,
        target: vector.uri,
        body: vector.body,
      });
      assert.equal(steps.k1.toString('hex'), vector.k1);
      assert.equal(steps.k2.toString('hex'), vector.k2);
      assert.equal(steps.presign.toString('utf8'), vector.presign);
      assert.equal(steps.message, vector.message);
      assert.equal(signMessage(steps.message, TEST_PRIVATE_KEY), vector.signature);
      assert.ok(verifyMessage(vector.message, vector.signature, TEST_PUBLIC_KEY));
    });
  }

  test('request time is yyyyMMddHHmmss in UTC and impossible dates are refused', () => {
    assert.equal(formatRequestTime(new Date('2026-11-21T08:05:01.999Z')), '20261121080501');
    assert.equal(parseRequestTime('20261121080501')?.toISOString(), '2026-11-21T08:05:01.000Z');
    for (const bad of ['20261321080501', '20260230080501', '20261121250501', '2026112108050', '2026-11-21T08', '']) {
      assert.equal(parseRequestTime(bad), undefined, bad);
    }
  });
});

/** A server that knows the vectors' app, with the reference test key. */
async function vectorServer(clock?: TestClock): Promise<TestServer> {
  const server = await startTestServer({ clock });
  const merchant = await createMerchant(server.platform, { name: 'Vector Merchant' });
  await insertApp(server.platform.db, {
    id: VECTORS.app_id,
    merchant_id: merchant.merchant_id,
    public_key_pem: TEST_PUBLIC_KEY,
    webhook_public_key_pem: TEST_PUBLIC_KEY,
    webhook_private_key_enc: server.platform.secrets.encrypt('unused'),
    allowed_ips: '[]',
    disabled_at: null,
    webhook_url: null,
    created_at: 0,
  });
  return server;
}

describe("the server's authenticator verifies the vectors", () => {
  let server: TestServer;
  let nonces: NonceStore;

  before(async () => {
    // The server's own nonce purge runs on its clock from the start: held before every vector's time, it cannot
    // forget a nonce this test has just spent (on the real clock the vectors' nonces are long expired, and a purge
    // between the claim and the replay once let the replay through).
    server = await vectorServer(new TestClock().freeze(new Date('2000-01-01T00:00:00Z')));
    nonces = openNonceStore(server.platform.database);
  });
  after(async () => {
    nonces.close();
    await server.close();
  });

  /** The authenticator as the server builds it, at the vector's own time. */
  const authenticateAt = (vector: SigningVector) => {
    const at = parseRequestTime(timeOf(vector))!;
    return createAuthenticator({ database: server.platform.database, nonces, wallClock: { now: () => at } });
  };
  const requestOf = (
    vector: SigningVector,
    change: Partial<{ method: string; target: string; body: string; nonce: string; credential: string }> = {},
  ) => ({
    method: change.method ?? vector.method,
    target: change.target ?? vector.uri,
    body: Buffer.from(change.body ?? vector.body),
    ip: '127.0.0.1',
    headers: {
      credential: change.credential ?? vector.credential,
      nonce: change.nonce ?? vector.nonce,
      signature: vector.signature,
    },
  });
  const refusedAs = (kind: keyof typeof HTTP_ERRORS) => (error: unknown) =>
    error instanceof AppError && error.definition === HTTP_ERRORS[kind];

  test('all five vectors verify, and changing method, path, query, body, nonce or time makes each fail', async () => {
    for (const vector of VECTORS.vectors) {
      const authenticate = authenticateAt(vector);
      const changes = [
        { method: vector.method === 'GET' ? 'POST' : 'GET' },
        { target: vector.uri.replace('/v1/', '/v2/') },
        { target: vector.uri.includes('?') ? `${vector.uri}&x=1` : `${vector.uri}?x=1` },
        { body: vector.body === '' ? '{}' : vector.body.replace('}', ' }') },
        { nonce: `${vector.nonce.slice(0, -1)}${vector.nonce.endsWith('0') ? '1' : '0'}` },
        {
          credential: vector.credential.replace(
            /(\d{13})(\d)\//,
            (_, head: string, last: string) => `${head}${(Number(last) + 1) % 10}/`,
          ),
        },
      ];
      for (const change of changes) {
        await assert.rejects(
          authenticate(requestOf(vector, change)),
          refusedAs('signatureInvalid'),
          `${vector.uri} ${JSON.stringify(change)}`,
        );
      }
      const caller = await authenticate(requestOf(vector));
      assert.equal(caller.appId, VECTORS.app_id);
      // The nonce is now spent: the same request again is a replay.
      await assert.rejects(authenticate(requestOf(vector)), refusedAs('nonceReused'));
    }
  });
});

describe('over HTTP, vectors pass byte for byte', () => {
  let server: TestServer;
  before(async () => {
    // As above: the nonce purge must not run on a clock past the vectors' times.
    server = await vectorServer(new TestClock().freeze(new Date('2000-01-01T00:00:00Z')));
  });
  after(() => server.close());

  test('the echo vector answers 200 and the customer-edit vector gets past authentication', async () => {
    const [echo, , , edit] = VECTORS.vectors as [SigningVector, SigningVector, SigningVector, SigningVector];
    for (const [vector, status, code] of [
      [echo, 200, 200],
      [edit, 404, 200101],
    ] as const) {
      server.clock.set(parseRequestTime(timeOf(vector))!);
      const reply = await rawRequest(server.url, {
        method: vector.method,
        target: vector.uri,
        body: vector.body,
        headers: {
          'content-type': 'application/json',
          credential: vector.credential,
          nonce: vector.nonce,
          signature: vector.signature,
        },
      });
      assert.equal(reply.status, status, reply.text);
      assert.equal(reply.json.code, code);
    }
    assert.deepEqual(
      (
        await rawRequest(server.url, {
          method: echo.method,
          target: echo.uri,
          body: echo.body,
          headers: {
            'content-type': 'application/json',
            credential: echo.credential,
            nonce: echo.nonce,
            signature: echo.signature,
          },
        })
      ).json.error_code,
      '100105',
    );
  });
});
