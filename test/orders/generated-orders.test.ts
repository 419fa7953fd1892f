import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Context, merchantContext } from '../../src/context/context.js';
import { createApp } from '../../src/merchants/apps.js';
import { type CreateOrderInput, createOrder, OVERDUE_JOB } from '../../src/orders/create-order.js';
import { ORDER_ERRORS } from '../../src/orders/errors.js';
import { AppError } from '../../src/platform/errors.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { TEST_PUBLIC_KEY } from '../support/keys.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

/**
 * `createOrder` called inside paygate, as the recurring billing will (issue 12): a system actor, a discount as a
 * negative `Charge` line (`discountLines`) and the plan's app (`appId`). The order is read back through HTTP; the
 * same input without the option is refused exactly as the HTTP route refuses it.
 */

const NOTIFY_URL = 'https://shop.example/paygate/notify';

let server: TestServer;
let merchant: TestMerchant;
/** A second app of the merchant, newer than `merchant.appId`, so it never signs by default. */
let planAppId: string;
let ctx: Context;

const reference = () => `GEN-${process.pid}-${randomUUID().slice(0, 8)}`;

/** A cycle of a HKD 100.00 plan with HKD 20.00 off. */
const generatedInput = (overrides: Partial<CreateOrderInput['order']> = {}): CreateOrderInput => ({
  order: {
    reference_number: reference(),
    currency: 'HKD',
    charge_fee: '80.00',
    line_items: [
      { purchasable_type: 'Charge', price: '100.00', quantity: 1, label: 'Gold plan, May 2025' },
      { purchasable_type: 'Charge', price: '-20.00', quantity: 1, total: '-20.00', label: 'Discount' },
    ],
    callback_url: NOTIFY_URL,
    ...overrides,
  },
});

const storedOrders = (referenceNumber: string) =>
  server.platform.db
    .selectFrom('orders')
    .selectAll()
    .where('merchant_id', '=', merchant.merchantId)
    .where('reference_number', '=', referenceNumber)
    .execute();

/** The app whose key signs each delivery to the order's callback_url. */
const notifySigners = async (orderId: string) =>
  (
    await server.platform.db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select(['events.action', 'events.app_id as event_app', 'webhook_deliveries.app_id as signer'])
      .where('events.subject_id', '=', orderId)
      .where('webhook_deliveries.destination', '=', 'notify_url')
      .execute()
  ).map((row) => [row.action, row.event_app, row.signer]);

const overdueJobs = (orderId: string) =>
  server.platform.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', OVERDUE_JOB)
    .where('dedupe_key', '=', `${OVERDUE_JOB}:${orderId}`)
    .execute();

async function verbRefusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  assert.fail('expected createOrder to refuse');
}

before(async () => {
  server = await startTestServer();
  merchant = await server.newMerchant({ name: 'Gym' });
  server.clock.advance(1000); // strictly newer, whatever the timer's resolution: apps of one millisecond sort by random id
  planAppId = (await createApp(server.platform, { merchantId: merchant.merchantId, publicKeyPem: TEST_PUBLIC_KEY }))
    .app_id;
  const row = await findMerchant(server.platform.db, merchant.merchantId);
  assert.ok(row);
  // As in a scheduled job: the system acts, no app.
  ctx = merchantContext(server.platform, row, { kind: 'system', job: 'recurring.bill' }, 'test-generated-orders');
});
after(() => server.close());

