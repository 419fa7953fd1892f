import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BillingConfigInput, Order, PaygateClient } from '@paygate/client';
import { bindingCard, CARDS, moveClockTo } from '../support/fixtures.js';
import { startTestServer, TestClock, type TestServer } from '../support/server.js';

// The billing calendar through the HTTP interface (issue 12, "Done when"): automated and customized billing over
// month ends and leap years, proration in a 2-decimal and a 0-decimal currency, a daylight saving change, and
// cycles in sequence. Each block has its own server and merchant, so that each moves its own business clock to
// its own start instant. The rules are docs/recurring.md and the doc comments of src/recurring/calendar.ts.

interface Merchant {
  client: PaygateClient;
  /** Moves the merchant's business clock forward to `instant` exactly (support/fixtures.ts, moveClockTo). */
  clockTo(instant: string): Promise<void>;
  /** A customer with a frictionless card bound and set as their default token. */
  customer(): Promise<string>;
  /** The plan's generated orders, oldest first. */
  ordersOf(reference: string): Promise<Order[]>;
  /** Lets the engine run what is due now: the plan's first billing runs as a job on the merchant's clock. */
  engineRuns(): Promise<void>;
}

/** A server and merchant in `timezone` for one describe block. */
function merchantIn(timezone: string): Merchant {
  let server: TestServer;
  let client: PaygateClient;
  const clock = new TestClock().freeze(new Date(Math.floor(Date.now() / 1000) * 1000));
  before(async () => {
    server = await startTestServer({ clock });
    client = (await server.newMerchant({ timezone })).client;
  });
  after(() => server.close());
  return {
    get client() {
      return client;
    },
    async clockTo(instant) {
      const target = Date.parse(instant);
      const now = Date.parse((await client.sandbox.clock()).now);
      assert.ok(
        target > now && (target - now) % 1000 === 0,
        `${instant} is a whole number of seconds ahead of ${new Date(now).toISOString()}`,
      );
      await moveClockTo(client, instant);
      assert.equal((await client.sandbox.clock()).now, new Date(target).toISOString());
    },
    async customer() {
      const customer = await client.customers.create({
        reference_number: `C-${randomUUID()}`,
        name: 'Chan Tai Man',
        phone: '91234567',
      });
      // An expiry well past every billing below: the business clock runs years ahead of the real one.
      const token = await client.customers.bindCard(
        customer.uuid,
        bindingCard(CARDS.frictionless, { exp_month: '12', exp_year: '2040' }),
      );
      assert.equal(token.state, 'success');
      await client.customers.update(customer.uuid, {
        name: 'Chan Tai Man',
        phone: '91234567',
        default_payment_token: token.token,
      });
      return customer.uuid;
    },
    async ordersOf(reference) {
      const page = await client.orders.list({
        limit: 100,
        filters: { 'filter[reference_number][_contains]': `${reference}-` },
      });
      return page.orders.sort((a, b) => a.created_at.localeCompare(b.created_at));
    },
    async engineRuns() {
      await client.sandbox.advanceClock(1);
    },
  };
}

/** Each order as [reference, created_at, total, state]. */
const summary = (orders: Order[]) =>
  orders.map((order) => [order.reference_number, order.created_at, order.initial_total, order.correspondence_state]);

/** Each line as [type, label, price, quantity]. */
const lines = (order: Order) =>
  order.line_items!.map((line) => [line.purchasable_type, line.label, line.price, line.quantity]);

/** The lines' sum in minor units of a currency with `exponent` decimals. */
const linesTotal = (order: Order, exponent: number) =>
  order.line_items!.reduce(
    (sum, line) => sum + Math.round(Number(line.price) * 10 ** exponent) * Number(line.quantity),
    0,
  );

