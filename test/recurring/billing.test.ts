import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, RecurringPlan, RecurringPlanInput } from '@paygate/client';
import { CARDS, bindingCard as card, commonYearAhead, moveClockTo } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, TestClock, type TestMerchant, type TestServer } from '../support/server.js';

// Plans billed by the engine on the merchant's business clock (issue 12, points 2 and 3): docs/recurring.md.

const DAY = 86_400;
/** Dates in a year ahead of the clock with a 28-day February (support/fixtures.ts). */
const YEAR = commonYearAhead();

describe('recurring plans, billed on the business clock', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  const clock = new TestClock().freeze(new Date(Math.floor(Date.now() / 1000) * 1000));

  before(async () => {
    server = await startTestServer({ clock });
    merchant = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    client = merchant.client;
    // The merchant's business clock to 31 January 10:00 in Hong Kong: a start on the 31st, to see the anchor day kept.
    await moveClockTo(client, `${YEAR}-01-31T02:00:00Z`);
  });
  after(() => server.close());

  async function customerWith(cardNumber: string): Promise<{ uuid: string; token: string }> {
    const customer = await client.customers.create({
      reference_number: `C-${randomUUID()}`,
      name: 'Chan Tai Man',
      phone: '91234567',
    });
    const token = await client.customers.bindCard(customer.uuid, card(cardNumber));
    assert.equal(token.state, 'success');
    await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: token.token,
    });
    return { uuid: customer.uuid, token: token.token };
  }

  /** An item at `price`, a monthly automated config, and a start a day ahead on the business clock, to the second. */
  async function monthlyFromTomorrow(label: string, price: string) {
    const item = await client.recurring.createItem({ label, price, currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const start = new Date(Date.parse((await client.sandbox.clock()).now) + DAY * 1000)
      .toISOString()
      .replace(/\.\d{3}Z$/, '.000Z');
    return { item, config, start };
  }

  /** Lets the engine run what is due now: the plan's first billing runs as a job on the merchant's clock. */
  const engineRuns = () => client.sandbox.advanceClock(1);

  async function ordersOf(reference: string) {
    const page = await client.orders.list({
      limit: 100,
      filters: { 'filter[reference_number][_contains]': `${reference}-` },
    });
    return page.orders.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  test('a monthly plan started on the 31st bills 28 February, 31 March, 30 April: each an order paid by the token', async () => {
    const customer = await customerWith(CARDS.frictionless);
    const item = await client.recurring.createItem({ label: 'Gold membership', price: '99.90', currency: 'HKD' });
    const extra = await client.recurring.createItem({ label: 'Locker', price: '20.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `GOLD-${randomUUID()}`;
    const input: RecurringPlanInput = {
      name: 'Gold',
      reference_number: reference,
      customer_uuid: customer.uuid,
      note: 'Thank you',
      cycles: [
        {
          recurring_items: [{ id: item.id }, { id: extra.id, quantity: 2 }],
          recurring_billing_config: config.id,
          discount_amount: '9.90',
          interval_counts: 4,
        },
      ],
    };
    const created = await client.recurring.createPlan(input);
    assert.equal(
      created.cycles[0]!.next_execute_time,
      created.cycles[0]!.estimated_start_date,
      'the first billing is due at once',
    );
    await engineRuns();
    const plan = await client.recurring.getPlan(created.id);
    assert.equal(plan.state, 'active');
    assert.equal(plan.cycles[0]!.amount, 130);
    assert.equal(plan.cycles[0]!.state, 'active');
    // Billed at once: the cycle starts now.
    assert.equal(plan.cycles[0]!.billing_count, 1);
    assert.equal(plan.cycles[0]!.next_execute_time, `${YEAR}-02-28T02:00:00.000Z`);
    assert.deepEqual(await client.recurring.createPlan(input), plan, 'the same reference and content is the same plan');
    const reordered = Object.fromEntries(Object.entries(input).reverse()) as typeof input;
    assert.deepEqual(
      await client.recurring.createPlan(reordered),
      plan,
      'the same content with its fields in another order too',
    );
    const changed = await refusal(client.recurring.createPlan({ ...input, name: 'Other' }));
    assert.equal(changed.errorCode, '500302');

    let orders = await ordersOf(reference);
    assert.equal(orders.length, 1);
    const first = orders[0]!;
    assert.equal(first.reference_number, `${reference}-1`);
    assert.equal(first.correspondence_state, 'paid');
    assert.equal(first.initial_total, 130);
    assert.equal(first.note, 'Thank you');
    assert.deepEqual(
      first.line_items!.map((line) => [line.purchasable_type, line.label, line.price, line.quantity]),
      [
        ['Listing', 'Gold membership', 99.9, 1],
        ['Listing', 'Locker', 20, 2],
        ['Charge', 'Discount', -9.9, 1],
      ],
    );

    // Three months on the clock: three more billings, each at its own time.
    await client.sandbox.advanceClock(90 * DAY);
    orders = await ordersOf(reference);
    assert.deepEqual(
      orders.map((order) => [order.reference_number, order.created_at, order.correspondence_state]),
      [
        [`${reference}-1`, `${YEAR}-01-31T02:00:00.000Z`, 'paid'],
        [`${reference}-2`, `${YEAR}-02-28T02:00:00.000Z`, 'paid'],
        [`${reference}-3`, `${YEAR}-03-31T02:00:00.000Z`, 'paid'],
        [`${reference}-4`, `${YEAR}-04-30T02:00:00.000Z`, 'paid'],
      ],
    );
    const done = await client.recurring.getPlan(plan.id);
    assert.equal(done.cycles[0]!.billing_count, 4);
    // Four periods: the cycle ends on 31 May, and with it the plan.
    assert.equal(done.state, 'active');
    await client.sandbox.advanceClock(31 * DAY);
    const completed = await client.recurring.getPlan(plan.id);
    assert.equal(completed.state, 'completed');
    assert.equal(completed.cycles[0]!.state, 'completed');
    assert.equal(completed.cycles[0]!.next_execute_time, null);
    assert.equal((await ordersOf(reference)).length, 4, 'no order after the last period');
  });

  test('a free cycle then a paid one: the free month makes no order, the paid cycle starts when it ends', async () => {
    const customer = await customerWith(CARDS.frictionless);
    const trial = await client.recurring.createItem({ label: 'Trial', price: '0', currency: 'HKD' });
    const item = await client.recurring.createItem({ label: 'Silver', price: '50.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `SILVER-${randomUUID()}`;
    const plan = await client.recurring.createPlan({
      name: 'Silver',
      reference_number: reference,
      customer_uuid: customer.uuid,
      cycles: [
        {
          name: 'Free month',
          recurring_items: [{ id: trial.id }],
          recurring_billing_config: monthly.id,
          interval_counts: 1,
        },
        { name: 'Paid', recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id },
      ],
    });
    await engineRuns();
    assert.deepEqual(
      (await client.recurring.getPlan(plan.id)).cycles.map((cycle) => [cycle.state, cycle.billing_count]),
      [
        ['active', 1],
        ['pending', 0],
      ],
    );
    assert.equal((await ordersOf(reference)).length, 0);
    const startedAt = Date.parse(plan.cycles[0]!.estimated_start_date!);
    await client.sandbox.advanceClock(31 * DAY);
    const later = await client.recurring.getPlan(plan.id);
    assert.deepEqual(
      later.cycles.map((cycle) => cycle.state),
      ['completed', 'active'],
    );
    const orders = await ordersOf(reference);
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.reference_number, `${reference}-1`);
    assert.equal(orders[0]!.initial_total, 50);
    // The paid cycle starts one month after the free one did.
    const local = new Date(startedAt + 8 * 3600_000);
    const expected = new Date(
      Date.UTC(
        local.getUTCFullYear(),
        local.getUTCMonth() + 1,
        local.getUTCDate(),
        local.getUTCHours(),
        local.getUTCMinutes(),
        local.getUTCSeconds(),
      ) -
        8 * 3600_000,
    );
    assert.equal(later.cycles[1]!.estimated_start_date, expected.toISOString());
  });

  test('a declining token is retried every N days, then the cycle is uncollectible and the plan stops', async () => {
    const customer = await customerWith(CARDS.bindsThenDeclines);
    const item = await client.recurring.createItem({ label: 'Bronze', price: '10.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `BRONZE-${randomUUID()}`;
    const plan = await client.recurring.createPlan({
      name: 'Bronze',
      reference_number: reference,
      customer_uuid: customer.uuid,
      payment_retry_count: 2,
      payment_retry_day_period: 3,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
    });
    await engineRuns();
    const billedAt = Date.parse(plan.cycles[0]!.estimated_start_date!);
    assert.equal(
      (await client.recurring.getPlan(plan.id)).cycles[0]!.next_execute_time,
      new Date(billedAt + 3 * DAY * 1000).toISOString(),
      'the retry is next',
    );
    await client.sandbox.advanceClock(3 * DAY);
    assert.equal(
      (await client.recurring.getPlan(plan.id)).cycles[0]!.next_execute_time,
      new Date(billedAt + 6 * DAY * 1000).toISOString(),
    );
    await client.sandbox.advanceClock(3 * DAY);
    const stopped = await client.recurring.getPlan(plan.id);
    assert.equal(stopped.state, 'uncollectible');
    assert.equal(stopped.cycles[0]!.state, 'uncollectible');
    assert.equal(stopped.cycles[0]!.next_execute_time, null);
    const orders = await ordersOf(reference);
    assert.equal(orders.length, 1, 'one order, tried three times');
    assert.equal(orders[0]!.correspondence_state, 'unpaid');
    assert.equal(orders[0]!.transactions!.length, 3);
    assert.ok(orders[0]!.transactions!.every((transaction) => transaction.success === false));
    await client.sandbox.advanceClock(40 * DAY);
    assert.equal((await ordersOf(reference)).length, 1, 'the plan bills no more');
  });

  test('a token fixed between retries pays the order at the next retry, and billing goes on', async () => {
    const customer = await customerWith(CARDS.bindsThenDeclines);
    const item = await client.recurring.createItem({ label: 'Bronze', price: '10.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `FIXED-${randomUUID()}`;
    const plan = await client.recurring.createPlan({
      name: 'Fixed',
      reference_number: reference,
      customer_uuid: customer.uuid,
      payment_retry_count: 2,
      payment_retry_day_period: 2,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
    });
    await engineRuns();
    const good = await client.customers.bindCard(customer.uuid, card(CARDS.frictionless));
    await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: good.token,
    });
    await client.sandbox.advanceClock(2 * DAY);
    const orders = await ordersOf(reference);
    assert.equal(orders[0]!.correspondence_state, 'paid');
    assert.deepEqual(
      orders[0]!.transactions!.map((transaction) => transaction.success),
      [false, true],
    );
    const after = await client.recurring.getPlan(plan.id);
    assert.equal(after.state, 'active');
    assert.equal(after.cycles[0]!.billing_count, 1);
    await client.sandbox.advanceClock(30 * DAY);
    assert.equal((await ordersOf(reference)).length, 2);
  });

  test('a plan for a customer without a token waits with a verify_url, and starts billing when a card binds', async () => {
    const customer = await client.customers.create({
      reference_number: `C-${randomUUID()}`,
      name: 'No card yet',
      phone: '1',
    });
    const item = await client.recurring.createItem({ label: 'Gold', price: '30.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `WAIT-${randomUUID()}`;
    const plan = await client.recurring.createPlan({
      name: 'Waiting',
      reference_number: reference,
      customer_uuid: customer.uuid,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
    });
    assert.equal(plan.state, 'awaiting_token');
    assert.match(plan.verify_url ?? '', /\/wallet\/[\w-]+$/);
    assert.deepEqual(
      [plan.cycles[0]!.state, plan.cycles[0]!.next_execute_time, plan.cycles[0]!.estimated_start_date],
      ['pending', null, null],
    );
    const page = await fetch(plan.verify_url!);
    assert.equal(page.status, 200, 'the hosted binding page opens');
    await client.sandbox.advanceClock(DAY);
    assert.equal((await ordersOf(reference)).length, 0, 'nothing is billed while the plan waits');

    const token = await client.customers.bindCard(customer.uuid, card(CARDS.frictionless));
    const started = await client.recurring.getPlan(plan.id);
    assert.equal(started.state, 'active');
    assert.equal(started.verify_url, null);
    assert.equal(started.default_payment_token, token.token, 'the card that bound is the one the plan charges');
    assert.equal(started.cycles[0]!.state, 'active');
    await engineRuns();
    const orders = await ordersOf(reference);
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.correspondence_state, 'paid');
  });

  test('a waiting plan starts when PUT gives it a token, and can be cancelled while it waits', async () => {
    const item = await client.recurring.createItem({ label: 'Gold', price: '30.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const waiting = async () => {
      const customer = await client.customers.create({
        reference_number: `C-${randomUUID()}`,
        name: 'No card yet',
        phone: '1',
      });
      const reference = `WAIT-${randomUUID()}`;
      const plan = await client.recurring.createPlan({
        name: 'Waiting',
        reference_number: reference,
        customer_uuid: customer.uuid,
        cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
      });
      assert.equal(plan.state, 'awaiting_token');
      return { customer, plan, reference };
    };
    // The customer's card was bound before the plan, but is not its default: the plan waits until PUT names it.
    const customer = await client.customers.create({
      reference_number: `C-${randomUUID()}`,
      name: 'Card, no default',
      phone: '1',
    });
    const token = await client.customers.bindCard(customer.uuid, card(CARDS.frictionless));
    const reference = `PUT-${randomUUID()}`;
    const plan = await client.recurring.createPlan({
      name: 'Named later',
      reference_number: reference,
      customer_uuid: customer.uuid,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
    });
    assert.equal(plan.state, 'awaiting_token');
    const named = await client.recurring.updatePlan(plan.id, { default_payment_token: token.token });
    assert.deepEqual(
      [named.state, named.verify_url, named.default_payment_token, named.cycles[0]!.state],
      ['active', null, token.token, 'active'],
    );
    await engineRuns();
    assert.deepEqual(
      (await ordersOf(reference)).map((order) => order.correspondence_state),
      ['paid'],
    );

    const cancelled = await waiting();
    const stopped = await client.recurring.cancelPlan(cancelled.plan.id, {
      activate_type: 'next_billing_date',
      refund_credit: false,
    });
    assert.equal(stopped.state, 'cancelled', 'a plan waiting for its token has no billing time to wait for');
    assert.deepEqual(
      stopped.cycles.map((cycle) => cycle.state),
      ['cancelled'],
    );
    await client.customers.bindCard(cancelled.customer.uuid, card(CARDS.frictionless));
    await engineRuns();
    assert.equal(
      (await client.recurring.getPlan(cancelled.plan.id)).state,
      'cancelled',
      'a card bound later starts nothing',
    );
    assert.equal((await ordersOf(cancelled.reference)).length, 0);
  });

  test("a charge whose answer was never recorded is taken as made, though the customer's default card changed since", async () => {
    const { item, config, start } = await monthlyFromTomorrow('Resumed', '20.00');
    const reference = `RESUMED-${randomUUID()}`;
    const customer = await customerWith(CARDS.frictionless);
    const plan = await client.recurring.createPlan({
      name: reference,
      reference_number: reference,
      customer_uuid: customer.uuid,
      cycles: [
        { recurring_items: [{ id: item.id }], recurring_billing_config: config.id, estimated_start_date: start },
      ],
    });
    await client.sandbox.advanceClock(DAY + 60);
    const db = server.platform.db;
    const [first] = await db.selectFrom('recurring_billings').selectAll().where('plan_id', '=', plan.id).execute();
    assert.equal(first?.state, 'paid');
    // What a process killed between the acquirer's answer and its record leaves: the payment made, the billing still
    // charging, the cycle's count and the plan's next due time as before the step.
    await db.updateTable('recurring_billings').set({ state: 'charging' }).where('id', '=', first.id).execute();
    await db.updateTable('recurring_cycles').set({ billing_count: 0 }).where('plan_id', '=', plan.id).execute();
    const now = Date.parse((await client.sandbox.clock()).now);
    await db.updateTable('recurring_plans').set({ next_due_at: now }).where('id', '=', plan.id).execute();
    // Meanwhile the customer makes another card the default: the billing's uuid names a payment of the first one.
    const other = await client.customers.bindCard(customer.uuid, card(CARDS.frictionless));
    await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: other.token,
    });
    // The engine's next run (the plan's next billing, a month on) finds the charging billing first.
    await client.sandbox.advanceClock(31 * DAY);
    const billings = await db
      .selectFrom('recurring_billings')
      .select(['sequence', 'state', 'attempt'])
      .where('plan_id', '=', plan.id)
      .orderBy('sequence')
      .execute();
    assert.deepEqual(
      billings.map((billing) => [billing.sequence, billing.state, billing.attempt]),
      [
        [1, 'paid', 1],
        [2, 'paid', 1],
      ],
      'the first billing is recorded paid by its payment, not failed as a reused payment.uuid',
    );
    const orders = await ordersOf(reference);
    assert.deepEqual(
      orders.map((order) => [order.reference_number, order.correspondence_state, order.paid_total]),
      [
        [`${reference}-1`, 'paid', '20.00'],
        [`${reference}-2`, 'paid', '20.00'],
      ],
    );
    const firstOrder = await db
      .selectFrom('orders')
      .select('id')
      .where('number', '=', first.order_number!)
      .executeTakeFirstOrThrow();
    const payments = await db.selectFrom('transactions').select('id').where('order_id', '=', firstOrder.id).execute();
    assert.equal(payments.length, 1, 'the first billing was charged once');
    assert.equal((await client.recurring.getPlan(plan.id)).cycles[0]!.billing_count, 2);
  });

  test('plans due together bill together; one that cannot be billed is left behind alone and its job fails', async () => {
    const { item, config, start } = await monthlyFromTomorrow('Together', '30.00');
    const references = ['A', 'B', 'C'].map((name) => `TOGETHER-${name}-${randomUUID()}`);
    const plans: RecurringPlan[] = [];
    for (const reference of references) {
      const customer = await customerWith(CARDS.frictionless);
      plans.push(
        await client.recurring.createPlan({
          name: reference,
          reference_number: reference,
          customer_uuid: customer.uuid,
          cycles: [
            { recurring_items: [{ id: item.id }], recurring_billing_config: config.id, estimated_start_date: start },
          ],
        }),
      );
    }
    // The merchant made an order itself under the reference plan B's first billing would take: that billing cannot be
    // made.
    const taken = `${references[1]}-1`;
    await client.orders.create({ reference_number: taken, currency: 'HKD', charge_fee: '1.00' });
    await client.sandbox.advanceClock(DAY + 60);
    for (const index of [0, 2]) {
      const orders = await ordersOf(references[index]!);
      assert.deepEqual(
        orders.map((order) => [order.reference_number, order.correspondence_state, order.paid_total]),
        [[`${references[index]}-1`, 'paid', '30.00']],
      );
      assert.equal((await client.recurring.getPlan(plans[index]!.id)).cycles[0]!.billing_count, 1);
    }
    const stuck = await client.recurring.getPlan(plans[1]!.id);
    assert.deepEqual(
      [stuck.state, stuck.cycles[0]!.billing_count, stuck.cycles[0]!.next_execute_time],
      ['active', 0, start],
      'still due, nothing written',
    );
    const billings = await server.platform.db
      .selectFrom('recurring_billings')
      .select('id')
      .where('plan_id', '=', plans[1]!.id)
      .execute();
    assert.deepEqual(billings, []);
    const mine = (await client.orders.list({ limit: 10, filters: { 'filter[reference_number][_eq]': taken } })).orders;
    assert.deepEqual(
      mine.map((order) => [order.initial_total, order.correspondence_state]),
      [[1, 'unpaid']],
      "the merchant's order is untouched",
    );
    const jobs = await server.platform.db
      .selectFrom('jobs')
      .select(['state', 'last_error'])
      .where('kind', '=', 'recurring.bill')
      .where('merchant_id', '=', merchant.merchantId)
      .where('last_error', 'is not', null)
      .execute();
    assert.ok(
      jobs.some((job) => job.last_error!.includes(`1 plan(s) could not be moved forward, first ${plans[1]!.id}`)),
      JSON.stringify(jobs),
    );
  });

  test("plan input rules, and another merchant's plans, items and configs are not found", async () => {
    const customer = await customerWith(CARDS.frictionless);
    const item = await client.recurring.createItem({ label: 'A', price: '1.00', currency: 'HKD' });
    const usd = await client.recurring.createItem({ label: 'B', price: '1.00', currency: 'USD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const base = {
      name: 'P',
      customer_uuid: customer.uuid,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: config.id }],
    };
    const refused = async (plan: Record<string, unknown>) =>
      refusal(
        client.recurring.createPlan({ reference_number: `R-${randomUUID()}`, ...base, ...plan } as RecurringPlanInput),
      );
    assert.match(
      (
        await refused({
          cycles: [{ recurring_items: [{ id: item.id }, { id: usd.id }], recurring_billing_config: config.id }],
        })
      ).message,
      /one currency/,
    );
    assert.equal(
      (await refused({ cycles: [{ recurring_items: [{ id: randomUUID() }], recurring_billing_config: config.id }] }))
        .errorCode,
      '500101',
    );
    assert.equal(
      (await refused({ cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: randomUUID() }] }))
        .errorCode,
      '500201',
    );
    assert.match(
      (
        await refused({
          cycles: [
            { recurring_items: [{ id: item.id }], recurring_billing_config: config.id, discount_amount: '1.01' },
          ],
        })
      ).message,
      /discount_amount is more than/,
    );
    assert.match(
      (
        await refused({
          cycles: [
            {
              recurring_items: [{ id: item.id }],
              recurring_billing_config: config.id,
              interval_counts: 2,
              estimated_end_date: '2030-01-01',
            },
          ],
        })
      ).message,
      /not both/,
    );
    assert.match((await refused({ cycles: [base.cycles[0], base.cycles[0]] })).message, /never ends/);
    assert.match(
      (await refused({ cycles: [{ ...base.cycles[0], estimated_start_date: '2027-02-30' }] })).message,
      /estimated_start_date must be a date/,
    );
    const deleted = await client.recurring.createItem({ label: 'Gone', price: '1.00', currency: 'HKD' });
    await client.recurring.deleteItem(deleted.id);
    assert.equal(
      (await refused({ cycles: [{ recurring_items: [{ id: deleted.id }], recurring_billing_config: config.id }] }))
        .errorCode,
      '500102',
    );

    const plan = await client.recurring.createPlan({ reference_number: `R-${randomUUID()}`, ...base });
    const other = await server.newMerchant();
    assert.equal((await refusal(other.client.recurring.getPlan(plan.id))).errorCode, '500301');
    assert.equal((await refusal(other.client.recurring.getPlan(randomUUID()))).errorCode, '500301');
    assert.equal((await other.client.recurring.listPlans()).total, 0);
    const otherCustomer = await other.client.customers.create({
      reference_number: `C-${randomUUID()}`,
      name: 'X',
      phone: '1',
    });
    const token = await other.client.customers.bindCard(otherCustomer.uuid, card(CARDS.frictionless));
    const borrowed = await refusal(
      other.client.recurring.createPlan({
        reference_number: `R-${randomUUID()}`,
        name: 'X',
        customer_uuid: otherCustomer.uuid,
        default_payment_token: token.token,
        cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: config.id }],
      }),
    );
    assert.equal(borrowed.errorCode, '500201', "another merchant's billing config (and item) is not found");
    const listed = await client.recurring.listPlans({ filters: { 'filter[id][_eq]': plan.id } });
    assert.equal(listed.total, 1);
    assert.equal(listed.plans[0]!.id, plan.id);
  });
});
