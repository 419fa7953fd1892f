import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, RecurringPlan } from '@paygate/client';
import { CARDS, bindingCard as card, commonYearAhead, moveClockTo } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, TestClock, type TestServer } from '../support/server.js';

// Changing a plan once made (issue 12): cancel and recover, its settings, more cycles (docs/recurring.md).

const DAY = 86_400;
const HOUR = 3_600;
/** Dates in a year ahead of the clock with a 28-day February (support/fixtures.ts). */
const YEAR = commonYearAhead();

describe('recurring plan changes: cancel, recover, update, add cycles', () => {
  let server: TestServer;
  const clock = new TestClock().freeze(new Date(Math.floor(Date.now() / 1000) * 1000));

  before(async () => {
    server = await startTestServer({ clock });
  });
  after(() => server.close());

  /** A merchant in Hong Kong (settlement at 23:00) whose business clock reads `at`. */
  async function merchantAt(at: string): Promise<PaygateClient> {
    const { client } = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    await moveClockTo(client, at);
    return client;
  }

  async function customerWith(client: PaygateClient, cardNumber: string): Promise<{ uuid: string; token: string }> {
    const customer = await client.customers.create({
      reference_number: `C-${randomUUID()}`,
      name: 'Chan Tai Man',
      phone: '91234567',
    });
    const token = await client.customers.bindCard(customer.uuid, card(cardNumber));
    await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: token.token,
    });
    return { uuid: customer.uuid, token: token.token };
  }

  /** A monthly HKD 100.00 plan that starts now (billed at the engine's next run), optionally with more settings. */
  async function monthlyPlan(
    client: PaygateClient,
    cardNumber: string = CARDS.frictionless,
    extra: Record<string, unknown> = {},
    cycle: Record<string, unknown> = {},
  ): Promise<RecurringPlan> {
    const customer = await customerWith(client, cardNumber);
    const item = await client.recurring.createItem({ label: 'Gold', price: '100.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    return client.recurring.createPlan({
      name: 'Gold',
      reference_number: `GOLD-${randomUUID()}`,
      customer_uuid: customer.uuid,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: config.id, ...cycle }],
      ...extra,
    });
  }

  const engineRuns = (client: PaygateClient) => client.sandbox.advanceClock(1);

  async function ordersOf(client: PaygateClient, plan: RecurringPlan) {
    const page = await client.orders.list({
      limit: 100,
      filters: { 'filter[reference_number][_contains]': `${plan.reference_number}-` },
    });
    return page.orders.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  const refundsOf = (order: { transactions?: Array<{ type: string; amount: number }> }) =>
    (order.transactions ?? [])
      .filter((transaction) => transaction.type === 'Refund')
      .map((transaction) => transaction.amount);

  test('immediate with refund_credit, sale settled: the unused whole days of a 31-day month are refunded at once', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client);
    await engineRuns(client);
    // 10 March 15:00 in Hong Kong: settled (23:00 each day); 11-31 March unused, 21 of 31 days.
    await client.sandbox.advanceClock(9 * DAY + 5 * HOUR);
    const cancelled = await client.recurring.cancelPlan(plan.id, { activate_type: 'immediate', refund_credit: true });
    assert.equal(cancelled.state, 'cancelled');
    assert.deepEqual(
      cancelled.cycles.map((cycle) => [cycle.state, cycle.next_execute_time]),
      [['cancelled', null]],
    );
    assert.equal(cancelled.cancel_at, null);
    await engineRuns(client);
    const [order] = await ordersOf(client, plan);
    // 100.00 × 21 / 31 = 67.7419…
    assert.deepEqual(refundsOf(order!), [67.74]);
    await client.sandbox.advanceClock(40 * DAY);
    assert.equal((await ordersOf(client, plan)).length, 1, 'no billing after the cancellation');
    assert.deepEqual(refundsOf((await ordersOf(client, plan))[0]!), [67.74], 'refunded once');
    assert.equal(
      (await refusal(client.recurring.cancelPlan(plan.id, { activate_type: 'immediate' }))).errorCode,
      '500305',
    );
  });

  test('immediate with refund_credit before the sale is settled: refunded just after the next settlement (30-day month)', async () => {
    const client = await merchantAt(`${YEAR}-04-01T02:00:00Z`);
    const plan = await monthlyPlan(client);
    await engineRuns(client);
    await client.sandbox.advanceClock(2 * HOUR);
    await client.recurring.cancelPlan(plan.id, { activate_type: 'immediate', refund_credit: true });
    await engineRuns(client);
    assert.deepEqual(refundsOf((await ordersOf(client, plan))[0]!), [], 'the sale is not settled before 23:00');
    await client.sandbox.advanceClock(12 * HOUR);
    // 2-30 April unused: 100.00 × 29 / 30 = 96.666…, half-up.
    assert.deepEqual(refundsOf((await ordersOf(client, plan))[0]!), [96.67]);
    await client.sandbox.advanceClock(2 * DAY);
    assert.deepEqual(refundsOf((await ordersOf(client, plan))[0]!), [96.67], 'refunded once');
  });

  test('immediate without refund_credit: an order waiting for its retry is voided, nothing is refunded, the plan bills no more', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client, CARDS.bindsThenDeclines, {
      payment_retry_count: 2,
      payment_retry_day_period: 2,
    });
    await engineRuns(client);
    await client.sandbox.advanceClock(DAY);
    const cancelled = await client.recurring.cancelPlan(plan.id, { activate_type: 'immediate', refund_credit: false });
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.cycles[0]!.next_execute_time, null);
    await client.sandbox.advanceClock(40 * DAY);
    const orders = await ordersOf(client, plan);
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.state, 'voided');
    assert.equal(orders[0]!.transactions!.length, 1, 'no retry after the cancellation');

    assert.equal((await refusal(client.recurring.updatePlan(plan.id, { name: 'Again' }))).errorCode, '500305');
    assert.equal(
      (
        await refusal(
          client.recurring.addCycles(plan.id, [
            {
              recurring_items: [{ id: plan.cycles[0]!.recurring_items[0]!.id }],
              recurring_billing_config: plan.cycles[0]!.recurring_billing_config.id,
            },
          ]),
        )
      ).errorCode,
      '500305',
    );
    assert.equal((await refusal(client.recurring.recoverPlan(plan.id))).errorCode, '500304');
    assert.equal(
      (await refusal(client.recurring.cancelPlan(plan.id, { activate_type: 'next_billing_date' }))).errorCode,
      '500305',
    );
  });

  test('next_billing_date: the plan stops at its next billing time, with no order; recovering after is refused', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client);
    await engineRuns(client);
    await client.sandbox.advanceClock(5 * DAY);
    const pending = await client.recurring.cancelPlan(plan.id, {
      activate_type: 'next_billing_date',
      refund_credit: true,
    });
    assert.equal(pending.state, 'active');
    assert.equal(pending.cancel_at, `${YEAR}-04-01T02:00:00.000Z`);
    assert.equal(pending.cycles[0]!.state, 'active');
    assert.equal(pending.cycles[0]!.next_execute_time, null, 'no billing is coming');
    assert.deepEqual(
      await client.recurring.cancelPlan(plan.id, { activate_type: 'next_billing_date' }),
      pending,
      'asked again: the same',
    );
    await client.sandbox.advanceClock(27 * DAY);
    const stopped = await client.recurring.getPlan(plan.id);
    assert.equal(stopped.state, 'cancelled');
    assert.equal(stopped.cycles[0]!.state, 'cancelled');
    assert.equal(stopped.cancel_at, null);
    const orders = await ordersOf(client, plan);
    assert.equal(orders.length, 1, 'the billing time it stopped at generated no order');
    assert.deepEqual(refundsOf(orders[0]!), [], 'refund_credit is for immediate cancellations only');
    assert.equal((await refusal(client.recurring.recoverPlan(plan.id))).errorCode, '500304');
  });

  test('recover before the next billing time: billing goes on; recovering with nothing pending is refused', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client);
    await engineRuns(client);
    assert.equal((await refusal(client.recurring.recoverPlan(plan.id))).errorCode, '500304', 'nothing pending');
    await client.recurring.cancelPlan(plan.id, { activate_type: 'next_billing_date' });
    await client.sandbox.advanceClock(10 * DAY);
    const recovered = await client.recurring.recoverPlan(plan.id);
    assert.equal(recovered.state, 'active');
    assert.equal(recovered.cancel_at, null);
    assert.equal(recovered.cycles[0]!.next_execute_time, `${YEAR}-04-01T02:00:00.000Z`);
    await client.sandbox.advanceClock(22 * DAY);
    const orders = await ordersOf(client, plan);
    assert.deepEqual(
      orders.map((order) => [order.created_at, order.correspondence_state]),
      [
        [`${YEAR}-03-01T02:00:00.000Z`, 'paid'],
        [`${YEAR}-04-01T02:00:00.000Z`, 'paid'],
      ],
    );
    assert.equal((await client.recurring.getPlan(plan.id)).state, 'active');
  });

  test('PUT plan: changes what is given, keeps the rest, applies to the next order; its refusals', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client, CARDS.frictionless, { note: 'First note', payment_retry_count: 1 });
    const customer = plan.customer_uuid;
    const other = await client.customers.bindCard(customer, card(CARDS.frictionless));
    const changed = await client.recurring.updatePlan(plan.id, {
      name: 'Gold plus',
      note: 'Second note',
      default_payment_token: other.token,
      payment_retry_day_period: 4,
    });
    assert.equal(changed.name, 'Gold plus');
    assert.equal(changed.note, 'Second note');
    assert.equal(changed.default_payment_token, other.token);
    assert.equal(changed.payment_retry_count, 1, 'omitted: kept');
    assert.equal(changed.payment_retry_day_period, 4);
    const cleared = await client.recurring.updatePlan(plan.id, { default_payment_token: null, note: null });
    assert.equal(cleared.default_payment_token, undefined, "cleared: the customer's default token is charged");
    assert.equal(cleared.note, undefined);
    assert.equal(cleared.name, 'Gold plus');
    await client.recurring.updatePlan(plan.id, { note: 'Third note' });
    // The first billing may have run at once, with the note it had then; the next one has the new note.
    await client.sandbox.advanceClock(31 * DAY);
    const order = (await ordersOf(client, plan)).at(-1);
    assert.equal(order!.created_at, `${YEAR}-04-01T02:00:00.000Z`);
    assert.equal(order!.note, 'Third note');
    assert.equal(order!.correspondence_state, 'paid');

    const stranger = await customerWith(client, CARDS.frictionless);
    assert.equal(
      (await refusal(client.recurring.updatePlan(plan.id, { default_payment_token: stranger.token }))).errorCode,
      '200104',
      "another customer's token",
    );
    assert.equal((await refusal(client.recurring.updatePlan(plan.id, { payment_retry_count: 11 }))).status, 400);
    assert.equal((await refusal(client.recurring.updatePlan(plan.id, { name: '' }))).status, 400);
    assert.equal((await client.recurring.getPlan(plan.id)).name, 'Gold plus', 'refusals change nothing');
  });

  test('adding cycles: appended after the last, started when it ends; refused after a cycle that never ends', async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client, CARDS.frictionless, {}, { interval_counts: 1 });
    const configId = plan.cycles[0]!.recurring_billing_config.id;
    const silver = await client.recurring.createItem({ label: 'Silver', price: '50.00', currency: 'HKD' });
    const usd = await client.recurring.createItem({ label: 'Dollar', price: '5.00', currency: 'USD' });
    await engineRuns(client);
    const extended = await client.recurring.addCycles(plan.id, [
      { name: 'Silver', recurring_items: [{ id: silver.id }], recurring_billing_config: configId, interval_counts: 1 },
    ]);
    assert.deepEqual(
      extended.cycles.map((cycle) => [cycle.name ?? null, cycle.state, cycle.amount]),
      [
        [null, 'active', 100],
        ['Silver', 'pending', 50],
      ],
    );
    const open = await client.recurring.addCycles(plan.id, [
      {
        recurring_items: [{ id: silver.id, quantity: 2 }],
        recurring_billing_config: configId,
        discount_amount: '10.00',
      },
    ]);
    assert.equal(open.cycles.length, 3);
    const never = await refusal(
      client.recurring.addCycles(plan.id, [
        { recurring_items: [{ id: silver.id }], recurring_billing_config: configId },
      ]),
    );
    assert.equal(never.errorCode, '100207');
    assert.match(never.message, /never ends/);
    // The cycles sent are read first: an unknown item is 500101 on this plan too.
    assert.equal(
      (
        await refusal(
          client.recurring.addCycles(plan.id, [
            { recurring_items: [{ id: randomUUID() }], recurring_billing_config: configId },
          ]),
        )
      ).errorCode,
      '500101',
    );

    const other = await monthlyPlan(client, CARDS.frictionless, {}, { interval_counts: 2 });
    const cycle = { recurring_items: [{ id: silver.id }], recurring_billing_config: configId };
    assert.match(
      (
        await refusal(
          client.recurring.addCycles(other.id, [
            { recurring_items: [{ id: usd.id }], recurring_billing_config: configId },
          ]),
        )
      ).message,
      /one currency \(HKD\)/,
    );
    assert.equal(
      (
        await refusal(
          client.recurring.addCycles(other.id, [
            { recurring_items: [{ id: randomUUID() }], recurring_billing_config: configId },
          ]),
        )
      ).errorCode,
      '500101',
    );
    assert.match(
      (await refusal(client.recurring.addCycles(other.id, [cycle, cycle]))).message,
      /cycles\[0\] never ends/,
    );
    const dated = await refusal(
      client.recurring.addCycles(other.id, [{ ...cycle, estimated_start_date: `${YEAR}-06-01` } as never]),
    );
    assert.equal(dated.status, 400, 'no estimated_start_date: an added cycle starts when the one before ends');

    await client.sandbox.advanceClock(31 * DAY);
    const later = await client.recurring.getPlan(plan.id);
    assert.deepEqual(
      later.cycles.map((entry) => entry.state),
      ['completed', 'active', 'pending'],
    );
    const orders = await ordersOf(client, plan);
    assert.deepEqual(
      orders.map((order) => order.initial_total),
      [100, 50],
    );
    await client.sandbox.advanceClock(31 * DAY);
    assert.deepEqual(
      (await ordersOf(client, plan)).map((order) => order.initial_total),
      [100, 50, 90],
    );
  });

  test("another merchant's plan is not found by any of the new routes", async () => {
    const client = await merchantAt(`${YEAR}-03-01T02:00:00Z`);
    const plan = await monthlyPlan(client, CARDS.frictionless, {}, { interval_counts: 3 });
    const { client: other } = await server.newMerchant();
    const cycle = {
      recurring_items: [{ id: plan.cycles[0]!.recurring_items[0]!.id }],
      recurring_billing_config: plan.cycles[0]!.recurring_billing_config.id,
    };
    for (const id of [plan.id, randomUUID(), 'not-a-uuid']) {
      assert.equal((await refusal(other.recurring.cancelPlan(id, { activate_type: 'immediate' }))).errorCode, '500301');
      assert.equal((await refusal(other.recurring.recoverPlan(id))).errorCode, '500301');
      assert.equal((await refusal(other.recurring.updatePlan(id, { name: 'Mine' }))).errorCode, '500301');
      assert.equal((await refusal(other.recurring.addCycles(id, [cycle]))).errorCode, '500301');
    }
    const unchanged = await client.recurring.getPlan(plan.id);
    assert.equal(unchanged.state, 'active');
    assert.equal(unchanged.name, 'Gold');
    assert.equal(unchanged.cycles.length, 1);
  });
});
