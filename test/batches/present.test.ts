import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { presentBatchTransaction } from '../../src/batches/present.js';
import { type Context, merchantContext } from '../../src/context/context.js';
import { loadOrderView, resolveOrder } from '../../src/orders/lookup.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { CARDS, card, paidOrder } from '../support/fixtures.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// A batch's transactions in operation 5's shape (issue 13, point 4), field by field against interface.md's
// "Batch transaction element" and "Batch transaction order object".

const DAY = 86_400;

/** interface.md's batch transaction element: each field and its type ('null' where the seed allows it). */
const TRANSACTION_FIELDS: Record<string, string[]> = {
  type: ['integer'],
  source: ['string'],
  success: ['boolean'],
  is_pending: ['boolean'],
  captured: ['boolean'],
  allow_void: ['boolean'],
  allow_refund: ['boolean'],
  void_is_pending: ['boolean'],
  voided: ['boolean'],
  refunded_amount: ['number'],
  amount: ['number'],
  change_amount: ['number'],
  original_currency_amount: ['number'],
  tips_amount: ['number'],
  payment_method: ['string'],
  currency: ['string'],
  uuid: ['string'],
  note: ['string'],
  voided_at: ['string'],
  device_sn: ['string'],
  original_device_sn: ['string'],
  acquirer_response_body: ['string'],
  created_at: ['string'],
  reference_id: ['string'],
  original_transaction_reference_id: ['string'],
  payment_data: ['object'],
  extra: ['object', 'null'],
  '3ds': ['object'],
  original_transaction_uuid: ['string', 'null'],
  order: ['object'],
};
const ORDER_STRINGS = [
  'source',
  'type',
  'number',
  'due_date',
  'paid_total',
  'unpaid_total',
  'reference_number',
  'state',
  'correspondence_state',
  'currency',
  'note',
  'auth_code',
  'created_at',
  'updated_at',
];
const CUSTOMER_FIELDS = [
  'uuid',
  'name',
  'email',
  'phone',
  'dial_code',
  'payer_company_name',
  'reference_number',
  'p_created_at',
  'p_updated_at',
];

const kind = (value: unknown) => (value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value);

function assertSeedShape(reply: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(reply).sort(), Object.keys(TRANSACTION_FIELDS).sort());
  for (const [field, types] of Object.entries(TRANSACTION_FIELDS)) {
    const seen = kind(reply[field]);
    assert.ok(
      types.includes(seen) || (seen === 'integer' && types.includes('number')),
      `${field} is ${seen}, the seed says ${types.join(' or ')}`,
    );
  }
  const order = reply.order as Record<string, unknown>;
  for (const field of ORDER_STRINGS) assert.equal(typeof order[field], 'string', `order.${field}`);
  for (const field of ['initial_total', 'initial_tips', 'subtotal'])
    assert.equal(typeof order[field], 'number', `order.${field}`);
  assert.deepEqual(order.payment_method_option, { online: {} });
  assert.deepEqual([order.line_items, order.transactions], [null, null]);
  assert.deepEqual(order.customer, Object.fromEntries(CUSTOMER_FIELDS.map((field) => [field, null])));
  const threeDs = reply['3ds'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(threeDs).sort(), ['enrolled', 'redirect_url']);
  assert.ok(typeof threeDs.enrolled === 'string' && typeof threeDs.redirect_url === 'string');
}