/** A one-item plan on a new billing config, started now (the clock must stand at the start instant). */
async function planOf(
  merchant: Merchant,
  options: {
    label: string;
    price: string;
    currency: string;
    config: BillingConfigInput;
    interval_counts?: number;
    quantity?: number;
  },
) {
  const { client } = merchant;
  const customer = await merchant.customer();
  const item = await client.recurring.createItem({
    label: options.label,
    price: options.price,
    currency: options.currency,
  });
  const config = await client.recurring.createBillingConfig(options.config);
  const reference = `${options.label.toUpperCase().replace(/\W+/g, '')}-${randomUUID()}`;
  const plan = await client.recurring.createPlan({
    name: options.label,
    reference_number: reference,
    customer_uuid: customer,
    cycles: [
      {
        recurring_items: [{ id: item.id, ...(options.quantity !== undefined && { quantity: options.quantity }) }],
        recurring_billing_config: config.id,
        ...(options.interval_counts !== undefined && { interval_counts: options.interval_counts }),
      },
    ],
  });
  return { plan, reference };
}

describe('automated monthly, started on 31 January of a leap year (Asia/Hong_Kong)', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('bills 31 Jan, 29 Feb, 31 Mar, 30 Apr 2028 at 10:00 local: the anchor day is kept, never drifts', async () => {
    const { client } = merchant;
    await merchant.clockTo('2028-01-31T02:00:00.000Z'); // 10:00 in Hong Kong (UTC+8)
    const { plan, reference } = await planOf(merchant, {
      label: 'Gold',
      price: '99.90',
      currency: 'HKD',
      interval_counts: 4,
      config: { billing_interval: 'monthly', billing_type: 'automated' },
    });
    assert.equal(plan.cycles[0]!.estimated_start_date, '2028-01-31T02:00:00.000Z');
    await merchant.engineRuns();
    assert.equal((await client.recurring.getPlan(plan.id)).cycles[0]!.next_execute_time, '2028-02-29T02:00:00.000Z');
    await merchant.clockTo('2028-04-30T02:00:00.000Z');
    const orders = await merchant.ordersOf(reference);
    assert.deepEqual(summary(orders), [
      [`${reference}-1`, '2028-01-31T02:00:00.000Z', 99.9, 'paid'],
      [`${reference}-2`, '2028-02-29T02:00:00.000Z', 99.9, 'paid'],
      [`${reference}-3`, '2028-03-31T02:00:00.000Z', 99.9, 'paid'],
      [`${reference}-4`, '2028-04-30T02:00:00.000Z', 99.9, 'paid'],
    ]);
    for (const order of orders) assert.deepEqual(lines(order), [['Listing', 'Gold', 99.9, 1]]);
    // Four full periods: the cycle ends a month after the last billing, 31 May, with no order then.
    const billed = await client.recurring.getPlan(plan.id);
    assert.deepEqual(
      [billed.state, billed.cycles[0]!.state, billed.cycles[0]!.billing_count, billed.cycles[0]!.next_execute_time],
      ['active', 'active', 4, null],
    );
    await merchant.clockTo('2028-05-31T02:00:00.000Z');
    const done = await client.recurring.getPlan(plan.id);
    assert.deepEqual([done.state, done.cycles[0]!.state, done.cycles[0]!.billing_count], ['completed', 'completed', 4]);
    assert.equal((await merchant.ordersOf(reference)).length, 4);
  });
});

describe('automated yearly, started on 29 February (Asia/Hong_Kong)', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('bills 28 February in common years and 29 February again in the next leap year', async () => {
    await merchant.clockTo('2028-02-29T02:00:00.000Z');
    const { reference } = await planOf(merchant, {
      label: 'Annual',
      price: '1200.00',
      currency: 'HKD',
      interval_counts: 5,
      config: { billing_interval: 'yearly', billing_type: 'automated' },
    });
    await merchant.engineRuns();
    // A little over a year, in more than one step of the sandbox clock: only the second billing is due.
    await merchant.clockTo('2029-03-01T00:00:00.000Z');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2028-02-29T02:00:00.000Z', 1200, 'paid'],
      [`${reference}-2`, '2029-02-28T02:00:00.000Z', 1200, 'paid'],
    ]);
    await merchant.clockTo('2032-02-29T02:00:00.000Z');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2028-02-29T02:00:00.000Z', 1200, 'paid'],
      [`${reference}-2`, '2029-02-28T02:00:00.000Z', 1200, 'paid'],
      [`${reference}-3`, '2030-02-28T02:00:00.000Z', 1200, 'paid'],
      [`${reference}-4`, '2031-02-28T02:00:00.000Z', 1200, 'paid'],
      [`${reference}-5`, '2032-02-29T02:00:00.000Z', 1200, 'paid'],
    ]);
  });
});

