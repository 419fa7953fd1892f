import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { formatRequestTime } from '@paygate/client';
import { createApp, setAppEnabled } from '../../src/merchants/apps.js';
import { MERCHANT_ERRORS } from '../../src/merchants/errors.js';
import { AppError } from '../../src/platform/errors.js';
import { TEST_PUBLIC_KEY } from '../support/keys.js';
import {
  type RawReply,
  rawRequest,
  signedHeaders,
  signedRaw,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from '../support/server.js';

const ECHO = '/svc/payment/api/v1/openapi/echo';
const BODY = '{"message":"hi"}';

function assertRefused(reply: RawReply, status: number, errorCode: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.json.error_code, errorCode, reply.text);
  assert.equal(reply.json.code, /^\d+$/.test(errorCode) ? Number(errorCode) : status);
  assert.equal(reply.json.data, null);
  assert.equal(typeof reply.json.message, 'string');
  assert.ok(reply.headers['x-request-id'], 'every reply carries X-Request-ID');
}

describe('Wonder-RSA-SHA256 authentication', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  const echo = (headers: Record<string, string>, body = BODY, target = ECHO) =>
    rawRequest(server.url, {
      method: 'POST',
      target,
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('a correctly signed request is accepted, with Accept: */* as the PHP SDK sends it', async () => {
    const reply = await echo({
      ...signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY }),
      accept: '*/*',
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, { code: 200, message: 'success', data: { message: 'hi' } });
  });

  test('header names are case-insensitive', async () => {
    const headers = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY });
    const reply = await echo({ CREDENTIAL: headers.credential!, NoNcE: headers.nonce!, SIGNATURE: headers.signature! });
    assert.equal(reply.status, 200, reply.text);
  });

  test('each missing header is refused with 401 and names the header', async () => {
    const full = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY });
    for (const name of ['credential', 'nonce', 'signature'] as const) {
      const { [name]: _dropped, ...rest } = full;
      const reply = await echo(rest);
      assertRefused(reply, 401, '100101');
      assert.match(reply.json.message, new RegExp(name, 'i'));
    }
  });

  test('a malformed Credential answers 401 with E000002', async () => {
    const good = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY });
    const time = good.credential!.split('/')[1];
    for (const credential of [
      'garbage',
      `${merchant.appId}/${time}`,
      `${merchant.appId}/${time}/Wonder-RSA-SHA256/extra`,
      `${merchant.appId}/${time}/HMAC-SHA256`,
      `/${time}/Wonder-RSA-SHA256`,
      `${merchant.appId}/2026-11-21/Wonder-RSA-SHA256`,
      `${merchant.appId}/20261340250000/Wonder-RSA-SHA256`,
    ]) {
      assertRefused(await echo({ ...good, credential }), 401, 'E000002');
    }
  });

  test('a nonce that is not 16 to 64 alphanumerics is refused', async () => {
    for (const nonce of ['short', 'has space 123456', 'ÄÖÜäöü1234567890', 'x'.repeat(65)]) {
      const headers = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY, nonce });
      assertRefused(await echo(headers), 401, '100106');
    }
  });

  test('credential time more than 30 minutes from the clock is refused, either way; within it is accepted', async () => {
    const now = server.clock.now().getTime();
    for (const offsetMinutes of [-31, 31, -60 * 24]) {
      const headers = signedHeaders(merchant, {
        method: 'POST',
        target: ECHO,
        body: BODY,
        at: new Date(now + offsetMinutes * 60_000),
      });
      assertRefused(await echo(headers), 401, '100102');
    }
    for (const offsetMinutes of [-29, 29]) {
      const headers = signedHeaders(merchant, {
        method: 'POST',
        target: ECHO,
        body: BODY,
        at: new Date(now + offsetMinutes * 60_000),
      });
      assert.equal((await echo(headers)).status, 200, `offset ${offsetMinutes} min`);
    }
  });

  test('an unknown AppID is refused with 401', async () => {
    const headers = signedHeaders(
      { ...merchant, appId: '00000000-0000-4000-8000-000000000000' },
      { method: 'POST', target: ECHO, body: BODY },
    );
    assertRefused(await echo(headers), 401, '100103');
  });

  test('changing the method, path, query, body, nonce or time after signing fails the signature', async () => {
    const signed = signedHeaders(merchant, { method: 'POST', target: `${ECHO}?a=1`, body: BODY });
    const time = signed.credential!.split('/')[1]!;
    const later = formatRequestTime(
      new Date(
        Date.parse(
          `${time.slice(0, 4)}-${time.slice(4, 6)}-${time.slice(6, 8)}T${time.slice(8, 10)}:${time.slice(10, 12)}:${time.slice(12)}Z`,
        ) + 1000,
      ),
    );
    const attempts: Array<{ method?: string; target?: string; body?: string; headers?: Record<string, string> }> = [
      { method: 'PUT' },
      { target: '/svc/payment/api/v1/echo?a=1' },
      { target: `${ECHO}?a=2` },
      { target: ECHO },
      { body: '{"message":"hj"}' },
      { body: '{"message": "hi"}' },
      { headers: { nonce: `${signed.nonce!.slice(0, -1)}${signed.nonce!.endsWith('A') ? 'B' : 'A'}` } },
      { headers: { credential: signed.credential!.replace(time, later) } },
    ];
    for (const change of attempts) {
      const reply = await rawRequest(server.url, {
        method: change.method ?? 'POST',
        target: change.target ?? `${ECHO}?a=1`,
        body: change.body ?? BODY,
        headers: { 'content-type': 'application/json', ...signed, ...change.headers },
      });
      // A PUT on the echo path finds no route; everything else reaches authentication and fails it.
      if (change.method === 'PUT') assertRefused(reply, 404, '100201');
      else assertRefused(reply, 401, '100104');
    }
    // The unchanged request still passes: nothing above consumed its nonce.
    assert.equal(
      (
        await rawRequest(server.url, {
          method: 'POST',
          target: `${ECHO}?a=1`,
          body: BODY,
          headers: { 'content-type': 'application/json', ...signed },
        })
      ).status,
      200,
    );
  });

  test('a signature that is not base64 or made with another key is refused', async () => {
    const good = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY });
    assertRefused(await echo({ ...good, signature: 'not base64!' }), 401, '100104');
    const stranger = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    assertRefused(
      await echo(
        signedHeaders({ ...merchant, privateKey: stranger.privateKey }, { method: 'POST', target: ECHO, body: BODY }),
      ),
      401,
      '100104',
    );
  });

  test('a reused nonce is refused even with a fresh signature, and the original request replayed is refused', async () => {
    const first = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY });
    assert.equal((await echo(first)).status, 200);
    assertRefused(await echo(first), 401, '100105');
    const sameNonce = signedHeaders(merchant, {
      method: 'POST',
      target: ECHO,
      body: '{"message":"other"}',
      nonce: first.nonce,
    });
    assertRefused(await echo(sameNonce, '{"message":"other"}'), 401, '100105');
  });

  test('a nonce is per app: another app may use the same one', async () => {
    const other = await server.newMerchant();
    const nonce = 'SharedNonce00001';
    assert.equal(
      (await echo(signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY, nonce }))).status,
      200,
    );
    assert.equal((await echo(signedHeaders(other, { method: 'POST', target: ECHO, body: BODY, nonce }))).status, 200);
  });

  test('a request replayed at exactly 30:00 after its credential time, the last instant it passes, is refused', async () => {
    const at = new Date(Math.floor(server.clock.now().getTime() / 1000) * 1000);
    const headers = signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY, at });
    server.clock.freeze(at);
    try {
      assert.equal((await echo(headers)).status, 200);
      server.clock.advance(30 * 60_000);
      assertRefused(await echo(headers), 401, '100105');
    } finally {
      server.clock.advance(-30 * 60_000);
      server.clock.unfreeze();
    }
  });

  test('a nonce is free again once its credential window has passed', async () => {
    const nonce = 'WindowNonce00001';
    const start = server.clock.now();
    assert.equal(
      (await echo(signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY, nonce, at: start }))).status,
      200,
    );
    server.clock.advance(36 * 60_000);
    try {
      const reply = await echo(
        signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY, nonce, at: server.clock.now() }),
      );
      assert.equal(reply.status, 200, reply.text);
    } finally {
      server.clock.advance(-36 * 60_000);
    }
  });

  test('a disabled app is refused with 403, and enabled again it works', async () => {
    const target = await server.newMerchant();
    await setAppEnabled(server.platform, target.appId, false);
    assertRefused(await echo(signedHeaders(target, { method: 'POST', target: ECHO, body: BODY })), 403, '100111');
    await setAppEnabled(server.platform, target.appId, true);
    assert.equal((await echo(signedHeaders(target, { method: 'POST', target: ECHO, body: BODY }))).status, 200);
  });

  test('a disabled app with a bad signature learns nothing: 401, not 403', async () => {
    const target = await server.newMerchant();
    await setAppEnabled(server.platform, target.appId, false);
    assertRefused(
      await echo({ ...signedHeaders(target, { method: 'POST', target: ECHO, body: BODY }), signature: 'AAAA' }),
      401,
      '100104',
    );
  });

  test('an IP allow list refuses other addresses with 403 and matches IPv4-mapped spellings', async () => {
    const outside = await server.newMerchant({ allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    assertRefused(await echo(signedHeaders(outside, { method: 'POST', target: ECHO, body: BODY })), 403, '100112');
    const inside = await server.newMerchant({ allowedIps: ['10.0.0.0/8', '127.0.0.0/8'] });
    assert.equal((await echo(signedHeaders(inside, { method: 'POST', target: ECHO, body: BODY }))).status, 200);
    const mapped = await server.newMerchant({ allowedIps: ['::ffff:127.0.0.1'] });
    assert.equal((await echo(signedHeaders(mapped, { method: 'POST', target: ECHO, body: BODY }))).status, 200);
  });

  test('X-Forwarded-For is ignored without a trusted proxy', async () => {
    const outside = await server.newMerchant({ allowedIps: ['203.0.113.7'] });
    const headers = {
      ...signedHeaders(outside, { method: 'POST', target: ECHO, body: BODY }),
      'x-forwarded-for': '203.0.113.7',
    };
    assertRefused(await echo(headers), 403, '100112');
  });

  test('keys of 2047, 2048 and 4096 bits are accepted; shorter and non-RSA keys are refused at app creation', async () => {
    for (const bits of [2047, 4096]) {
      const pair = generateKeyPairSync('rsa', {
        modulusLength: bits,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      });
      const holder = await server.newMerchant({ publicKeyPem: pair.publicKey, privateKeyPem: pair.privateKey });
      assert.equal(
        (await echo(signedHeaders(holder, { method: 'POST', target: ECHO, body: BODY }))).status,
        200,
        `${bits} bits`,
      );
    }
    const { merchantId } = merchant;
    const weak = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    for (const publicKeyPem of [weak.publicKey, ec.publicKey, 'not a key']) {
      await assert.rejects(
        createApp(server.platform, { merchantId, publicKeyPem }),
        (e) => e instanceof AppError && e.definition === MERCHANT_ERRORS.publicKeyInvalid,
      );
    }
    await createApp(server.platform, { merchantId, publicKeyPem: TEST_PUBLIC_KEY });
  });

  test('a PHP json_encode body (escaped slashes, \\u escapes) verifies over its raw bytes and decodes', async () => {
    const body = '{"message":"https:\\/\\/shop.example\\/\\u9673\\u5927\\u6587"}';
    const reply = await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.message, 'https://shop.example/陳大文');
  });

  test('authentication comes before validation: an unsigned invalid body is 401, a signed one 400', async () => {
    assertRefused(await echo({}, '{"message":42}'), 401, '100101');
    assertRefused(
      await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body: '{"message":42}' }),
      400,
      '100207',
    );
  });

  test('X-Request-ID is echoed when sent and made up when not', async () => {
    const sent = await echo({
      ...signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY }),
      'x-request-id': 'php-sdk-fixed-id',
    });
    assert.equal(sent.headers['x-request-id'], 'php-sdk-fixed-id');
    const made = await echo(signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY }));
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});

describe('behind a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PAYGATE_TRUSTED_PROXIES: '127.0.0.1/32,::1/128' } });
  });
  after(() => server.close());

  test("the proxy's X-Forwarded-For names the caller for the allow list", async () => {
    const merchant = await server.newMerchant({ allowedIps: ['203.0.113.7'] });
    const send = (forwardedFor?: string) =>
      rawRequest(server.url, {
        method: 'POST',
        target: ECHO,
        body: BODY,
        headers: {
          'content-type': 'application/json',
          ...signedHeaders(merchant, { method: 'POST', target: ECHO, body: BODY }),
          ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
        },
      });
    assert.equal((await send('203.0.113.7')).status, 200);
    assertRefused(await send('198.51.100.1'), 403, '100112');
    assertRefused(await send(), 403, '100112');
  });
});
