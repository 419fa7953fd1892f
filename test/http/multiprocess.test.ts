import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PaygateClient } from '@paygate/client';
import pg from 'pg';
import { MIGRATIONS } from '../../src/platform/database/migrate.js';
import { CARDS, card, uniqueReference } from '../support/fixtures.js';
import { spend, userInput } from '../support/issuing.js';
import { TEST_PRIVATE_KEY, TEST_PUBLIC_KEY } from '../support/keys.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { freePort, runCli, type ServeProcess, startServe } from '../support/processes.js';
import { rawRequest, signedHeaders } from '../support/server.js';

const ECHO = '/svc/payment/api/v1/openapi/echo';

describe('two server processes on one PostgreSQL', {
  skip: POSTGRES_URL ? false : 'cross-process guarantees are tested on PostgreSQL (one server per SQLite folder)',
}, () => {
  const dataDirs: string[] = [];
  const servers: ServeProcess[] = [];
  const urls: string[] = [];
  let schema: { url: string; drop(): Promise<void> };
  let appId: string;

  before(async () => {
    schema = await createTestSchema(POSTGRES_URL!);
    // Started together on an empty schema: the migration advisory lock lets exactly one of them migrate.
    const starts = [0, 1].map(async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'paygate-multi-'));
      dataDirs.push(dataDir);
      const port = await freePort();
      urls.push(`http://127.0.0.1:${port}`);
      return startServe({
        PAYGATE_DATA_DIR: dataDir,
        PORT: String(port),
        DATABASE_URL: schema.url,
        LOG_LEVEL: 'warn',
        PAYGATE_DEMO: '0',
      });
    });
    servers.push(...(await Promise.all(starts)));

    const env = { PAYGATE_DATA_DIR: dataDirs[0]!, DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    const merchantId = JSON.parse((await runCli(['merchant', 'create', '--name', 'Multi', '--json'], env)).stdout)
      .merchant_id as string;
    const keyFile = join(dataDirs[0]!, 'public.pem');
    writeFileSync(keyFile, TEST_PUBLIC_KEY);
    appId = JSON.parse(
      (await runCli(['app', 'create', '--merchant', merchantId, '--public-key', keyFile, '--json'], env)).stdout,
    ).app_id as string;
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await schema?.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  test('both processes started and the schema was migrated once', async () => {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('select name from schema_migrations');
      assert.deepEqual(
        rows.map((r) => r.name),
        Object.keys(MIGRATIONS),
      );
    } finally {
      await client.end();
    }
    for (const url of urls) assert.equal((await rawRequest(url, { method: 'GET', target: '/readyz' })).status, 200);
  });

  test('a request replayed to the other process is refused: nonces are shared', async () => {
    const body = '{"message":"once"}';
    const headers = {
      ...signedHeaders({ appId, privateKey: TEST_PRIVATE_KEY }, { method: 'POST', target: ECHO, body }),
      'content-type': 'application/json',
    };
    const first = await rawRequest(urls[0]!, { method: 'POST', target: ECHO, body, headers });
    assert.equal(first.status, 200, first.text);
    const replay = await rawRequest(urls[1]!, { method: 'POST', target: ECHO, body, headers });
    assert.equal(replay.status, 401);
    assert.equal(replay.json.error_code, '100105');
  });

  test('20 concurrent upserts of one reference, split across both processes, make one customer', async () => {
    const clients = urls.map(
      (baseUrl) => new PaygateClient({ baseUrl, appId, privateKey: TEST_PRIVATE_KEY, retry: { maxAttempts: 1 } }),
    );
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        clients[i % 2]!.customers.create({ reference_number: 'MULTI-1', name: `Writer ${i}`, phone: String(i) }),
      ),
    );
    assert.equal(new Set(replies.map((c) => c.uuid)).size, 1);
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select count(*)::int as n from customers where reference_number = 'MULTI-1'",
      );
      assert.equal(rows[0].n, 1);
    } finally {
      await client.end();
    }
  });

  test('one Idempotency-Key sent to both processes at once runs once', async () => {
    const clients = urls.map(
      (baseUrl) => new PaygateClient({ baseUrl, appId, privateKey: TEST_PRIVATE_KEY, retry: { maxAttempts: 1 } }),
    );
    const body = { customer: { reference_number: 'MULTI-KEY-1', name: 'Once', phone: '1' } };
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        clients[i % 2]!.send('POST', '/svc/payment/api/v1/openapi/customers', body, {
          idempotencyKey: 'multi-process-key',
        }),
      ),
    );
    const fresh = replies.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    assert.equal(fresh.length, 1, replies.map((r) => r.status).join(','));
    for (const reply of replies) {
      if (reply.status === 409) assert.equal((reply.json as { error_code: string }).error_code, '100303');
      else assert.equal(reply.text, fresh[0]!.text);
    }
  });
  test('refunds, payments and a settlement at once, split across both processes, leave the ledger consistent', async () => {
    const clients = urls.map(
      (baseUrl) => new PaygateClient({ baseUrl, appId, privateKey: TEST_PRIVATE_KEY, retry: { maxAttempts: 1 } }),
    );
    const pay = async (i: number, total: string) => {
      const client = clients[i % 2]!;
      const order = await client.orders.create({
        reference_number: uniqueReference('LEDGER'),
        currency: 'HKD',
        charge_fee: total,
      });
      const paid = await client.orders.pay({ number: order.number }, { credit_card: card(CARDS.visa) });
      assert.equal(paid.transaction.success, true);
      return paid.transaction.uuid;
    };
    const sales = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(i, '100.00')));
    // A day on: the sales settle, and can be refunded.
    await clients[0]!.sandbox.advanceClock(86_400 + 60);
    const refunds = sales.flatMap((uuid, i) =>
      [1, 2].map((n) => clients[(i + n) % 2]!.transactions.refund(uuid, { amount: '10.00' })),
    );
    const payments = Array.from({ length: 12 }, (_, i) => pay(i, '7.00'));
    const settlement = clients[1]!.sandbox.advanceClock(86_400);
    const outcomes = await Promise.allSettled([...refunds, ...payments, settlement]);
    for (const outcome of outcomes)
      assert.equal(outcome.status, 'fulfilled', outcome.status === 'rejected' ? String(outcome.reason) : '');

    const env = { PAYGATE_DATA_DIR: dataDirs[0]!, DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    const check = await runCli(['ledger', 'check', '--json'], env);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    const [balance] = await clients[0]!.balances.get();
    // 12 sales of 100.00 settled less 5.25 each, 24 refunds of 10.00; the 12 payments of 7.00 settled or still
    // incoming.
    assert.equal(balance!.reserved, '0.00');
    const available = Math.round(Number(balance!.available) * 100);
    const incoming = Math.round(Number(balance!.incoming) * 100);
    const settledSmall = (available - (12 * 9475 - 24 * 1000)) / (700 - 255);
    assert.ok(
      Number.isInteger(settledSmall) && settledSmall >= 0 && settledSmall <= 12,
      `available ${balance!.available}`,
    );
    assert.equal(incoming, (12 - settledSmall) * 700);
  });

  test('card authorisations at once, split across both processes, never hold more than the funds; the ledger agrees', async () => {
    const clients = urls.map(
      (baseUrl) => new PaygateClient({ baseUrl, appId, privateKey: TEST_PRIVATE_KEY, retry: { maxAttempts: 1 } }),
    );
    await clients[0]!.sandbox.topUp({ currency: 'USD', amount: '100.00' });
    const user = await clients[0]!.users.create(userInput());
    const cards = await Promise.all(
      [0, 1, 2].map((i) =>
        clients[i % 2]!.cards.create({
          user_id: user,
          reference_id: uniqueReference('CARD'),
          title: `Card ${i}`,
          settlement_currency: 'USD',
        }),
      ),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        clients[i % 2]!.sandbox.authorize(spend(cards[i % 3]!.id, '10.00', { currency: 'USD' })),
      ),
    );
    const approved = outcomes.filter((o) => o.decline_reason === null).map((o) => o.transaction.id);
    assert.equal(approved.length, 10, 'USD 100.00 holds ten purchases of 10.00, whichever process took them');
    assert.deepEqual(
      new Set(outcomes.filter((o) => o.decline_reason !== null).map((o) => o.decline_reason)),
      new Set(['insufficient_funds']),
    );
    // Settled, reversed and settled again at once from both processes: each authorisation changes once.
    const closing = await Promise.allSettled(
      approved.flatMap((id, i) => [clients[i % 2]!.sandbox.settle(id), clients[(i + 1) % 2]!.sandbox.reverse(id)]),
    );
    assert.equal(
      closing.filter((o) => o.status === 'fulfilled').length,
      10,
      'one of the two moves of each authorisation ran',
    );
    const [balance] = (await clients[1]!.balances.get()).filter((b) => b.currency === 'USD');
    assert.equal(balance!.on_hold, '0.00');
    const settled = (await clients[0]!.cards.transactions({ limit: 1000 })).filter(
      (t) => t.status === 'Settled',
    ).length;
    assert.equal(balance!.available, `${100 - 10 * settled}.00`);
    const env = { PAYGATE_DATA_DIR: dataDirs[0]!, DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    const check = await runCli(['ledger', 'check', '--json'], env);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  test('payouts at once, run by both processes, never spend more than the balance; each runs once; the ledger agrees', async () => {
    const clients = urls.map(
      (baseUrl) => new PaygateClient({ baseUrl, appId, privateKey: TEST_PRIVATE_KEY, retry: { maxAttempts: 1 } }),
    );
    await clients[0]!.sandbox.topUp({ currency: 'CNY', amount: '100.00' });
    const payee = await clients[1]!.payees.create({
      type: 'People',
      nickname: 'Wong',
      payout_account: {
        country: 'HK',
        currency: 'CNY',
        transfer_method: 'HK FPS- FPS ID',
        hk_fps: { fps_id: '7654321' },
      },
    });
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        clients[i % 2]!.payouts.create({
          payee_id: payee.id,
          currency: 'CNY',
          amount: '10.00',
          callback_url: 'http://127.0.0.1:9/payouts',
        }),
      ),
    );
    // Each process's scheduler runs them, and the sandbox's push runs them from the other process at the same time.
    await Promise.allSettled(created.map((p, i) => clients[(i + 1) % 2]!.sandbox.advancePayout(p.id)));
    let payouts = created;
    for (
      let i = 0;
      i < 400 && payouts.some((p) => p.schedule_status === 'Approved' && p.transfer_status === 'Initiated');
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      payouts = await Promise.all(created.map((p) => clients[0]!.payouts.get(p.id)));
    }
    const ran = payouts.filter((p) => p.transfer_status !== 'Initiated');
    assert.equal(ran.length, 10, 'CNY 100.00 pays ten payouts of 10.00, whichever process ran them');
    assert.equal(payouts.filter((p) => p.schedule_status === 'Failed').length, 20);
    const [balance] = (await clients[1]!.balances.get()).filter((b) => b.currency === 'CNY');
    assert.equal(balance!.available, '0.00');
    const entries = await clients[0]!.balances.transactions({
      filters: { 'filter[type][_eq]': 'payout_reserve' },
      limit: 1000,
    });
    assert.equal(
      entries.balance_transactions.filter((e) => e.currency === 'CNY').length,
      10,
      'each payout reserved once',
    );
    const env = { PAYGATE_DATA_DIR: dataDirs[0]!, DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    const check = await runCli(['ledger', 'check', '--json'], env);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});
