import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, RecurringPlanOrder } from '@paygate/client';
import { bindingCard, CARDS } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, TestClock, type TestMerchant, type TestServer } from '../support/server.js';

// Operation 3 (interface.md, "Recurring plan order record"): the orders plans generated (issue 12, point 5).

const DAY = 86_400;
const LIST = '/svc/payment/api/v1/openapi/recurring_payments/orders/list';

describe('operation 3: the orders recurring plans generated', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  const clock = new TestClock().freeze(new Date(Math.floor(Date.now() / 1000) * 1000));
  let gold: { planId: string; customer: { uuid: string; reference: string; token: string } };
  let bronze: { planId: string; customer: { uuid: string; reference: string; token: string } };

  async function subscriber(cardNumber: string) {
    const reference = `C-${randomUUID()}`;
    const customer = await client.customers.create({
      reference_number: reference,
      name: 'Chan Tai Man',
      phone: '91234567',
      email: 'chan@example.com',
      default_payment_method: 'Credit Card',
    });
    const token = await client.customers.bindCard(customer.uuid, bindingCard(cardNumber));
    await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: token.token,
    });
    return { uuid: customer.uuid, reference, token: token.token };
  }

  before(async () => {
    server = await startTestServer({ clock });
    merchant = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    client = merchant.client;
    const item = await client.recurring.createItem({
      label: 'Gold membership',
      price: '99.90',
      currency: 'HKD',
      reference_id: 'GOLD',
    });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
      description: 'Monthly',
    });
    const paying = await subscriber(CARDS.frictionless);
    const plan = await client.recurring.createPlan({
      name: 'Gold',
      reference_number: `GOLD-${randomUUID()}`,
      customer_uuid: paying.uuid,
      note: 'Members only',
      redirect_url: 'https://shop.example/account',
      cycles: [
        {
          recurring_items: [{ id: item.id, quantity: 2 }],
          recurring_billing_config: monthly.id,
          discount_amount: '19.80',
        },
      ],
    });
    gold = { planId: plan.id, customer: paying };
    const declining = await subscriber(CARDS.bindsThenDeclines);
    const failing = await client.recurring.createPlan({
      name: 'Bronze',
      reference_number: `BRONZE-${randomUUID()}`,
      customer_uuid: declining.uuid,
      payment_retry_count: 10,
      payment_retry_day_period: 5,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: monthly.id }],
    });
    bronze = { planId: failing.id, customer: declining };
    // Both bill at once; a month later Gold bills again, and Bronze is still being retried.
    await client.sandbox.advanceClock(1);
    await client.sandbox.advanceClock(32 * DAY);
  });
  after(() => server.close());

  test('each record has every field interface.md lists, in its type; data is the array itself', async () => {
    const reply = await signedRaw(server.url, merchant, {
      method: 'GET',
      target: `${LIST}?filter[plan.id][_eq]=${gold.planId}`,
    });
    assert.equal(reply.status, 200);
    assert.ok(Array.isArray(reply.json.data));
    const records = reply.json.data as RecurringPlanOrder[];
    assert.equal(records.length, 2);
    const [latest, first] = records as [RecurringPlanOrder, RecurringPlanOrder];
    assert.deepEqual(Object.keys(latest).sort(), ['customer', 'order', 'recurring_cycle']);
    assert.deepEqual(Object.keys(latest.customer).sort(), [
      'default_payment_method',
      'default_payment_token',
      'email',
      'name',
      'phone',
      'reference_number',
      'uuid',
    ]);
    assert.deepEqual(
      { ...latest.customer, default_payment_token: undefined },
      {
        name: 'Chan Tai Man',
        email: 'chan@example.com',
        phone: '91234567',
        reference_number: gold.customer.reference,
        default_payment_method: 'Credit Card',
        uuid: gold.customer.uuid,
        default_payment_token: undefined,
      },
    );
    const token = latest.customer.default_payment_token!;
    assert.equal(token.token, gold.customer.token);
    assert.equal(token.state, 'success');
    assert.equal(token.default, true);
    assert.equal(typeof token.verify_uuid, 'string', 'verify_uuid is required in plan order listings');
    assert.ok('verify_url' in token, 'verify_url is returned in plan order listings');
    assert.deepEqual(Object.keys(latest.recurring_cycle).sort(), [
      'discount_amount',
      'recurring_billing_config',
      'recurring_items',
    ]);
    assert.equal(latest.recurring_cycle.discount_amount, 19.8);
    assert.equal(latest.recurring_cycle.recurring_billing_config.billing_interval, 'monthly');
    assert.equal(latest.recurring_cycle.recurring_billing_config.deleted_at, null);
    assert.deepEqual(
      latest.recurring_cycle.recurring_items.map((item) => [item.label, item.price, item.currency, item.quantity]),
      [['Gold membership', 99.9, 'HKD', 2]],
    );
    assert.deepEqual(Object.keys(latest.order).sort(), [
      'amount',
      'auth_code',
      'correspondence_state',
      'currency',
      'default_collection_method',
      'default_payment_token',
      'note',
      'order_number',
      'paid_total',
      'redirect_url',
      'reference_number',
      'state',
      'timeout',
    ]);
    assert.equal(typeof latest.order.amount, 'number');
    assert.equal(typeof latest.order.paid_total, 'number');
    assert.deepEqual(
      { ...latest.order, order_number: undefined, auth_code: undefined, reference_number: undefined },
      {
        amount: 180,
        paid_total: 180,
        currency: 'HKD',
        order_number: undefined,
        reference_number: undefined,
        state: 'completed',
        correspondence_state: 'paid',
        auth_code: undefined,
        default_payment_token: gold.customer.token,
        default_collection_method: 'charge_automatically',
        note: 'Members only',
        redirect_url: 'https://shop.example/account',
        timeout: { timer: '', url: '' },
      },
    );
    assert.match(latest.order.auth_code, /^\w{6}$/);
    assert.match(latest.order.order_number, /^\d{18}$/);
    assert.ok(latest.order.reference_number.endsWith('-2'), 'newest first');
    assert.ok(first.order.reference_number.endsWith('-1'));
  });

  test('an order being retried shows when in timeout.timer, and is unpaid', async () => {
    // Both of Bronze's billings declined and wait for a retry. Which retry comes first depends on the month the
    // test starts in (its second billing is 28 to 31 days after the first): the plan's next run is the earlier one.
    const records = await client.recurring.listOrders({ filters: { 'filter[plan.id][_eq]': bronze.planId } });
    assert.equal(records.length, 2);
    const now = (await client.sandbox.clock()).now;
    for (const record of records) {
      assert.equal(record.order.correspondence_state, 'unpaid');
      assert.equal(record.order.paid_total, 0);
      assert.equal(record.order.auth_code, '');
      assert.match(record.order.timeout.timer, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(record.order.timeout.timer > now, 'a retry to come');
    }
    const plan = await client.recurring.getPlan(bronze.planId);
    assert.equal(records.map((record) => record.order.timeout.timer).sort()[0], plan.cycles[0]!.next_execute_time);
  });

  test('filters over the order, the customer and the plan; offset and limit; the check of one order', async () => {
    const paid = await client.recurring.listOrders({ filters: { 'filter[order.correspondence_state][_eq]': 'paid' } });
    assert.ok(paid.length >= 2 && paid.every((record) => record.order.correspondence_state === 'paid'));
    const byCustomer = await client.recurring.listOrders({
      filters: { 'filter[customer.reference_number][_eq]': bronze.customer.reference },
    });
    // Bronze's first order is still being retried, and its second billing time was billed on time meanwhile.
    assert.deepEqual(
      byCustomer.map((record) => record.customer.uuid),
      [bronze.customer.uuid, bronze.customer.uuid],
    );
    assert.equal(
      (
        await client.recurring.listOrders({
          filters: { 'filter[plan.state][_eq]': 'active', 'filter[order.amount][_gte]': '180' },
        })
      ).length,
      2,
    );
    const all = await client.recurring.listOrders();
    assert.equal(all.length, 4);
    const page = await client.recurring.listOrders({ offset: 1, limit: 1 });
    assert.deepEqual(
      page.map((record) => record.order.order_number),
      [all[1]!.order.order_number],
    );
    for (const query of ['limit=1001', 'filter[order.colour][_eq]=red', 'filter[order.state][_eq]=lost']) {
      const reply = await signedRaw(server.url, merchant, { method: 'GET', target: `${LIST}?${query}` });
      assert.equal(reply.status, 400, query);
      assert.equal(reply.json.error_code, '100207');
    }

    const golds = all.filter((record) => record.customer.uuid === gold.customer.uuid);
    const one = await client.recurring.checkOrder({
      customer_uuid: gold.customer.uuid,
      order: { number: golds[0]!.order.order_number },
    });
    assert.deepEqual(one, golds[0]);
    const wrongCustomer = await refusal(
      client.recurring.checkOrder({ customer_uuid: bronze.customer.uuid, order: { number: one.order.order_number } }),
    );
    assert.equal(wrongCustomer.errorCode, '400101');
  });

  test('another merchant sees none of these orders, and cannot check one', async () => {
    const other = await server.newMerchant();
    assert.deepEqual(await other.client.recurring.listOrders(), []);
    const [record] = await client.recurring.listOrders({ limit: 1 });
    const theirs = await refusal(other.client.recurring.checkOrder({ order: { number: record!.order.order_number } }));
    const nobodys = await refusal(other.client.recurring.checkOrder({ order: { number: '999999999999999999' } }));
    assert.deepEqual(
      [theirs.status, theirs.errorCode, theirs.message],
      [nobodys.status, nobodys.errorCode, nobodys.message],
    );
    assert.equal(theirs.errorCode, '400101');
  });
});