describe('customized monthly on day 31, prorated, in HKD (2 decimals)', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('the partial period 10-28 Feb is charged at the start (18 of 28 days, half-up), then full months on 28 Feb, 31 Mar, 30 Apr', async () => {
    const { client } = merchant;
    await merchant.clockTo('2027-02-10T01:00:00.000Z'); // 09:00 in Hong Kong
    // 99.47 × 18 / 28 = 63.945: half-up gives 63.95 (half-to-even would give 63.94).
    const { plan, reference } = await planOf(merchant, {
      label: 'Box',
      price: '99.47',
      currency: 'HKD',
      interval_counts: 3,
      config: {
        billing_interval: 'monthly',
        billing_type: 'customized',
        billing_day_of_month: 31,
        billing_proration_enabled: true,
      },
    });
    assert.equal(
      plan.cycles[0]!.next_execute_time,
      '2027-02-10T01:00:00.000Z',
      'the partial period is charged at once',
    );
    await merchant.engineRuns();
    const started = await client.recurring.getPlan(plan.id);
    assert.equal(started.cycles[0]!.next_execute_time, '2027-02-28T01:00:00.000Z');
    assert.equal(started.cycles[0]!.billing_count, 1);
    const [prorated] = await merchant.ordersOf(reference);
    assert.deepEqual(summary([prorated!]), [[`${reference}-1`, '2027-02-10T01:00:00.000Z', 63.95, 'paid']]);
    assert.deepEqual(lines(prorated!), [
      ['Listing', 'Box', 99.47, 1],
      ['Charge', 'Proration: 18 of 28 days', -35.52, 1],
    ]);
    assert.equal(linesTotal(prorated!, 2), 6395, 'the lines add up to the total');

    await merchant.clockTo('2027-04-30T01:00:00.000Z');
    const orders = await merchant.ordersOf(reference);
    assert.deepEqual(summary(orders), [
      [`${reference}-1`, '2027-02-10T01:00:00.000Z', 63.95, 'paid'],
      [`${reference}-2`, '2027-02-28T01:00:00.000Z', 99.47, 'paid'],
      [`${reference}-3`, '2027-03-31T01:00:00.000Z', 99.47, 'paid'],
      [`${reference}-4`, '2027-04-30T01:00:00.000Z', 99.47, 'paid'],
    ]);
    for (const order of orders.slice(1)) assert.deepEqual(lines(order), [['Listing', 'Box', 99.47, 1]]);
    // interval_counts counts the full periods only: three of them after the partial one, and the cycle ends on 31 May.
    const billed = await client.recurring.getPlan(plan.id);
    assert.deepEqual([billed.cycles[0]!.billing_count, billed.cycles[0]!.next_execute_time], [4, null]);
    await merchant.clockTo('2027-05-31T01:00:00.000Z');
    assert.equal((await client.recurring.getPlan(plan.id)).state, 'completed');
    assert.equal((await merchant.ordersOf(reference)).length, 4);
  });
});