describe('generated orders: createOrder with discountLines and appId', () => {
  test("a negative Charge line (the discount) is stored, the totals are the charge_fee, the plan's app signs its webhooks, no due date", async () => {
    const input = generatedInput();
    await createOrder(ctx, input, { discountLines: true, appId: planAppId });

    const order = await merchant.client.orders.check({ order: { reference_number: input.order.reference_number } });
    assert.equal(order.initial_total, 80);
    assert.equal(order.initial_tips, 0);
    assert.equal(order.subtotal, 80);
    assert.equal(order.unpaid_total, '80.00');
    assert.equal(order.paid_total, '0.00');
    assert.equal(order.state, 'invoiced');
    assert.equal(order.correspondence_state, 'unpaid');
    assert.equal(order.due_date, null);
    assert.equal(order.notify_url, NOTIFY_URL);
    assert.deepEqual(
      order.line_items?.map(({ uuid: _uuid, ...item }) => item),
      [
        { purchasable_type: 'Charge', price: 100, quantity: 1, total: 100, label: 'Gold plan, May 2025' },
        { purchasable_type: 'Charge', price: -20, quantity: 1, total: -20, label: 'Discount' },
      ],
    );

    // The app id is not in the API's answer: it shows as the order's row and as the key that signs its webhooks.
    const [row] = await storedOrders(input.order.reference_number);
    assert.ok(row);
    assert.equal(row.app_id, planAppId);
    assert.equal(row.due_date, null);
    assert.deepEqual(await notifySigners(row.id), [['order.created', planAppId, planAppId]]);
    assert.deepEqual(
      await overdueJobs(row.id),
      [],
      'no due date, so the overdue job never voids it while it waits for retries',
    );

    // A crash-retried billing with the same content finds the same order.
    await createOrder(ctx, input, { discountLines: true, appId: planAppId });
    assert.equal((await storedOrders(input.order.reference_number)).length, 1);
  });

  test("without appId a system actor's order has no app, and the merchant's oldest app signs", async () => {
    const input = generatedInput();
    await createOrder(ctx, input, { discountLines: true });
    const [row] = await storedOrders(input.order.reference_number);
    assert.ok(row);
    assert.equal(row.app_id, null);
    assert.deepEqual(await notifySigners(row.id), [['order.created', null, merchant.appId]]);
  });

  test('a due date is only there when given (and then the overdue job is scheduled)', async () => {
    const { business_date: today } = await merchant.client.sandbox.clock();
    const input = generatedInput({ due_date: today });
    await createOrder(ctx, input, { discountLines: true, appId: planAppId });
    const [row] = await storedOrders(input.order.reference_number);
    assert.ok(row);
    assert.equal(row.due_date, today);
    assert.equal((await overdueJobs(row.id)).length, 1);
  });

  test("without discountLines the same input is refused with the HTTP route's error (400104, naming the line); nothing is stored", async () => {
    const input = generatedInput();
    const viaVerb = await verbRefusal(createOrder(ctx, input, { appId: planAppId }));
    assert.equal(viaVerb.definition, ORDER_ERRORS.orderAmountsInvalid);
    assert.match(viaVerb.message, /order\.line_items\[1\]\.price/);

    const viaRoute = await refusal(merchant.client.orders.create(input.order));
    assert.equal(viaRoute.status, 400);
    assert.equal(viaRoute.errorCode, '400104');
    assert.equal(viaRoute.errorCode, viaVerb.definition.code);
    assert.equal(viaRoute.message, viaVerb.message);
    assert.deepEqual(await storedOrders(input.order.reference_number), []);
  });

  test('discountLines keeps every other amount rule: only Charge may go negative, the lines must add up, charge_fee above 0', async () => {
    const cases: Array<[string, CreateOrderInput, RegExp]> = [
      [
        'a negative Listing line',
        generatedInput({
          line_items: [
            { purchasable_type: 'Listing', price: '100.00', quantity: 1 },
            { purchasable_type: 'Listing', price: '-20.00', quantity: 1 },
          ],
        }),
        /order\.line_items\[1\]\.price/,
      ],
      [
        'lines not adding up to charge_fee',
        generatedInput({ charge_fee: '100.00' }),
        /order\.line_items must add up to order\.charge_fee/,
      ],
      [
        'a discount taking the whole charge',
        generatedInput({
          charge_fee: '0.00',
          line_items: [
            { purchasable_type: 'Charge', price: '20.00', quantity: 1 },
            { purchasable_type: 'Charge', price: '-20.00', quantity: 1, label: 'Discount' },
          ],
        }),
        /order\.charge_fee/,
      ],
    ];
    for (const [name, input, message] of cases) {
      const error = await verbRefusal(createOrder(ctx, input, { discountLines: true, appId: planAppId }));
      assert.equal(error.definition, ORDER_ERRORS.orderAmountsInvalid, name);
      assert.match(error.message, message, name);
      assert.deepEqual(await storedOrders(input.order.reference_number), [], name);
    }
  });
});
