import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { checkLedger } from '../../src/ledger/check.js';
import { bindingCard, CARDS, newCustomer, paidOrder } from '../support/fixtures.js';
import { TestReceiver } from '../support/receiver.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, TestClock, type TestMerchant, type TestServer } from '../support/server.js';
import { RESTORE_SETS, worldFingerprint } from '../support/world-fingerprint.js';

// Issue 36, point 6: named snapshots of a merchant's sandbox world and its business clock, restore and reset, through
// the signed API (docs/lab.md, "Snapshots and reset").

const DAY = 86_400;

describe('named snapshots and reset', () => {
  let server: TestServer;
  let a: TestMerchant;
  let b: TestMerchant;
  // Wall time stands still: the business clock after a restore reads exactly the snapshot's time.
  const clock = new TestClock().freeze(new Date(Math.floor(Date.now() / 1000) * 1000));

  before(async () => {
    server = await startTestServer({ clock });
    a = await server.newMerchant({ name: 'Snapshot A', timezone: 'Asia/Hong_Kong' });
    b = await server.newMerchant({ name: 'Snapshot B', timezone: 'Asia/Hong_Kong' });
  });
  after(() => server.close());

  const ledgerDifferences = async (merchantId: string) =>
    (await checkLedger(server.platform, { merchantIds: [merchantId] })).differences;

  async function customerWithToken(client: PaygateClient) {
    const customer = await newCustomer(client);
    const token = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
    assert.equal(token.state, 'success');
    await client.customers.update(customer.uuid, {
      name: customer.name,
      phone: customer.phone,
      default_payment_token: token.token,
    });
    return customer;
  }

  /** A monthly plan of the customer's whose first billing is a day ahead on the business clock. */
  async function planFromTomorrow(client: PaygateClient, customerUuid: string, reference: string) {
    const item = await client.recurring.createItem({ label: 'Gold', price: '88.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const start = new Date(Date.parse((await client.sandbox.clock()).now) + DAY * 1000).toISOString();
    return client.recurring.createPlan({
      name: 'Gold',
      reference_number: reference,
      customer_uuid: customerUuid,
      cycles: [
        {
          recurring_items: [{ id: item.id }],
          recurring_billing_config: config.id,
          estimated_start_date: start,
          interval_counts: 3,
        },
      ],
    });
  }

  const ordersOf = async (client: PaygateClient) =>
    (await client.orders.list({ limit: 100 })).orders.sort((x, y) => x.number.localeCompare(y.number));
  const planOrders = async (client: PaygateClient, reference: string) =>
    (await client.orders.list({ limit: 100, filters: { 'filter[reference_number][_contains]': `${reference}-` } }))
      .orders;

  test('save, list, change the world, restore: objects, ledger, clock and due work come back; B is untouched', async () => {
    const customer = await customerWithToken(a.client);
    const reference = `PLAN-${randomUUID()}`;
    const plan = await planFromTomorrow(a.client, customer.uuid, reference);
    const paid = await paidOrder(a.client, '100.00');
    await paidOrder(b.client, '30.00');
    const bBefore = await worldFingerprint(server.platform.database, b.merchantId);
    const bClock = await b.client.sandbox.clock();

    const before = {
      clock: await a.client.sandbox.clock(),
      orders: await ordersOf(a.client),
      customer: await a.client.customers.get(customer.uuid),
      tokens: await a.client.customers.tokens(customer.uuid),
      balances: await a.client.balances.get(),
      plan: await a.client.recurring.getPlan(plan.id),
    };
    const saved = await a.client.labSnapshots.save('first');
    assert.equal(saved.replaced, false);
    assert.equal(saved.snapshot.name, 'first');
    assert.equal(saved.snapshot.business_at, before.clock.now);
    assert.ok(saved.snapshot.row_count > 10, `rows saved: ${saved.snapshot.row_count}`);
    assert.ok(saved.snapshot.byte_count > 1000);
    assert.deepEqual(
      (await a.client.labSnapshots.list()).map((s) => s.name),
      ['first'],
    );

    // The world moves on: two days (the plan bills, the day's sales settle), a refund, another order and customer.
    await a.client.sandbox.advanceClock(2 * DAY);
    assert.equal((await planOrders(a.client, reference)).length, 1, 'the plan billed once');
    await a.client.transactions.refund(paid.transaction.uuid, { amount: '40.00' });
    await paidOrder(a.client, '55.00');
    const later = await newCustomer(a.client);
    assert.notDeepEqual(await a.client.balances.get(), before.balances);

    const restored = await a.client.labSnapshots.restore('first');
    assert.equal(restored.now, before.clock.now);
    assert.ok(restored.removed_rows > restored.restored_rows);
    assert.equal(restored.restored_rows, saved.snapshot.row_count);
    assert.deepEqual(await a.client.sandbox.clock(), before.clock, 'the business clock is back at the save');
    assert.deepEqual(await ordersOf(a.client), before.orders);
    assert.deepEqual(await a.client.customers.get(customer.uuid), before.customer);
    assert.deepEqual(await a.client.customers.tokens(customer.uuid), before.tokens);
    assert.deepEqual((await refusal(a.client.customers.get(later.uuid))).errorCode, '200101');
    assert.deepEqual(await a.client.balances.get(), before.balances);
    assert.deepEqual(await a.client.recurring.getPlan(plan.id), before.plan);
    assert.deepEqual(await ledgerDifferences(a.merchantId), []);

    // The due work came back with the world: the plan's first billing runs again as the clock passes it.
    assert.equal((await planOrders(a.client, reference)).length, 0);
    await a.client.sandbox.advanceClock(2 * DAY);
    const billed = await planOrders(a.client, reference);
    assert.equal(billed.length, 1, 'the plan billed again after the restore');
    assert.equal(billed[0]!.state, 'completed', 'and paid');
    assert.deepEqual(await ledgerDifferences(a.merchantId), []);

    // Another merchant's orders, deliveries, jobs and clock: as they were.
    assert.deepEqual(await worldFingerprint(server.platform.database, b.merchantId), bBefore);
    assert.deepEqual(await b.client.sandbox.clock(), bClock);
    assert.deepEqual(await ledgerDifferences(b.merchantId), []);
  });

  test('names: per merchant, an existing one refused unless forced, unknown ones 404, bad ones 400', async () => {
    const merchant = await server.newMerchant({ name: 'Names' });
    const client = merchant.client;
    await client.labSnapshots.save('v1.0_base-line');
    const taken = await refusal(client.labSnapshots.save('v1.0_base-line'));
    assert.deepEqual([taken.status, taken.errorCode], [409, '900502']);
    await paidOrder(client, '12.00');
    const forced = await client.labSnapshots.save('v1.0_base-line', { force: true });
    assert.equal(forced.replaced, true);
    assert.equal(forced.snapshot.name, 'v1.0_base-line');
    assert.deepEqual(
      (await client.labSnapshots.list()).map((s) => s.name),
      ['v1.0_base-line'],
    );
    const orders = await ordersOf(client);
    assert.equal(orders.length, 1);
    await paidOrder(client, '13.00');
    await client.labSnapshots.restore('v1.0_base-line');
    assert.deepEqual(await ordersOf(client), orders, 'the forced save replaced the first');

    for (const name of ['', 'a'.repeat(65), 'with space', 'café', 'semi;colon']) {
      const refused = await refusal(client.labSnapshots.save(name));
      assert.deepEqual([refused.status, refused.errorCode], [400, '100207'], `name ${JSON.stringify(name)}`);
    }
    await client.labSnapshots.save('a'.repeat(64));
    const unknown = await refusal(client.labSnapshots.restore('never-saved'));
    assert.deepEqual([unknown.status, unknown.errorCode], [404, '900501']);
    assert.equal((await refusal(client.labSnapshots.delete('never-saved'))).errorCode, '900501');

    assert.deepEqual(await client.labSnapshots.delete('a'.repeat(64)), { name: 'a'.repeat(64), deleted: true });
    assert.deepEqual(
      (await client.labSnapshots.list()).map((s) => s.name),
      ['v1.0_base-line'],
    );
    assert.equal((await refusal(client.labSnapshots.restore('a'.repeat(64)))).errorCode, '900501');

    // Another merchant sees none of them, cannot restore or delete them, and saves its own under the same name.
    const other = await server.newMerchant({ name: 'Other names' });
    assert.deepEqual(await other.client.labSnapshots.list(), []);
    assert.equal((await refusal(other.client.labSnapshots.restore('v1.0_base-line'))).errorCode, '900501');
    assert.equal((await refusal(other.client.labSnapshots.delete('v1.0_base-line'))).errorCode, '900501');
    assert.equal((await other.client.labSnapshots.save('v1.0_base-line')).replaced, false);
    assert.deepEqual(await ordersOf(client), orders, "the owner's world is as its restore left it");
    assert.equal((await client.labSnapshots.list()).length, 1);
  });

  test('reset empties the world, sets the clock back to wall time, runs the new-merchant set-up, keeps apps and snapshots', async () => {
    const merchant = await server.newMerchant({ name: 'Reset', timezone: 'Asia/Hong_Kong' });
    const { client } = merchant;
    const db = server.platform.db;
    const customer = await customerWithToken(client);
    await planFromTomorrow(client, customer.uuid, `PLAN-${randomUUID()}`);
    await paidOrder(client, '100.00', 'pre_authorize');
    await client.orders.create(
      { reference_number: `KEYED-${randomUUID()}`, currency: 'HKD', charge_fee: '5.00' },
      { idempotencyKey: `key-${randomUUID()}` },
    );
    await client.sandbox.advanceClock(3 * DAY);
    await client.labSnapshots.save('kept');
    const now = server.clock.now().getTime();
    // The lab's own rows (made by the inbox and fault rules, here written directly): captures and rules go, taps stay.
    await db
      .insertInto('lab_fault_rules')
      .values({
        id: randomUUID(),
        merchant_id: merchant.merchantId,
        target: 'delivery',
        endpoint: 'http://127.0.0.1:9/hook',
        events: null,
        effect: JSON.stringify({ kind: 'status', status: 503 }),
        next_count: 1,
        percent: null,
        seed: null,
        uses: 0,
        expires_at: null,
        created_at: now,
      })
      .execute();
    await db
      .insertInto('lab_taps')
      .values({ merchant_id: merchant.merchantId, url: 'http://127.0.0.1:9/hook', created_at: now })
      .execute();
    const before = await worldFingerprint(server.platform.database, merchant.merchantId);
    for (const table of ['orders', 'customers', 'ledger_entries', 'jobs', 'idempotency_keys', 'lab_fault_rules'])
      assert.ok(before.rows[table]! > 0, `the world has ${table} before the reset`);
    const bBefore = await worldFingerprint(server.platform.database, b.merchantId);

    const reset = await client.labSnapshots.reset();
    assert.equal(
      reset.removed_rows,
      Object.values(before.rows).reduce((x, y) => x + y, 0),
    );
    assert.equal(reset.now, server.clock.now().toISOString());
    const clockNow = await client.sandbox.clock();
    assert.deepEqual([clockNow.now, clockNow.offset_seconds], [server.clock.now().toISOString(), 0]);

    const after = await worldFingerprint(server.platform.database, merchant.merchantId);
    const left = Object.entries(after.rows).filter(([, n]) => n > 0);
    assert.deepEqual(left, [['jobs', 1]], 'nothing left but what a new merchant has');
    const job = await db
      .selectFrom('jobs')
      .selectAll()
      .where('merchant_id', '=', merchant.merchantId)
      .executeTakeFirstOrThrow();
    assert.equal(job.kind, 'orders.settle');
    assert.equal(job.state, 'pending');
    assert.ok(job.due_at > now && job.due_at <= now + DAY * 1000, 'the next settlement, on wall time');
    assert.equal(job.due_wall_at, job.due_at);
    assert.deepEqual(await ordersOf(client), []);
    const fresh = await server.newMerchant({ name: 'Fresh' });
    assert.deepEqual(await client.balances.get(), await fresh.client.balances.get(), "a new merchant's balances");
    assert.deepEqual(await ledgerDifferences(merchant.merchantId), []);
    // Apps and keys (the client still signs), taps and snapshots stay.
    const taps = await db.selectFrom('lab_taps').selectAll().where('merchant_id', '=', merchant.merchantId).execute();
    assert.equal(taps.length, 1);
    assert.deepEqual(
      (await client.labSnapshots.list()).map((s) => s.name),
      ['kept'],
    );
    // The world works as a new merchant's: an order is paid, and the snapshot still restores.
    await paidOrder(client, '9.00');
    await client.labSnapshots.restore('kept');
    const restored = await worldFingerprint(server.platform.database, merchant.merchantId, RESTORE_SETS);
    assert.equal(restored.rows.orders, before.rows.orders);
    assert.equal(restored.rows.lab_fault_rules, 0, 'the rule came after the save');
    assert.deepEqual(await ledgerDifferences(merchant.merchantId), []);
    assert.deepEqual(await worldFingerprint(server.platform.database, b.merchantId), bBefore);
  });
});

describe('deliveries in flight at a restore', () => {
  let server: TestServer;
  let receiver: TestReceiver;
  const TIMEOUT_MS = 1_500;

  before(async () => {
    receiver = await TestReceiver.start();
    server = await startTestServer({ env: { PAYGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const until = async (what: string, check: () => Promise<boolean>) => {
    for (let waited = 0; !(await check()); waited += 50) {
      if (waited > 10_000) throw new Error(`waited 10 s for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  test('are dropped: the sender records nothing for a delivery replaced or removed meanwhile, and the restored one goes out again', async () => {
    const { client, merchantId } = await server.newMerchant({ name: 'In flight' });
    const db = server.platform.db;
    const deliveriesOf = () =>
      db.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', merchantId).execute();
    const attemptsOf = () =>
      db.selectFrom('webhook_attempts').selectAll().where('merchant_id', '=', merchantId).execute();
    await client.labSnapshots.save('empty');
    // The receiver holds the first request of each path until the sender gives up on it; answers the rest at once.
    const held = new Set<string>();
    receiver.answer = (request) => {
      if (held.has(request.target)) return 200;
      held.add(request.target);
      return 'hang';
    };

    // 1. Replaced: saved while being sent (leased), restored while still in flight.
    await client.orders.create({
      reference_number: `HOOK-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '10.00',
      callback_url: `${receiver.url}/replaced`,
    });
    const [first] = await receiver.waitFor({ path: '/replaced' });
    const eventId = first!.headers['x-event-id'];
    const [sending] = await deliveriesOf();
    assert.equal(sending!.state, 'sending');
    await client.labSnapshots.save('in-flight');
    await client.labSnapshots.restore('in-flight');
    // The snapshot's delivery came back unclaimed and due: it is sent again at once, under the same event id.
    const [, again] = await receiver.waitFor({ path: '/replaced' }, 2);
    assert.equal(again!.headers['x-event-id'], eventId);
    await until('the restored delivery delivered', async () => (await deliveriesOf())[0]?.state === 'delivered');
    // The first attempt's process gives up after its timeout: its record finds its claim fenced off.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 500));
    const [delivered] = await deliveriesOf();
    assert.equal(delivered!.state, 'delivered');
    assert.deepEqual(
      (await attemptsOf()).map((attempt) => [attempt.delivery_id, attempt.outcome, attempt.status_code]),
      [[sending!.id, 'delivered', 200]],
      'one attempt recorded: the one made after the restore',
    );

    // 2. Removed: restored to a world without it while it is in flight.
    await client.orders.create({
      reference_number: `HOOK-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '10.00',
      callback_url: `${receiver.url}/removed`,
    });
    await receiver.waitFor({ path: '/removed' });
    await client.labSnapshots.restore('empty');
    assert.deepEqual(await deliveriesOf(), []);
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 500));
    assert.deepEqual(await deliveriesOf(), [], 'the give-up of the dropped delivery wrote nothing');
    assert.deepEqual(await attemptsOf(), []);
    assert.equal(receiver.matching({ path: '/removed' }).length, 1, 'and it is not sent again');
    // The sender goes on: the next delivery of the merchant's goes out.
    await client.orders.create({
      reference_number: `HOOK-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '10.00',
      callback_url: `${receiver.url}/after`,
    });
    await receiver.waitFor({ path: '/after' });
  });
});

describe('in live mode', () => {
  test('every snapshot route and reset is refused with 403 900101', async () => {
    const server = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ab'.repeat(32) } });
    try {
      const { client } = await server.newMerchant();
      for (const call of [
        () => client.labSnapshots.save('x'),
        () => client.labSnapshots.list(),
        () => client.labSnapshots.restore('x'),
        () => client.labSnapshots.delete('x'),
        () => client.labSnapshots.reset(),
      ]) {
        const refused = await refusal(call());
        assert.deepEqual([refused.status, refused.errorCode], [403, '900101']);
      }
    } finally {
      await server.close();
    }
  });
});