describe('customized monthly on day 31, prorated, in JPY (0 decimals)', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('1000 × 18 / 28 = 642.857… is charged as 643, then 1000 a month', async () => {
    await merchant.clockTo('2027-02-10T01:00:00.000Z');
    const { reference } = await planOf(merchant, {
      label: 'Tea',
      price: '1000',
      currency: 'JPY',
      interval_counts: 2,
      config: {
        billing_interval: 'monthly',
        billing_type: 'customized',
        billing_day_of_month: 31,
        billing_proration_enabled: true,
      },
    });
    await merchant.engineRuns();
    const [prorated] = await merchant.ordersOf(reference);
    assert.deepEqual(summary([prorated!]), [[`${reference}-1`, '2027-02-10T01:00:00.000Z', 643, 'paid']]);
    assert.equal(prorated!.currency, 'JPY');
    assert.deepEqual(lines(prorated!), [
      ['Listing', 'Tea', 1000, 1],
      ['Charge', 'Proration: 18 of 28 days', -357, 1],
    ]);
    assert.equal(linesTotal(prorated!, 0), 643);
    await merchant.clockTo('2027-03-31T01:00:00.000Z');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-02-10T01:00:00.000Z', 643, 'paid'],
      [`${reference}-2`, '2027-02-28T01:00:00.000Z', 1000, 'paid'],
      [`${reference}-3`, '2027-03-31T01:00:00.000Z', 1000, 'paid'],
    ]);
  });

  test('with quantity 2 the share is of the period price: 2000 × 29 / 30 = 1933.33… → 1933', async () => {
    const { client } = merchant;
    await merchant.clockTo('2027-04-01T01:00:00.000Z');
    const { plan, reference } = await planOf(merchant, {
      label: 'Matcha',
      price: '1000',
      currency: 'JPY',
      quantity: 2,
      interval_counts: 1,
      config: {
        billing_interval: 'monthly',
        billing_type: 'customized',
        billing_day_of_month: 31,
        billing_proration_enabled: true,
      },
    });
    await merchant.engineRuns();
    // 1 → 30 April is 29 days of the period 31 March → 30 April (30 days): 2000 × 29 / 30 = 1933.33… → 1933.
    const [prorated] = await merchant.ordersOf(reference);
    assert.deepEqual(summary([prorated!]), [[`${reference}-1`, '2027-04-01T01:00:00.000Z', 1933, 'paid']]);
    assert.deepEqual(lines(prorated!), [
      ['Listing', 'Matcha', 1000, 2],
      ['Charge', 'Proration: 29 of 30 days', -67, 1],
    ]);
    assert.equal(linesTotal(prorated!, 0), 1933);
    assert.equal((await client.recurring.getPlan(plan.id)).cycles[0]!.next_execute_time, '2027-04-30T01:00:00.000Z');
  });
});

describe('customized monthly without proration', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('no order at the start: the first is on the billing day, at the start time of day', async () => {
    const { client } = merchant;
    await merchant.clockTo('2027-02-10T01:00:00.000Z');
    const { plan, reference } = await planOf(merchant, {
      label: 'Plain',
      price: '30.00',
      currency: 'HKD',
      interval_counts: 2,
      config: {
        billing_interval: 'monthly',
        billing_type: 'customized',
        billing_day_of_month: 15,
        billing_proration_enabled: false,
      },
    });
    assert.equal(plan.cycles[0]!.next_execute_time, '2027-02-15T01:00:00.000Z');
    await merchant.engineRuns();
    assert.equal((await merchant.ordersOf(reference)).length, 0, 'the partial period is free');
    const waiting = await client.recurring.getPlan(plan.id);
    assert.deepEqual(
      [waiting.state, waiting.cycles[0]!.state, waiting.cycles[0]!.billing_count, waiting.cycles[0]!.next_execute_time],
      ['active', 'active', 0, '2027-02-15T01:00:00.000Z'],
    );
    await merchant.clockTo('2027-02-15T01:00:00.000Z');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-02-15T01:00:00.000Z', 30, 'paid'],
    ]);
    await merchant.clockTo('2027-04-15T01:00:00.000Z');
    // interval_counts 2: 15 Feb and 15 Mar; the cycle ends on 15 April with no order.
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-02-15T01:00:00.000Z', 30, 'paid'],
      [`${reference}-2`, '2027-03-15T01:00:00.000Z', 30, 'paid'],
    ]);
    assert.equal((await client.recurring.getPlan(plan.id)).state, 'completed');
  });

  test('a start on the billing day bills at the start, with no partial period even with proration', async () => {
    await merchant.clockTo('2027-05-31T01:00:00.000Z');
    const { reference } = await planOf(merchant, {
      label: 'OnDay',
      price: '30.00',
      currency: 'HKD',
      interval_counts: 2,
      config: {
        billing_interval: 'monthly',
        billing_type: 'customized',
        billing_day_of_month: 31,
        billing_proration_enabled: true,
      },
    });
    await merchant.engineRuns();
    await merchant.clockTo('2027-06-30T01:00:00.000Z');
    const orders = await merchant.ordersOf(reference);
    assert.deepEqual(summary(orders), [
      [`${reference}-1`, '2027-05-31T01:00:00.000Z', 30, 'paid'],
      [`${reference}-2`, '2027-06-30T01:00:00.000Z', 30, 'paid'],
    ]);
    for (const order of orders) assert.deepEqual(lines(order), [['Listing', 'OnDay', 30, 1]]);
  });
});

