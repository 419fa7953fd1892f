import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ERRORS } from '../../src/modules.js';
import { PLATFORM_ERRORS } from '../../src/platform/errors.js';
import {
  type RawReply,
  rawRequest,
  signedRaw,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from '../support/server.js';

const ECHO = '/svc/payment/api/v1/openapi/echo';
const CUSTOMERS = '/svc/payment/api/v1/openapi/customers';
const KNOWN_CODES = new Set(Object.values(ERRORS).map((e) => e.code));

function assertEnvelopeError(reply: RawReply, status: number, errorCode: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(Object.keys(reply.json), ['code', 'error_code', 'message', 'data']);
  assert.equal(reply.json.error_code, errorCode);
  assert.ok(KNOWN_CODES.has(reply.json.error_code));
  assert.equal(reply.json.data, null);
  assert.ok(reply.headers['x-request-id']);
}

describe('every reply is the envelope', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  before(async () => {
    server = await startTestServer({ env: { PAYGATE_BODY_LIMIT: String(64 * 1024) } });
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('unknown routes answer 404 in the envelope, before the body is read or the signature checked', async () => {
    assertEnvelopeError(await rawRequest(server.url, { method: 'GET', target: '/nope' }), 404, '100201');
    assertEnvelopeError(await rawRequest(server.url, { method: 'DELETE', target: ECHO }), 404, '100201');
    const huge = await rawRequest(server.url, {
      method: 'POST',
      target: '/svc/payment/api/v1/openapi/nope',
      body: 'x'.repeat(200 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelopeError(huge, 404, '100201');
  });

  test('a body over the configured limit answers 413, with or without Content-Length', async () => {
    const body = JSON.stringify({ message: 'x'.repeat(70 * 1024) });
    assertEnvelopeError(await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body }), 413, '100205');
    const chunked = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: ECHO,
      body,
      headers: { 'transfer-encoding': 'chunked' },
    });
    assertEnvelopeError(chunked, 413, '100205');
    const justUnder = JSON.stringify({ message: 'x'.repeat(60 * 1024) });
    assert.equal(
      (await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body: justUnder })).status,
      200,
    );
  });

  test('size and media type are checked before the signature', async () => {
    const big = await rawRequest(server.url, {
      method: 'POST',
      target: ECHO,
      body: 'x'.repeat(70 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelopeError(big, 413, '100205');
    const text = await rawRequest(server.url, {
      method: 'POST',
      target: ECHO,
      body: 'hi',
      headers: { 'content-type': 'text/plain' },
    });
    assertEnvelopeError(text, 415, '100206');
  });

  test('a body that is not application/json answers 415', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const reply = await signedRaw(server.url, merchant, {
        method: 'POST',
        target: ECHO,
        body: 'message=hi',
        headers: { 'content-type': contentType },
      });
      assertEnvelopeError(reply, 415, '100206');
    }
    const charset = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: ECHO,
      body: '{"message":"hi"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(charset.status, 200);
  });

  test('malformed JSON, invalid UTF-8 and prototype keys are refused with their own codes', async () => {
    assertEnvelopeError(
      await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body: '{"message":' }),
      400,
      '100202',
    );
    const invalidUtf8 = Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    assertEnvelopeError(
      await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body: invalidUtf8 }),
      400,
      '100203',
    );
    for (const body of [
      '{"message":"hi","__proto__":{"admin":true}}',
      '{"message":"hi","constructor":{"prototype":{"admin":true}}}',
    ]) {
      assertEnvelopeError(await signedRaw(server.url, merchant, { method: 'POST', target: ECHO, body }), 400, '100204');
    }
  });

  test('a body that is not JSON (RFC 8259) is refused, whatever field holds the fault, and nothing is created', async () => {
    const ORDERS = '/svc/payment/api/v1/openapi/orders';
    const bodies = [
      '{"order":{"reference_number":1e5e5,"currency":"HKD","charge_fee":"1.00"}}',
      '{"order":{"reference_number":"R-NOTE","currency":"HKD","charge_fee":"1.00","note":--1e}}',
      '{"order":{"reference_number":"R-PLUS","currency":"HKD","charge_fee":+1}}',
      '{"order":{"reference_number":"R-LEAD","currency":"HKD","charge_fee":01.5}}',
      '{"order":{"reference_number":"R-DOT","currency":"HKD","charge_fee":1.}}',
      '{"order":{"reference_number":"R-E","currency":"HKD","charge_fee":1e}}',
      '{"order":{"reference_number":"R-ND","currency":"HKD","charge_fee":-.5}}',
    ];
    for (const body of bodies) {
      const reply = await signedRaw(server.url, merchant, { method: 'POST', target: ORDERS, body });
      assertEnvelopeError(reply, 400, '100202');
    }
    const orders = await server.platform.db
      .selectFrom('orders')
      .select('reference_number')
      .where('merchant_id', '=', merchant.merchantId)
      .execute();
    assert.deepEqual(orders, []);
    // A valid JSON number with an exponent is still read as its exact text, and refused by the field's own rule.
    const exponent = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: ORDERS,
      body: '{"order":{"reference_number":"R-EXP","currency":"HKD","charge_fee":1e2}}',
    });
    assertEnvelopeError(exponent, 400, '400104');
    assert.match(exponent.json.message, /order\.charge_fee must be written without exponent notation/);
  });

  test('validation messages name the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^customer is required\.$/],
      [[], /^The request body must be an object\.$/],
      [{ customer: 'x' }, /^customer must be an object\.$/],
      [{ customer: { name: 'A', phone: '1' } }, /^customer\.reference_number is required\.$/],
      [{ customer: { reference_number: 'R', name: 42, phone: '1' } }, /^customer\.name must be a string\.$/],
      [
        { customer: { reference_number: 'R', name: 'A', phone: '1', email: 'e'.repeat(256) } },
        /^customer\.email must be at most 255 characters\.$/,
      ],
      [
        { customer: { reference_number: 'R', name: 'A', phone: '1', email: 5 } },
        /^customer\.email must be a string or null\.$/,
      ],
      [
        { customer: { reference_number: '', name: 'A', phone: '1' } },
        /^customer\.reference_number must not be empty\.$/,
      ],
    ];
    for (const [body, message] of cases) {
      const reply = await signedRaw(server.url, merchant, {
        method: 'POST',
        target: CUSTOMERS,
        body: JSON.stringify(body),
      });
      assertEnvelopeError(reply, 400, '100207');
      assert.match(reply.json.message, message, JSON.stringify(body));
    }
    const nul = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: CUSTOMERS,
      body: '{"customer":{"reference_number":"R","name":"a\\u0000b","phone":"1"}}',
    });
    assertEnvelopeError(nul, 400, '100207');
    assert.equal(nul.json.message, 'customer.name must not contain the character U+0000.');

    const noBody = await signedRaw(server.url, merchant, { method: 'POST', target: CUSTOMERS });
    assertEnvelopeError(noBody, 400, '100207');
    assert.equal(noBody.json.message, 'The request body is required.');
  });

  test('a request node cannot parse still gets an envelope', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const url = new URL(server.url);
      const socket = connect(Number(url.port), url.hostname, () => socket.write('GARBAGE\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    assert.match(text, /^HTTP\/1\.1 400/);
    assert.match(text, /\r\nX-Request-ID: [0-9a-f-]{36}\r\n/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error_code: string };
    assert.equal(body.error_code, '100208');
  });
});

describe('a fault answers 500 without internals', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    await sql`alter table customers rename to customers_away`.execute(server.platform.db);
  });
  after(() => server.close());

  test('the message is the generic one, and the request id is there to find the log line', async () => {
    const body = JSON.stringify({ customer: { reference_number: 'R-1', name: 'A', phone: '1' } });
    const reply = await signedRaw(server.url, merchant, { method: 'POST', target: CUSTOMERS, body });
    assertEnvelopeError(reply, 500, '100901');
    assert.match(
      reply.json.message,
      new RegExp(`^${PLATFORM_ERRORS.internal.message.replace(/[.;]/g, '\\$&')} Reference: [0-9a-f-]{36}\\.$`),
    );
    const second = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: CUSTOMERS,
      body,
      headers: { 'x-request-id': 'reused-by-sdk' },
    });
    assert.equal(second.headers['x-request-id'], 'reused-by-sdk', 'the client id is echoed');
    assert.doesNotMatch(second.json.message, /reused-by-sdk/, 'the reference is our own, unique id');
    assert.doesNotMatch(reply.text, /customers|table|relation|sqlite|postgres|stack| at /i);
  });
});
