import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { merchantContext } from '../../src/context/context.js';
import { createOrUpdateCustomer } from '../../src/customers/customers.js';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../src/http/idempotency/idempotency.js';
import { DEFAULT_TOKENS } from '../../src/payment-tokens/default-token.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { type RawReply, signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const CUSTOMERS = '/svc/payment/api/v1/openapi/customers';

describe('Idempotency-Key', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  const createCustomer = (
    key: string | undefined,
    customer: Record<string, unknown>,
    who: TestMerchant = merchant,
    extra: Record<string, string> = {},
  ) =>
    signedRaw(server.url, who, {
      method: 'POST',
      target: CUSTOMERS,
      body: JSON.stringify({ customer }),
      at: server.clock.now(),
      headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...extra },
    });
  const customerCount = async (merchantId: string) =>
    Number(
      (
        await server.platform.db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('merchant_id', '=', merchantId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const claimRow = (merchantId: string, key: string) =>
    server.platform.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('the same key and request replays the stored reply byte for byte, and runs once', async () => {
    const key = randomUUID();
    const ref = `IDEM-${key}`;
    const first = await createCustomer(key, { reference_number: ref, name: 'First', phone: '1' });
    assert.equal(first.status, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);

    // The customer changes in between; the replay still answers what the first request answered.
    const uuid = first.json.data.customer.uuid as string;
    await merchant.client.customers.update(uuid, { name: 'Changed', phone: '2' });

    const replay = await createCustomer(key, { reference_number: ref, name: 'First', phone: '1' });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
    assert.notEqual(replay.headers['x-request-id'], first.headers['x-request-id'], 'the replay is a new request');
    assert.equal((await merchant.client.customers.get(uuid)).name, 'Changed', 'the replay did not write again');
  });

  test('the same key with a different request is refused with 409', async () => {
    const key = randomUUID();
    assert.equal((await createCustomer(key, { reference_number: `A-${key}`, name: 'A', phone: '1' })).status, 200);
    const other = await createCustomer(key, { reference_number: `B-${key}`, name: 'B', phone: '1' });
    assert.equal(other.status, 409);
    assert.equal(other.json.error_code, '100302');
    const sameBodyOtherPath = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: `${CUSTOMERS}?x=1`,
      body: JSON.stringify({ customer: { reference_number: `A-${key}`, name: 'A', phone: '1' } }),
      headers: { 'idempotency-key': key },
    });
    assert.equal(sameBodyOtherPath.json.error_code, '100302', 'the fingerprint covers the request-target');
  });

  test('concurrent requests with one key: one runs, the others are refused or replayed, never run twice', async () => {
    const key = randomUUID();
    const ref = `RACE-${key}`;
    const before = await customerCount(merchant.merchantId);
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => createCustomer(key, { reference_number: ref, name: 'R', phone: '1' })),
    );
    const fresh = replies.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
    assert.equal(fresh.length, 1, replies.map((r) => `${r.status} ${r.headers['idempotent-replayed']}`).join(','));
    for (const reply of replies) {
      if (reply.status === 409) assert.equal(reply.json.error_code, '100303');
      else assert.equal(reply.text, fresh[0]!.text);
    }
    assert.equal(await customerCount(merchant.merchantId), before + 1);
  });

  test('keys are scoped per merchant', async () => {
    const other = await server.newMerchant();
    const key = randomUUID();
    const mine = await createCustomer(key, { reference_number: `M-${key}`, name: 'Mine', phone: '1' });
    const theirs = await createCustomer(key, { reference_number: `T-${key}`, name: 'Theirs', phone: '1' }, other);
    assert.equal(mine.status, 200);
    assert.equal(theirs.status, 200);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.equal(theirs.json.data.customer.name, 'Theirs');
  });

  test('a refusal (4xx) is stored and replayed too', async () => {
    const key = randomUUID();
    const target = `${CUSTOMERS}/${randomUUID()}`;
    const body = JSON.stringify({ name: 'A', phone: '1' });
    const first = await signedRaw(server.url, merchant, {
      method: 'PUT',
      target,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(first.status, 404);
    const replay = await signedRaw(server.url, merchant, {
      method: 'PUT',
      target,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(replay.status, 404);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
  });

  test('validation comes before idempotency: an invalid request with a used key is 400, not 409, and claims nothing', async () => {
    const key = randomUUID();
    assert.equal((await createCustomer(key, { reference_number: `V-${key}`, name: 'V', phone: '1' })).status, 200);
    const invalid = await createCustomer(key, { reference_number: `V-${key}`, name: 42, phone: '1' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.json.error_code, '100207');
    const fresh = randomUUID();
    assert.equal((await createCustomer(fresh, { reference_number: `V-${fresh}`, name: 42, phone: '1' })).status, 400);
    assert.equal(await claimRow(merchant.merchantId, fresh), undefined);
  });

  test('a malformed key is refused', async () => {
    for (const key of ['x'.repeat(256), 'has space', 'ünï']) {
      const reply: RawReply = await createCustomer(key, { reference_number: 'K', name: 'K', phone: '1' });
      assert.equal(reply.status, 400, key);
      assert.equal(reply.json.error_code, '100301');
    }
  });

  test('X-Request-ID is never an idempotency key: clients reuse it', async () => {
    const headers = { 'x-request-id': 'sdk-instance-1' };
    const a = await createCustomer(
      undefined,
      { reference_number: `X-A-${randomUUID()}`, name: 'A', phone: '1' },
      merchant,
      headers,
    );
    const b = await createCustomer(
      undefined,
      { reference_number: `X-B-${randomUUID()}`, name: 'B', phone: '1' },
      merchant,
      headers,
    );
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.notEqual(a.json.data.customer.uuid, b.json.data.customer.uuid);
  });

  test('records are kept 24 hours; after that the key starts afresh', async () => {
    const key = randomUUID();
    const ref = `TTL-${key}`;
    const first = await createCustomer(key, { reference_number: ref, name: 'Day one', phone: '1' });
    const row = await claimRow(merchant.merchantId, key);
    assert.equal(row!.expires_at - row!.created_at, IDEMPOTENCY_TTL_MS);
    assert.equal(row!.state, 'completed');

    server.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
    try {
      const later = await createCustomer(key, { reference_number: ref, name: 'Day two', phone: '1' });
      assert.equal(later.status, 200);
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.equal(later.json.data.customer.uuid, first.json.data.customer.uuid);
      assert.equal(later.json.data.customer.name, 'Day two');
    } finally {
      server.clock.advance(-(IDEMPOTENCY_TTL_MS + 1000));
    }
  });

  test('a claim left processing by a crashed process is retaken once its lock has run out', async () => {
    const key = randomUUID();
    const ref = `CRASH-${key}`;
    const body = JSON.stringify({ customer: { reference_number: ref, name: 'C', phone: '1' } });
    const now = server.clock.now().getTime();
    await server.platform.db
      .insertInto('idempotency_keys')
      .values({
        merchant_id: merchant.merchantId,
        idempotency_key: key,
        fingerprint: server.platform.secrets.fingerprint('POST', CUSTOMERS, body),
        claim_token: 'crashed-process',
        state: 'processing',
        status_code: null,
        response_body: null,
        locked_until: now + IDEMPOTENCY_LOCK_MS,
        expires_at: now + IDEMPOTENCY_TTL_MS,
        created_at: now,
      })
      .execute();
    const send = () =>
      signedRaw(server.url, merchant, { method: 'POST', target: CUSTOMERS, body, headers: { 'idempotency-key': key } });

    const whileLocked = await send();
    assert.equal(whileLocked.status, 409);
    assert.equal(whileLocked.json.error_code, '100303');

    server.clock.advance(IDEMPOTENCY_LOCK_MS + 1000);
    try {
      const retaken = await send();
      assert.equal(retaken.status, 200, retaken.text);
      assert.equal((await claimRow(merchant.merchantId, key))!.state, 'completed');
    } finally {
      server.clock.advance(-(IDEMPOTENCY_LOCK_MS + 1000));
    }
  });
});

describe('the reply and the change commit together', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('if the reply cannot be stored, the change it describes is undone', async () => {
    const found = await findMerchant(server.platform.db, merchant.merchantId);
    const ctx = merchantContext(server.platform, found!, { kind: 'app', appId: merchant.appId }, 'test');
    ctx.outcome = {
      record: async () => {
        throw new Error('storing the reply failed');
      },
    };
    await assert.rejects(
      createOrUpdateCustomer(ctx, DEFAULT_TOKENS, { reference_number: 'TOGETHER-1', name: 'A', phone: '1' }),
      /storing the reply failed/,
    );
    const rows = await server.platform.db
      .selectFrom('customers')
      .select('id')
      .where('reference_number', '=', 'TOGETHER-1')
      .execute();
    assert.deepEqual(rows, []);
  });
});

describe('Idempotency-Key and faults', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('a 5xx reply is not stored: the key is released so the client can retry', async () => {
    await sql`alter table customers rename to customers_away`.execute(server.platform.db);
    const key = randomUUID();
    const body = JSON.stringify({ customer: { reference_number: 'F-1', name: 'F', phone: '1' } });
    const send = () =>
      signedRaw(server.url, merchant, { method: 'POST', target: CUSTOMERS, body, headers: { 'idempotency-key': key } });

    const failed = await send();
    assert.equal(failed.status, 500);
    const row = await server.platform.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('merchant_id', '=', merchant.merchantId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    assert.equal(row, undefined);

    await sql`alter table customers_away rename to customers`.execute(server.platform.db);
    const retried = await send();
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
  });
});