describe('customized yearly in February on day 30', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('bills 28 February in common years and 29 February in leap years', async () => {
    await merchant.clockTo('2027-01-10T01:00:00.000Z');
    const { plan, reference } = await planOf(merchant, {
      label: 'Yearly',
      price: '500.00',
      currency: 'HKD',
      interval_counts: 3,
      config: {
        billing_interval: 'yearly',
        billing_type: 'customized',
        billing_month: 2,
        billing_day_of_month: 30,
        billing_proration_enabled: false,
      },
    });
    assert.equal(plan.cycles[0]!.next_execute_time, '2027-02-28T01:00:00.000Z');
    await merchant.engineRuns();
    assert.equal((await merchant.ordersOf(reference)).length, 0);
    await merchant.clockTo('2029-02-28T01:00:00.000Z');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-02-28T01:00:00.000Z', 500, 'paid'],
      [`${reference}-2`, '2028-02-29T01:00:00.000Z', 500, 'paid'],
      [`${reference}-3`, '2029-02-28T01:00:00.000Z', 500, 'paid'],
    ]);
  });

  test('prorated: a start on 10 January 2030 charges 49 of the 365 days from 28 Feb 2029 to 28 Feb 2030', async () => {
    // The clock stands at 28 Feb 2029 09:00 HKT. A start on 10 January 2030: the partial period runs to 28 February
    // 2030 (49 days), a share of 28 Feb 2029 → 28 Feb 2030 (365 days): 365.00 × 49 / 365 = 49.00.
    await merchant.clockTo('2030-01-10T01:00:00.000Z');
    const { reference } = await planOf(merchant, {
      label: 'Prorated yearly',
      price: '365.00',
      currency: 'HKD',
      interval_counts: 1,
      config: {
        billing_interval: 'yearly',
        billing_type: 'customized',
        billing_month: 2,
        billing_day_of_month: 30,
        billing_proration_enabled: true,
      },
    });
    await merchant.engineRuns();
    await merchant.clockTo('2030-02-28T01:00:00.000Z');
    const orders = await merchant.ordersOf(reference);
    assert.deepEqual(summary(orders), [
      [`${reference}-1`, '2030-01-10T01:00:00.000Z', 49, 'paid'],
      [`${reference}-2`, '2030-02-28T01:00:00.000Z', 365, 'paid'],
    ]);
    assert.deepEqual(lines(orders[0]!), [
      ['Listing', 'Prorated yearly', 365, 1],
      ['Charge', 'Proration: 49 of 365 days', -316, 1],
    ]);
  });
});