describe('batch transactions in the shape of operation 5', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let ctx: Context;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant({ name: 'Batch Shop' });
    ctx = merchantContext(
      server.platform,
      (await findMerchant(server.platform.db, merchant.merchantId))!,
      { kind: 'app', appId: merchant.appId },
      'test',
    );
  });
  after(() => server.close());

  const viewOf = async (number: string) => loadOrderView(ctx, await resolveOrder(ctx, { number }));

  test('a sale and its refund: types 1 and 4, the refunded amount, the original named, every field in the seed type', async () => {
    const { order, transaction } = await paidOrder(merchant.client, '12.50');
    await merchant.client.sandbox.advanceClock(DAY);
    const refund = await merchant.client.transactions.refund(transaction.uuid, { amount: '2.25' });
    const view = await viewOf(order.number);
    const sale = view.transactions.find((t) => t.id === transaction.uuid)!;
    const refunded = view.transactions.find((t) => t.id === refund.transaction.uuid)!;

    const shownSale = presentBatchTransaction(view, sale, { row: 2, remark: 'March dues' });
    assertSeedShape(shownSale as unknown as Record<string, unknown>);
    assert.deepEqual(
      [
        shownSale.type,
        shownSale.source,
        shownSale.success,
        shownSale.amount,
        shownSale.refunded_amount,
        shownSale.original_currency_amount,
        shownSale.currency,
      ],
      [1, 'batch', true, 12.5, 2.25, 12.5, 'HKD'],
    );
    assert.deepEqual(
      [shownSale.original_transaction_uuid, shownSale.original_transaction_reference_id, shownSale.reference_id],
      [null, '', order.reference_number],
    );
    assert.deepEqual(shownSale.extra, { row: 2, remark: 'March dues' });
    assert.deepEqual(shownSale['3ds'], { enrolled: 'N', redirect_url: '' });
    assert.deepEqual([shownSale.voided, shownSale.voided_at], [false, '']);
    assert.equal(shownSale.payment_data.last_4_digits, '4242');
    assert.equal(shownSale.order.auth_code, shownSale.payment_data.auth_code);
    assert.ok(shownSale.order.auth_code.length > 0);
    assert.deepEqual(JSON.parse(shownSale.acquirer_response_body), {
      resp_code: '00',
      resp_msg: shownSale.payment_data.resp_msg,
      transaction_state: shownSale.payment_data.transaction_state,
    });
    assert.deepEqual(
      [
        shownSale.order.number,
        shownSale.order.initial_total,
        shownSale.order.paid_total,
        shownSale.order.unpaid_total,
        shownSale.order.business,
      ],
      [order.number, 12.5, '10.25', '2.25', { id: merchant.merchantId, business_name: 'Batch Shop' }],
    );

    const shownRefund = presentBatchTransaction(view, refunded);
    assertSeedShape(shownRefund as unknown as Record<string, unknown>);
    assert.deepEqual(
      [shownRefund.type, shownRefund.amount, shownRefund.refunded_amount, shownRefund.extra],
      [4, 2.25, 0, null],
    );
    assert.deepEqual(
      [shownRefund.original_transaction_uuid, shownRefund.original_transaction_reference_id],
      [transaction.uuid, order.reference_number],
    );
  });

  test('an authorisation and its capture are 2 and 3; a voided one carries its time; a challenge shows 3-D Secure enrolled', async () => {
    const authorised = await paidOrder(merchant.client, '30.00', 'pre_authorize');
    const captured = await merchant.client.transactions.capture(authorised.transaction.uuid);
    const view = await viewOf(authorised.order.number);
    const types = view.transactions
      .map((t) => presentBatchTransaction(view, t))
      .map((t) => [t.type, t.original_transaction_uuid]);
    assert.deepEqual(types.sort(), [
      [2, null],
      [3, authorised.transaction.uuid],
    ]);
    assert.equal(captured.transaction.success, true);

    const voided = await paidOrder(merchant.client, '5.00');
    await merchant.client.transactions.void(voided.transaction.uuid);
    const voidedView = await viewOf(voided.order.number);
    const shownVoid = presentBatchTransaction(voidedView, voidedView.transactions[0]!);
    assert.equal(shownVoid.voided, true);
    assert.match(shownVoid.voided_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const challenged = await merchant.client.orders.create({
      reference_number: `B-${Date.now()}`,
      currency: 'HKD',
      charge_fee: '8.00',
    });
    await merchant.client.orders.pay({ number: challenged.number }, { credit_card: card(CARDS.challenge) });
    const challengedView = await viewOf(challenged.number);
    const pending = presentBatchTransaction(challengedView, challengedView.transactions[0]!);
    assertSeedShape(pending as unknown as Record<string, unknown>);
    assert.equal(pending.is_pending, true);
    assert.equal(pending['3ds'].enrolled, 'Y');
    assert.match(pending['3ds'].redirect_url, /^https?:\/\//);
  });
});