describe('a merchant in Europe/London across the daylight saving change of 28 March 2027', () => {
  const merchant = merchantIn('Europe/London');

  test('a daily plan bills at 09:00 local every day: 09:00 UTC before the change, 08:00 UTC after', async () => {
    const { client } = merchant;
    await merchant.clockTo('2027-03-26T09:00:00.000Z'); // 09:00 GMT
    const { plan, reference } = await planOf(merchant, {
      label: 'Daily',
      price: '1.50',
      currency: 'GBP',
      interval_counts: 4,
      config: { billing_interval: 'daily', billing_type: 'automated' },
    });
    await merchant.engineRuns();
    await merchant.clockTo('2027-03-29T08:00:00.000Z'); // 09:00 BST
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-03-26T09:00:00.000Z', 1.5, 'paid'],
      [`${reference}-2`, '2027-03-27T09:00:00.000Z', 1.5, 'paid'],
      [`${reference}-3`, '2027-03-28T08:00:00.000Z', 1.5, 'paid'],
      [`${reference}-4`, '2027-03-29T08:00:00.000Z', 1.5, 'paid'],
    ]);
    // Four days: the cycle ends on 30 March at 09:00 BST.
    await merchant.clockTo('2027-03-30T08:00:00.000Z');
    assert.equal((await client.recurring.getPlan(plan.id)).state, 'completed');
  });

  test('a weekly plan started before the autumn change (31 October 2027) bills a week later at the same local time', async () => {
    await merchant.clockTo('2027-10-27T08:00:00.000Z'); // Wednesday 09:00 BST
    const { reference } = await planOf(merchant, {
      label: 'Weekly',
      price: '7.00',
      currency: 'GBP',
      interval_counts: 2,
      config: { billing_interval: 'weekly', billing_type: 'automated' },
    });
    await merchant.engineRuns();
    await merchant.clockTo('2027-11-03T09:00:00.000Z'); // Wednesday 09:00 GMT
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-10-27T08:00:00.000Z', 7, 'paid'],
      [`${reference}-2`, '2027-11-03T09:00:00.000Z', 7, 'paid'],
    ]);
  });
});

describe('several cycles in sequence: a free month, then monthly, then yearly', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('each cycle starts when the one before ends; the paid cycle bills exactly one month after the plan start', async () => {
    const { client } = merchant;
    await merchant.clockTo('2027-03-15T04:30:00.000Z'); // 12:30 in Hong Kong
    const customer = await merchant.customer();
    const trial = await client.recurring.createItem({ label: 'Trial', price: '0', currency: 'HKD' });
    const item = await client.recurring.createItem({ label: 'Silver', price: '50.00', currency: 'HKD' });
    const yearlyItem = await client.recurring.createItem({ label: 'Silver annual', price: '500.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const yearly = await client.recurring.createBillingConfig({
      billing_interval: 'yearly',
      billing_type: 'automated',
    });
    const reference = `SILVER-${randomUUID()}`;
    const created = await client.recurring.createPlan({
      name: 'Silver',
      reference_number: reference,
      customer_uuid: customer,
      cycles: [
        {
          name: 'Free month',
          recurring_items: [{ id: trial.id }],
          recurring_billing_config: monthly.id,
          interval_counts: 1,
        },
        {
          name: 'Monthly',
          recurring_items: [{ id: item.id }],
          recurring_billing_config: monthly.id,
          interval_counts: 2,
          discount_amount: '5.00',
        },
        {
          name: 'Yearly',
          recurring_items: [{ id: yearlyItem.id }],
          recurring_billing_config: yearly.id,
          interval_counts: 1,
        },
      ],
    });
    assert.deepEqual(
      created.cycles.map((cycle) => [cycle.state, cycle.estimated_start_date]),
      [
        ['active', '2027-03-15T04:30:00.000Z'],
        ['pending', null],
        ['pending', null],
      ],
    );
    await merchant.engineRuns();
    const free = await client.recurring.getPlan(created.id);
    assert.deepEqual(
      free.cycles.map((cycle) => [cycle.state, cycle.billing_count]),
      [
        ['active', 1],
        ['pending', 0],
        ['pending', 0],
      ],
    );
    assert.equal((await merchant.ordersOf(reference)).length, 0, 'the free billing makes no order');

    // One month after the start: the free cycle ends, the monthly cycle starts and bills at that instant.
    await merchant.clockTo('2027-04-15T04:30:00.000Z');
    const second = await client.recurring.getPlan(created.id);
    assert.deepEqual(
      second.cycles.map((cycle) => [cycle.state, cycle.billing_count, cycle.estimated_start_date]),
      [
        ['completed', 1, '2027-03-15T04:30:00.000Z'],
        ['active', 1, '2027-04-15T04:30:00.000Z'],
        ['pending', 0, null],
      ],
    );
    assert.equal(second.cycles[1]!.next_execute_time, '2027-05-15T04:30:00.000Z');
    const [firstPaid] = await merchant.ordersOf(reference);
    assert.deepEqual(summary([firstPaid!]), [[`${reference}-1`, '2027-04-15T04:30:00.000Z', 45, 'paid']]);
    assert.deepEqual(lines(firstPaid!), [
      ['Listing', 'Silver', 50, 1],
      ['Charge', 'Discount', -5, 1],
    ]);

    // Two monthly periods, then the yearly cycle from 15 June 2027 to 15 June 2028.
    await merchant.clockTo('2027-06-15T04:30:00.000Z');
    const third = await client.recurring.getPlan(created.id);
    assert.deepEqual(
      third.cycles.map((cycle) => [cycle.state, cycle.billing_count, cycle.estimated_start_date]),
      [
        ['completed', 1, '2027-03-15T04:30:00.000Z'],
        ['completed', 2, '2027-04-15T04:30:00.000Z'],
        ['active', 1, '2027-06-15T04:30:00.000Z'],
      ],
    );
    assert.equal(third.cycles[2]!.next_execute_time, null, 'one period only');
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [
      [`${reference}-1`, '2027-04-15T04:30:00.000Z', 45, 'paid'],
      [`${reference}-2`, '2027-05-15T04:30:00.000Z', 45, 'paid'],
      [`${reference}-3`, '2027-06-15T04:30:00.000Z', 500, 'paid'],
    ]);
    await merchant.clockTo('2028-06-15T04:29:59.000Z');
    assert.equal((await client.recurring.getPlan(created.id)).state, 'active', 'the yearly period is still running');
    await merchant.clockTo('2028-06-15T04:30:00.000Z');
    const done = await client.recurring.getPlan(created.id);
    assert.equal(done.state, 'completed');
    assert.deepEqual(
      done.cycles.map((cycle) => cycle.state),
      ['completed', 'completed', 'completed'],
    );
    assert.equal((await merchant.ordersOf(reference)).length, 3);
  });
});

describe('a plan that starts later (issue 35: its first cycle read active before its start date)', () => {
  const merchant = merchantIn('Asia/Hong_Kong');

  test('its first cycle is pending until its start date, then active and billed at that instant', async () => {
    const { client } = merchant;
    await merchant.clockTo('2029-03-01T02:00:00.000Z');
    const customer = await merchant.customer();
    const item = await client.recurring.createItem({ label: 'Later', price: '20.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const reference = `LATER-${randomUUID()}`;
    const created = await client.recurring.createPlan({
      name: 'Later',
      reference_number: reference,
      customer_uuid: customer,
      cycles: [
        {
          recurring_items: [{ id: item.id }],
          recurring_billing_config: config.id,
          estimated_start_date: '2029-04-10',
          interval_counts: 2,
        },
        { recurring_items: [{ id: item.id }], recurring_billing_config: config.id },
      ],
    });
    // 10 April at midnight in Hong Kong: 40 days ahead.
    const start = '2029-04-09T16:00:00.000Z';
    assert.deepEqual(
      created.cycles.map((cycle) => [cycle.state, cycle.estimated_start_date]),
      [
        ['pending', start],
        ['pending', null],
      ],
    );
    assert.equal(created.cycles[0]!.next_execute_time, start, 'its first billing is its start');
    await merchant.engineRuns();
    const waiting = await client.recurring.getPlan(created.id);
    assert.deepEqual(
      waiting.cycles.map((cycle) => [cycle.state, cycle.billing_count]),
      [
        ['pending', 0],
        ['pending', 0],
      ],
    );
    assert.equal((await merchant.ordersOf(reference)).length, 0);

    await merchant.clockTo(start);
    const started = await client.recurring.getPlan(created.id);
    assert.deepEqual(
      started.cycles.map((cycle) => [cycle.state, cycle.billing_count]),
      [
        ['active', 1],
        ['pending', 0],
      ],
    );
    assert.deepEqual(summary(await merchant.ordersOf(reference)), [[`${reference}-1`, start, 20, 'paid']]);
  });
});
