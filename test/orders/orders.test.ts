import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Order, OrderInput, PaygateError } from '@paygate/client';
import { MAX_LIST_PAGE_ROWS } from '../../src/orders/queries.js';
import { MAX_CONDITIONS, MAX_LIST_VALUES } from '../../src/platform/query/filters.js';
import { CARDS, card } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { type RawReply, signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

/**
 * Orders through HTTP, against docs/orders.md: creating (amounts, currencies, dates, URLs, customers),
 * re-creating with the same reference, reading with orders/check, listing with the query language, and the
 * totals and states after payments. Replies are checked together with what is stored.
 */

const BASE = '/svc/payment/api/v1/openapi';
/** Approved by the sandbox acquirer (docs/sandbox.md). */
const CARD = card(CARDS.visa);

let server: TestServer;
let counter = 0;
/** A reference number unique in this file (and across concurrent runs on one PostgreSQL). */
const reference = (prefix = 'ORD') => `${prefix}-${process.pid}-${++counter}-${randomUUID().slice(0, 8)}`;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

// ---- helpers ----

/** Asserts a refusal's HTTP status, error code and (when given) that its message names what it should. */
function assertRefused(error: PaygateError, status: number, errorCode: string, message?: RegExp | string): void {
  assert.equal(error.status, status, `status of ${errorCode}: ${error.message}`);
  assert.equal(error.errorCode, errorCode, error.message);
  assert.equal(error.code, /^\d+$/.test(errorCode) ? Number(errorCode) : status);
  if (typeof message === 'string')
    assert.ok(error.message.includes(message), `"${error.message}" should name ${message}`);
  else if (message) assert.match(error.message, message);
}

const smallOrder = (overrides: Partial<OrderInput> = {}): OrderInput => ({
  reference_number: reference(),
  currency: 'HKD',
  charge_fee: '21.00',
  ...overrides,
});

/** POST /orders with the exact bytes given (for bodies the typed client cannot express). */
const createRaw = (merchant: TestMerchant, body: string): Promise<RawReply> =>
  signedRaw(server.url, merchant, { method: 'POST', target: `${BASE}/orders`, body, at: server.clock.now() });

const ordersWithReference = (merchantId: string, referenceNumber: string) =>
  server.platform.db
    .selectFrom('orders')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference_number', '=', referenceNumber)
    .execute();

async function storedOrder(merchantId: string, referenceNumber: string) {
  const rows = await ordersWithReference(merchantId, referenceNumber);
  assert.equal(rows.length, 1, `one stored order ${referenceNumber}`);
  return rows[0]!;
}

const pay = (merchant: TestMerchant, referenceNumber: string, amount?: string) =>
  merchant.client.orders.pay(
    { reference_number: referenceNumber },
    { ...(amount !== undefined && { amount }), credit_card: CARD },
  );

/** The same instant as `iso`, written in RFC 3339 with the given offset from UTC (in minutes). */
function atOffset(iso: string, offsetMinutes: number): string {
  const local = new Date(Date.parse(iso) + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const abs = Math.abs(offsetMinutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const ORDER_KEYS = [
  'business',
  'correspondence_state',
  'created_at',
  'currency',
  'due_date',
  'initial_tips',
  'initial_total',
  'line_items',
  'note',
  'number',
  'paid_total',
  'reference_number',
  'source',
  'state',
  'subtotal',
  'transactions',
  'type',
  'unpaid_total',
  'updated_at',
];

// ---- creating ----

describe('creating an order', () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await server.newMerchant({ name: 'Noodle House' });
  });

  test('the smallest order: invoiced and unpaid, OpenAPI source, amounts as numbers, totals as decimal text', async () => {
    const input = smallOrder();
    const order = await merchant.client.orders.create(input);
    assert.deepEqual(
      Object.keys(order).sort(),
      ORDER_KEYS,
      'no notify_url, return_url or customer_uuid when not given',
    );
    assert.match(order.number, /^\d{18}$/);
    assert.ok(!Number.isNaN(Date.parse(order.created_at)));
    assert.deepEqual(order, {
      source: 'OpenAPI',
      type: 'Online',
      number: order.number,
      reference_number: input.reference_number,
      due_date: null,
      initial_total: 21,
      initial_tips: 0,
      subtotal: 21,
      paid_total: '0.00',
      unpaid_total: '21.00',
      state: 'invoiced',
      correspondence_state: 'unpaid',
      currency: 'HKD',
      note: null,
      business: { id: merchant.merchantId, business_name: 'Noodle House' },
      created_at: order.created_at,
      updated_at: order.created_at,
      line_items: null,
      transactions: [],
    });

    const row = await storedOrder(merchant.merchantId, input.reference_number);
    assert.equal(row.number, order.number);
    assert.equal(Number(row.initial_total), 2100);
    assert.equal(Number(row.initial_tips), 0);
    assert.equal(Number(row.subtotal), 2100);
    assert.equal(Number(row.paid_total), 0);
    assert.equal(Number(row.currency_exponent), 2);
    assert.equal(row.customer_id, null);
    const items = await server.platform.db
      .selectFrom('order_line_items')
      .selectAll()
      .where('order_id', '=', row.id)
      .execute();
    assert.equal(items.length, 0);
  });

  test('decimal text carries exactly the currency decimals: HKD "21.00", JPY "1250", KWD "1.250"', async () => {
    const cases: Array<[string, string | number, number, string, string, number]> = [
      // currency, charge_fee, initial_total, unpaid_total, paid_total, stored minor units
      ['HKD', '21', 21, '21.00', '0.00', 2100],
      ['JPY', '1250', 1250, '1250', '0', 1250],
      ['KWD', '1.25', 1.25, '1.250', '0.000', 1250],
      ['KWD', '0.005', 0.005, '0.005', '0.000', 5],
    ];
    for (const [currency, chargeFee, initialTotal, unpaid, paid, minor] of cases) {
      const order = await merchant.client.orders.create(smallOrder({ currency, charge_fee: chargeFee }));
      assert.equal(order.initial_total, initialTotal, `${currency} ${chargeFee}`);
      assert.equal(order.subtotal, initialTotal);
      assert.equal(order.unpaid_total, unpaid, `${currency} ${chargeFee}`);
      assert.equal(order.paid_total, paid, `${currency} ${chargeFee}`);
      assert.equal(Number((await storedOrder(merchant.merchantId, order.reference_number)).initial_total), minor);
    }
  });

  test('a full order: tips, subtotal, all five line item types with a negative Rounding line, due date, URLs, note, customer', async () => {
    const customer = await merchant.client.customers.create({
      reference_number: reference('CUS'),
      name: 'Chan Tai Man',
      phone: '91234567',
    });
    const { business_date: today } = await merchant.client.sandbox.clock();
    const input: OrderInput = {
      reference_number: reference(),
      currency: 'HKD',
      charge_fee: '120.00',
      tips: '20.00',
      subtotal: '100.00',
      line_items: [
        {
          purchasable_type: 'Listing',
          purchase_id: 42,
          price: '50.00',
          quantity: 2,
          total: '100.00',
          label: 'Noodles',
        },
        { purchasable_type: 'Charge', price: '5.00', quantity: 1, label: 'Service charge' },
        { purchasable_type: 'SurchargeFee', price: '2.50', quantity: 2, total: '5.00' },
        { purchasable_type: 'Rounding', price: '-10.00', quantity: 1, total: '-10.00', label: 'Discount' },
        { purchasable_type: 'RearTips', price: '20.00', quantity: 1 },
      ],
      due_date: today,
      callback_url: 'https://shop.example/paygate/notify',
      redirect_url: 'https://shop.example/thanks',
      note: 'Table 7',
    };
    const order = await merchant.client.orders.create(input, { customerUuid: customer.uuid });

    assert.equal(order.initial_total, 120);
    assert.equal(order.initial_tips, 20);
    assert.equal(order.subtotal, 100);
    assert.equal(order.paid_total, '0.00');
    assert.equal(order.unpaid_total, '120.00');
    assert.equal(order.due_date, today);
    assert.equal(order.notify_url, 'https://shop.example/paygate/notify');
    assert.equal(order.return_url, 'https://shop.example/thanks');
    assert.equal(order.note, 'Table 7');
    assert.equal(order.customer_uuid, customer.uuid);
    assert.equal('callback_url' in order, false);
    assert.equal('redirect_url' in order, false);
    assert.ok(order.line_items);
    for (const item of order.line_items) assert.match(item.uuid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      order.line_items.map(({ uuid: _uuid, ...item }) => item),
      [
        { purchasable_type: 'Listing', purchase_id: 42, price: 50, quantity: 2, total: 100, label: 'Noodles' },
        { purchasable_type: 'Charge', price: 5, quantity: 1, total: 5, label: 'Service charge' },
        { purchasable_type: 'SurchargeFee', price: 2.5, quantity: 2, total: 5 },
        { purchasable_type: 'Rounding', price: -10, quantity: 1, total: -10, label: 'Discount' },
        { purchasable_type: 'RearTips', price: 20, quantity: 1, total: 20 },
      ],
    );

    const row = await storedOrder(merchant.merchantId, input.reference_number);
    assert.equal(row.customer_id, customer.uuid);
    assert.equal(row.notify_url, 'https://shop.example/paygate/notify');
    assert.equal(row.return_url, 'https://shop.example/thanks');
    assert.equal(row.due_date, today);
    assert.deepEqual([Number(row.initial_total), Number(row.initial_tips), Number(row.subtotal)], [12000, 2000, 10000]);
    const items = await server.platform.db
      .selectFrom('order_line_items')
      .selectAll()
      .where('order_id', '=', row.id)
      .orderBy('position')
      .execute();
    assert.deepEqual(
      items.map((item) => [item.purchasable_type, Number(item.price), Number(item.quantity), Number(item.total)]),
      [
        ['Listing', 5000, 2, 10000],
        ['Charge', 500, 1, 500],
        ['SurchargeFee', 250, 2, 500],
        ['Rounding', -1000, 1, -1000],
        ['RearTips', 2000, 1, 2000],
      ],
    );

    // What check answers is what create answered.
    assert.deepEqual(await merchant.client.orders.check({ order: { number: order.number } }), order);
  });

  test('amounts may be JSON numbers', async () => {
    const order = await merchant.client.orders.create(
      smallOrder({
        charge_fee: 21.5,
        tips: 1.5,
        subtotal: 20,
        line_items: [
          { purchasable_type: 'Listing', price: 10, quantity: 2, total: 20 },
          { purchasable_type: 'RearTips', price: 1.5, quantity: 1, total: 1.5 },
        ],
      }),
    );
    assert.equal(order.initial_total, 21.5);
    assert.equal(order.initial_tips, 1.5);
    assert.equal(order.subtotal, 20);
    assert.equal(order.unpaid_total, '21.50');
    assert.equal(Number((await storedOrder(merchant.merchantId, order.reference_number)).initial_total), 2150);
  });

  test('a lowercase currency is taken as the ISO code', async () => {
    const order = await merchant.client.orders.create(smallOrder({ currency: 'hkd' }));
    assert.equal(order.currency, 'HKD');
    assert.equal(order.unpaid_total, '21.00');
    assert.equal((await storedOrder(merchant.merchantId, order.reference_number)).currency, 'HKD');
  });

  test('fields the interface does not list (order.customer{name, email, phone}) are tolerated and ignored', async () => {
    const ref = reference();
    const reply = await createRaw(
      merchant,
      JSON.stringify({
        order: {
          reference_number: ref,
          currency: 'HKD',
          charge_fee: 21,
          customer: { name: 'Chan Tai Man', email: 'chan@example.com', phone: '+85291234567' },
          source: 'WooCommerce',
        },
      }),
    );
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.order.reference_number, ref);
    assert.equal(reply.json.data.order.source, 'OpenAPI');
    assert.equal('customer' in reply.json.data.order, false);
    assert.equal('customer_uuid' in reply.json.data.order, false);
  });

  test('callback_url and redirect_url sent as "" are taken as not sent', async () => {
    const order = await merchant.client.orders.create(smallOrder({ callback_url: '', redirect_url: '' }));
    assert.equal('notify_url' in order, false);
    assert.equal('return_url' in order, false);
    const row = await storedOrder(merchant.merchantId, order.reference_number);
    assert.equal(row.notify_url, null);
    assert.equal(row.return_url, null);
  });
});

describe('amount rules (400104, naming the field)', () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await server.newMerchant();
  });

  const listing = (price: string, quantity = 1, total?: string) => ({
    purchasable_type: 'Listing' as const,
    price,
    quantity,
    ...(total !== undefined && { total }),
  });

  const cases: Array<[string, Partial<OrderInput>, string]> = [
    ['three decimals in HKD', { charge_fee: '12.345' }, 'order.charge_fee'],
    ['decimals in JPY (text)', { currency: 'JPY', charge_fee: '1.5' }, 'order.charge_fee'],
    ['decimals in JPY (JSON number)', { currency: 'JPY', charge_fee: 1.5 }, 'order.charge_fee'],
    ['four decimals in KWD', { currency: 'KWD', charge_fee: '1.2345' }, 'order.charge_fee'],
    ['exponent notation', { charge_fee: '1e3' }, 'order.charge_fee'],
    ['exponent notation with a capital E', { charge_fee: '2.1E1' }, 'order.charge_fee'],
    ['a JSON number only writable with an exponent', { charge_fee: 1e-7 }, 'order.charge_fee'],
    ['a negative charge_fee', { charge_fee: '-21.00' }, 'order.charge_fee'],
    ['a zero charge_fee', { charge_fee: '0.00' }, 'order.charge_fee'],
    ['a zero charge_fee as a number', { charge_fee: 0 }, 'order.charge_fee'],
    ['text that is not an amount', { charge_fee: '21,00' }, 'order.charge_fee'],
    ['negative tips', { tips: '-1.00' }, 'order.tips'],
    ['too many decimals in tips', { tips: '1.001' }, 'order.tips'],
    ['tips above charge_fee', { charge_fee: '21.00', tips: '21.01' }, 'order.tips'],
    [
      'a subtotal that is not charge_fee − tips',
      { charge_fee: '21.00', tips: '1.00', subtotal: '21.00' },
      'order.subtotal',
    ],
    [
      'line items not adding up to charge_fee',
      { charge_fee: '21.00', line_items: [listing('10.00', 2)] },
      'order.line_items',
    ],
    [
      'an item total that is not price × quantity',
      { charge_fee: '21.00', line_items: [listing('10.50', 2, '20.00')] },
      'order.line_items[0].total',
    ],
    [
      'RearTips lines not adding up to tips',
      {
        charge_fee: '21.00',
        tips: '1.00',
        line_items: [listing('19.00'), { purchasable_type: 'RearTips', price: '2.00', quantity: 1 }],
      },
      'RearTips',
    ],
    [
      'tips without a RearTips line when line items are sent',
      { charge_fee: '21.00', tips: '1.00', line_items: [listing('21.00')] },
      'RearTips',
    ],
    [
      'a negative price on a Listing line',
      {
        charge_fee: '21.00',
        line_items: [listing('31.00'), listing('-10.00')],
      },
      'order.line_items[1].price',
    ],
    [
      'a negative price on a Charge line',
      {
        charge_fee: '21.00',
        line_items: [listing('31.00'), { purchasable_type: 'Charge', price: '-10.00', quantity: 1 }],
      },
      'order.line_items[1].price',
    ],
    [
      'too many decimals in a line price',
      { charge_fee: '21.00', line_items: [listing('21.001')] },
      'order.line_items[0].price',
    ],
    // Each line is a safe integer of cents, their running sum is not: it must be refused, never rounded.
    [
      'line items whose sum passes 2^53 minor units',
      {
        charge_fee: '21.00',
        line_items: [
          listing('9999999999999.99', 9),
          listing('9999999999999.99', 9),
          { purchasable_type: 'Rounding', price: '-9999999999999.99', quantity: 9 },
        ],
      },
      'order.line_items add up to more than any amount can be',
    ],
  ];

  for (const [name, overrides, field] of cases) {
    test(`refuses ${name}, naming ${field}; nothing is stored`, async () => {
      const input = smallOrder(overrides);
      const error = await refusal(merchant.client.orders.create(input));
      assertRefused(error, 400, '400104', field);
      assert.equal((await ordersWithReference(merchant.merchantId, input.reference_number)).length, 0);
    });
  }

  test('a JSON number written with an exponent or too many decimals in the request bytes is refused', async () => {
    for (const literal of ['2.1e1', '1E1', '0.1e2', '21.000000000000001']) {
      const ref = reference();
      const reply = await createRaw(
        merchant,
        `{"order":{"reference_number":"${ref}","currency":"HKD","charge_fee":${literal}}}`,
      );
      assert.equal(reply.status, 400, `${literal}: ${reply.text}`);
      assert.equal(reply.json.error_code, '400104');
      assert.match(reply.json.message, /order\.charge_fee/);
    }
  });

  test('an unknown currency is refused with EO100102 (HTTP 400, envelope code 400)', async () => {
    for (const currency of ['XYZ', 'HK', 'XAU', 'HKDD', '']) {
      const ref = reference();
      const reply = await createRaw(
        merchant,
        JSON.stringify({ order: { reference_number: ref, currency, charge_fee: '21.00' } }),
      );
      if (currency === '') {
        // An empty currency fails the body schema first: invalid input, naming the field.
        assert.equal(reply.status, 400, reply.text);
        assert.ok(['EO100102', '100207'].includes(reply.json.error_code), reply.text);
        continue;
      }
      assert.equal(reply.status, 400, `${currency}: ${reply.text}`);
      assert.deepEqual(
        { ...reply.json, message: undefined },
        { code: 400, error_code: 'EO100102', message: undefined, data: null },
        currency,
      );
      assert.equal(typeof reply.json.message, 'string');
      assert.equal((await ordersWithReference(merchant.merchantId, ref)).length, 0);
    }
  });
});

// ---- re-creating ----

describe('re-creating with the same reference_number', () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await server.newMerchant();
  });

  test('the same content returns the existing order (200) and stores nothing more', async () => {
    const input = smallOrder({ tips: '1.00', note: 'same', callback_url: 'https://shop.example/n' });
    const first = await merchant.client.orders.create(input);
    const again = await merchant.client.orders.create(input);
    assert.deepEqual(again, first);
    assert.equal((await ordersWithReference(merchant.merchantId, input.reference_number)).length, 1);
  });

  test('the same amounts written differently (21 and "21.00", hkd and HKD) are the same content', async () => {
    const ref = reference();
    const first = await merchant.client.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: '21.00' });
    const again = await merchant.client.orders.create({ reference_number: ref, currency: 'hkd', charge_fee: 21 });
    assert.equal(again.number, first.number);
    assert.equal((await ordersWithReference(merchant.merchantId, ref)).length, 1);
  });

  test('different content is refused with 409 400102 and the stored order is unchanged', async () => {
    const input = smallOrder();
    const first = await merchant.client.orders.create(input);
    const variants: Array<Partial<OrderInput>> = [
      { charge_fee: '22.00' },
      { currency: 'USD' },
      { tips: '1.00' },
      { note: 'other' },
      { callback_url: 'https://shop.example/other' },
    ];
    for (const variant of variants) {
      const error = await refusal(merchant.client.orders.create({ ...input, ...variant }));
      assertRefused(error, 409, '400102');
    }
    const row = await storedOrder(merchant.merchantId, input.reference_number);
    assert.equal(row.number, first.number);
    assert.equal(Number(row.initial_total), 2100);
    assert.equal(row.note, null);
  });

  test('the same reference at another merchant is another order', async () => {
    const other = await server.newMerchant();
    const input = smallOrder();
    const mine = await merchant.client.orders.create(input);
    const theirs = await other.client.orders.create({ ...input, charge_fee: '99.00' });
    assert.notEqual(theirs.number, mine.number);
    assert.equal(theirs.unpaid_total, '99.00');
  });

  test('20 concurrent creates of the same order make one order, and all replies name it', async () => {
    const input = smallOrder({ tips: '1.00' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => merchant.client.orders.create(input)));
    const numbers = new Set(replies.map((order) => order.number));
    assert.equal(numbers.size, 1, `numbers: ${[...numbers].join(', ')}`);
    for (const reply of replies) assert.deepEqual(reply, replies[0]);
    assert.equal((await ordersWithReference(merchant.merchantId, input.reference_number)).length, 1);
  });
});

// ---- dates, URLs, customers ----

describe('due dates, URLs and customers', () => {
  // Pacific/Kiritimati (UTC+14) is always one or two calendar days ahead of Pacific/Pago_Pago (UTC−11).
  let ahead: TestMerchant;
  let behind: TestMerchant;
  before(async () => {
    ahead = await server.newMerchant({ timezone: 'Pacific/Kiritimati' });
    behind = await server.newMerchant({ timezone: 'Pacific/Pago_Pago' });
  });

  test('due_date is checked against today in the merchant time zone: today is accepted, yesterday refused', async () => {
    const behindToday = (await behind.client.sandbox.clock()).business_date;
    const aheadToday = (await ahead.client.sandbox.clock()).business_date;
    assert.ok(aheadToday > behindToday);

    assert.equal((await behind.client.orders.create(smallOrder({ due_date: behindToday }))).due_date, behindToday);
    assert.equal((await ahead.client.orders.create(smallOrder({ due_date: aheadToday }))).due_date, aheadToday);

    const input = smallOrder({ due_date: behindToday });
    const error = await refusal(ahead.client.orders.create(input));
    assertRefused(error, 400, '100207', 'order.due_date');
    assert.equal((await ordersWithReference(ahead.merchantId, input.reference_number)).length, 0);
  });

  test('a due_date that is not a real date, or not YYYY-MM-DD, is refused naming the field', async () => {
    for (const dueDate of [
      '2026-02-30',
      '2099-02-29',
      '2099-13-01',
      '2099-00-10',
      '31/12/2099',
      '2099-12-31T00:00:00Z',
    ]) {
      const error = await refusal(behind.client.orders.create(smallOrder({ due_date: dueDate })));
      assertRefused(error, 400, '100207', 'order.due_date');
    }
  });

  test('callback_url and redirect_url must be http or https URLs, named when refused', async () => {
    const cases: Array<[Partial<OrderInput>, string]> = [
      [{ callback_url: 'ftp://x' }, 'order.callback_url'],
      [{ callback_url: 'not a url' }, 'order.callback_url'],
      [{ redirect_url: 'javascript:alert(1)' }, 'order.redirect_url'],
      [{ redirect_url: 'https://user:secret@shop.example/' }, 'order.redirect_url'],
      // Even in sandbox mode: the cloud's metadata service and link-local addresses are never called.
      [{ callback_url: 'http://169.254.169.254/latest/meta-data/' }, 'order.callback_url'],
      [{ callback_url: 'http://[::ffff:169.254.169.254]/' }, 'order.callback_url'],
      [{ callback_url: 'http://[fe80::1]/hook' }, 'order.callback_url'],
    ];
    for (const [overrides, field] of cases) {
      const input = smallOrder(overrides);
      const error = await refusal(behind.client.orders.create(input));
      assertRefused(error, 400, '100207', field);
      assert.equal((await ordersWithReference(behind.merchantId, input.reference_number)).length, 0);
    }
    const accepted = await behind.client.orders.create(smallOrder({ callback_url: 'http://127.0.0.1:8080/notify' }));
    assert.equal(accepted.notify_url, 'http://127.0.0.1:8080/notify', 'sandbox mode allows internal addresses');
  });

  test('customer_uuid must name a customer of this merchant (400103)', async () => {
    const theirs = await ahead.client.customers.create({
      reference_number: reference('CUS'),
      name: 'Other',
      phone: '1',
    });
    for (const customerUuid of [theirs.uuid, randomUUID(), 'not-a-uuid']) {
      const input = smallOrder();
      const error = await refusal(behind.client.orders.create(input, { customerUuid }));
      assertRefused(error, 400, '400103');
      assert.equal((await ordersWithReference(behind.merchantId, input.reference_number)).length, 0);
    }
  });
});

// ---- orders/check ----

describe('orders/check', () => {
  let merchant: TestMerchant;
  let other: TestMerchant;
  let unpaid: Order;
  let paid: Order;
  let transactionUuid: string;
  let theirs: Order;
  let theirTransactionUuid: string;

  before(async () => {
    merchant = await server.newMerchant();
    other = await server.newMerchant();
    unpaid = await merchant.client.orders.create(smallOrder());
    const paidInput = smallOrder();
    await merchant.client.orders.create(paidInput);
    const payment = await pay(merchant, paidInput.reference_number);
    assert.equal(payment.transaction.success, true);
    paid = payment.order;
    transactionUuid = payment.transaction.uuid;

    const theirInput = smallOrder();
    await other.client.orders.create(theirInput);
    const theirPayment = await pay(other, theirInput.reference_number);
    theirs = theirPayment.order;
    theirTransactionUuid = theirPayment.transaction.uuid;
  });

  test('by number, by reference_number, or by both: the same order', async () => {
    const byNumber = await merchant.client.orders.check({ order: { number: unpaid.number } });
    assert.deepEqual(byNumber, unpaid);
    assert.deepEqual(
      await merchant.client.orders.check({ order: { reference_number: unpaid.reference_number } }),
      unpaid,
    );
    assert.deepEqual(
      await merchant.client.orders.check({
        order: { number: unpaid.number, reference_number: unpaid.reference_number },
      }),
      unpaid,
    );
  });

  test('by transaction uuid: the order with its transactions', async () => {
    const order = await merchant.client.orders.check({ transaction: { uuid: transactionUuid } });
    assert.deepEqual(order, paid);
    assert.equal(order.state, 'completed');
    assert.equal(order.correspondence_state, 'paid');
    assert.equal(order.paid_total, '21.00');
    assert.equal(order.unpaid_total, '0.00');
    assert.equal(order.transactions.length, 1);
    assert.equal(order.transactions[0]!.uuid, transactionUuid);
    assert.equal(order.transactions[0]!.type, 'Sales');
    assert.equal(order.transactions[0]!.amount, 21);
  });

  test('by order and transaction together, when they agree', async () => {
    for (const ref of [
      { number: paid.number },
      { reference_number: paid.reference_number },
      { number: paid.number, reference_number: paid.reference_number },
    ]) {
      assert.deepEqual(
        await merchant.client.orders.check({ order: ref, transaction: { uuid: transactionUuid } }),
        paid,
      );
    }
  });

  test('an order and a transaction that do not belong together are refused (400108)', async () => {
    for (const ref of [
      { number: unpaid.number },
      { reference_number: unpaid.reference_number },
      { number: paid.number, reference_number: unpaid.reference_number },
    ]) {
      const error = await refusal(merchant.client.orders.check({ order: ref, transaction: { uuid: transactionUuid } }));
      assertRefused(error, 400, '400108');
    }
  });

  test('a number and a reference_number naming different orders are refused (400108)', async () => {
    const error = await refusal(
      merchant.client.orders.check({ order: { number: unpaid.number, reference_number: paid.reference_number } }),
    );
    assertRefused(error, 400, '400108');
    const unknown = await refusal(
      merchant.client.orders.check({ order: { number: unpaid.number, reference_number: reference('MISSING') } }),
    );
    assertRefused(unknown, 404, '400101');
  });

  test('naming neither an order nor a transaction is refused (400109)', async () => {
    for (const body of [{}, { order: {} }]) {
      const error = await refusal(merchant.client.orders.check(body));
      assertRefused(error, 400, '400109');
    }
  });

  test('an unknown order is 404 400101, an unknown transaction 404 400201', async () => {
    for (const ref of [{ number: '000000000000000000' }, { reference_number: reference('MISSING') }]) {
      assertRefused(await refusal(merchant.client.orders.check({ order: ref })), 404, '400101');
    }
    for (const uuid of [randomUUID(), 'not-a-uuid']) {
      assertRefused(await refusal(merchant.client.orders.check({ transaction: { uuid } })), 404, '400201');
    }
  });

  test("another merchant's order or transaction is indistinguishable from a missing one", async () => {
    // Thunks, so that each call starts only once its refusal is awaited.
    const same = async (theirsCall: () => Promise<unknown>, missingCall: () => Promise<unknown>) => {
      const a = await refusal(theirsCall());
      const b = await refusal(missingCall());
      assert.deepEqual([a.status, a.code, a.errorCode, a.message], [b.status, b.code, b.errorCode, b.message]);
      return a;
    };
    const check = (by: Parameters<typeof merchant.client.orders.check>[0]) => () => merchant.client.orders.check(by);
    assertRefused(
      await same(check({ order: { number: theirs.number } }), check({ order: { number: '999999999999999999' } })),
      404,
      '400101',
    );
    assertRefused(
      await same(
        check({ order: { reference_number: theirs.reference_number } }),
        check({ order: { reference_number: reference('MISSING') } }),
      ),
      404,
      '400101',
    );
    assertRefused(
      await same(
        check({ transaction: { uuid: theirTransactionUuid } }),
        check({ transaction: { uuid: randomUUID() } }),
      ),
      404,
      '400201',
    );
    assertRefused(
      await same(
        check({ order: { number: theirs.number }, transaction: { uuid: theirTransactionUuid } }),
        check({ order: { number: '999999999999999999' }, transaction: { uuid: randomUUID() } }),
      ),
      404,
      '400201',
    );
  });
});

// ---- orders/list ----

describe('orders/list', () => {
  let merchant: TestMerchant;
  let other: TestMerchant;
  let customerUuid: string;
  const prefix = `LIST-${process.pid}-${randomUUID().slice(0, 6)}`;
  /** The merchant's orders in the order they were created. */
  const made: Order[] = [];
  const byName: Record<string, Order> = {};

  const numbers = (orders: Order[]) => orders.map((order) => order.number);
  const names = (orders: Order[]) =>
    orders
      .map((order) => Object.keys(byName).find((name) => byName[name]!.number === order.number) ?? order.number)
      .sort();
  const list = (
    filters: Record<string, string | string[]>,
    page: { offset?: number; limit?: number; customerUuid?: string } = {},
  ) => merchant.client.orders.list({ limit: 1000, ...page, filters });
  const listNames = async (filters: Record<string, string | string[]>) => names((await list(filters)).orders);

  before(async () => {
    merchant = await server.newMerchant();
    other = await server.newMerchant();
    customerUuid = (
      await merchant.client.customers.create({ reference_number: reference('CUS'), name: 'Lister', phone: '1' })
    ).uuid;
    const { business_date: today } = await merchant.client.sandbox.clock();
    const plan: Array<[string, OrderInput, string?]> = [
      [
        'hkd100',
        {
          reference_number: `${prefix}-Alpha-hkd100`,
          currency: 'HKD',
          charge_fee: '100.00',
          due_date: today,
          note: 'window seat',
        },
        customerUuid,
      ],
      ['jpy100', { reference_number: `${prefix}-Beta-jpy100`, currency: 'JPY', charge_fee: '100' }],
      ['hkd99', { reference_number: `${prefix}-Gamma-hkd99`, currency: 'HKD', charge_fee: '99.99' }],
      ['jpy99', { reference_number: `${prefix}-Delta-jpy99`, currency: 'JPY', charge_fee: '99' }],
      ['paid', { reference_number: `${prefix}-Epsilon-paid`, currency: 'HKD', charge_fee: '21.00' }],
      ['partial', { reference_number: `${prefix}-Zeta-partial`, currency: 'HKD', charge_fee: '21.00' }],
      ['kwd', { reference_number: `${prefix}-eta-kwd`, currency: 'KWD', charge_fee: '100.001' }],
    ];
    for (const [name, input, customer] of plan) {
      const order = await merchant.client.orders.create(input, customer ? { customerUuid: customer } : {});
      made.push(order);
      byName[name] = order;
      // Distinct creation times, so that "newest first" has one answer.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await pay(merchant, byName.paid!.reference_number);
    await pay(merchant, byName.partial!.reference_number, '5.00');
    // Another merchant's orders look alike and must never show.
    await other.client.orders.create({
      reference_number: `${prefix}-Alpha-theirs`,
      currency: 'HKD',
      charge_fee: '100.00',
    });
    await other.client.orders.create({
      reference_number: `${prefix}-Beta-theirs`,
      currency: 'JPY',
      charge_fee: '1000',
    });
  });

  test('lists newest first, with the total, and pages with offset and limit', async () => {
    const all = await list({});
    assert.equal(all.total, made.length);
    assert.equal(all.offset, 0);
    assert.equal(all.limit, 1000);
    assert.deepEqual(numbers(all.orders), numbers([...made].reverse()));

    const paged: Order[] = [];
    for (let offset = 0; offset < made.length; offset += 3) {
      const page = await merchant.client.orders.list({ offset, limit: 3 });
      assert.equal(page.offset, offset);
      assert.equal(page.limit, 3);
      assert.equal(page.total, made.length);
      assert.ok(page.orders.length <= 3);
      paged.push(...page.orders);
    }
    assert.deepEqual(numbers(paged), numbers(all.orders));
    const beyond = await merchant.client.orders.list({ offset: 100 });
    assert.deepEqual(beyond.orders, []);
    assert.equal(beyond.total, made.length);
  });

  test('offset 0 and limit 20 by default; the listed orders are the full order objects', async () => {
    const page = await merchant.client.orders.list();
    assert.equal(page.offset, 0);
    assert.equal(page.limit, 20);
    const partial = page.orders.find((order) => order.number === byName.partial!.number)!;
    assert.deepEqual(partial, await merchant.client.orders.check({ order: { number: byName.partial!.number } }));
  });

  test('limit above 1000, limit 0 or a negative offset is refused (100207), naming the parameter', async () => {
    for (const [page, name] of [
      [{ limit: 1001 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ offset: -1 }, 'offset'],
    ] as const) {
      assertRefused(await refusal(merchant.client.orders.list(page)), 400, '100207', name);
    }
    assert.equal((await merchant.client.orders.list({ limit: 1000 })).limit, 1000);
  });

  test("customer_uuid and filter[customer.uuid][_eq] keep the customer's orders", async () => {
    const page = await merchant.client.orders.list({ customerUuid });
    assert.deepEqual(names(page.orders), ['hkd100']);
    assert.equal(page.total, 1);
    assert.equal(page.orders[0]!.customer_uuid, customerUuid);
    assert.deepEqual(await listNames({ 'filter[customer.uuid][_eq]': customerUuid }), ['hkd100']);
    assert.deepEqual(await listNames({ 'filter[customer.uuid][_null]': '1' }), [
      'hkd99',
      'jpy100',
      'jpy99',
      'kwd',
      'paid',
      'partial',
    ]);
    assert.equal((await merchant.client.orders.list({ customerUuid: randomUUID() })).total, 0);
  });

  test('filters on state (_eq) and correspondence_state (_in)', async () => {
    assert.deepEqual(await listNames({ 'filter[state][_eq]': 'completed' }), ['paid']);
    assert.deepEqual(await listNames({ 'filter[state][_eq]': 'in_completed' }), ['partial']);
    assert.deepEqual(await listNames({ 'filter[correspondence_state][_in]': 'partial_paid,paid' }), [
      'paid',
      'partial',
    ]);
    assert.deepEqual(await listNames({ 'filter[correspondence_state][_not_in]': 'unpaid' }), ['paid', 'partial']);
    assert.deepEqual(await listNames({ 'filter[state][_neq]': 'invoiced' }), ['paid', 'partial']);
    const page = await list({ 'filter[state][_eq]': 'invoiced' });
    assert.equal(page.total, 5);
  });

  test('filters on reference_number with _contains and _not_contains, case-sensitive', async () => {
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': '-Alpha-' }), ['hkd100']);
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': 'ta-' }), [
      'jpy100',
      'jpy99',
      'kwd',
      'partial',
    ]);
    assert.deepEqual(
      await listNames({ 'filter[reference_number][_contains]': '-eta-' }),
      ['kwd'],
      'not -Zeta-, not -Beta- (case)',
    );
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': '-Eta-' }), [], 'case-sensitive');
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': '-ALPHA-' }), []);
    assert.deepEqual(await listNames({ 'filter[reference_number][_not_contains]': 'hkd' }), [
      'jpy100',
      'jpy99',
      'kwd',
      'paid',
      'partial',
    ]);
    // Several filters must all hold; a repeated parameter too.
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': ['ta-', 'jpy'] }), ['jpy100', 'jpy99']);
    assert.deepEqual(
      await listNames({ 'filter[reference_number][_contains]': 'ta-', 'filter[currency][_eq]': 'HKD' }),
      ['partial'],
    );
    // Characters that mean something in SQL LIKE are plain text here.
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': '%' }), []);
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': '_' }), []);
  });

  test('filters on created_at with RFC 3339 times in any offset', async () => {
    const boundary = byName.hkd99!.created_at;
    const newer = ['hkd99', 'jpy99', 'kwd', 'paid', 'partial'];
    const older = ['hkd100', 'jpy100'];
    for (const offset of [0, 8 * 60, -5 * 60, 5 * 60 + 45]) {
      const at = atOffset(boundary, offset);
      assert.deepEqual(await listNames({ 'filter[created_at][_gte]': at }), newer, `_gte ${at}`);
      assert.deepEqual(await listNames({ 'filter[created_at][_lt]': at }), older, `_lt ${at}`);
    }
    assert.deepEqual(
      await listNames({
        'filter[created_at][_gte]': atOffset(byName.jpy100!.created_at, 8 * 60),
        'filter[created_at][_lt]': atOffset(byName.jpy99!.created_at, -3 * 60),
      }),
      ['hkd99', 'jpy100'],
    );
    assert.deepEqual(await listNames({ 'filter[created_at][_eq]': atOffset(byName.kwd!.created_at, 9 * 60) }), ['kwd']);
  });

  test('filters on money compare decimal amounts across currencies', async () => {
    assert.deepEqual(await listNames({ 'filter[initial_total][_gte]': '100' }), ['hkd100', 'jpy100', 'kwd']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_gte]': '100.00' }), ['hkd100', 'jpy100', 'kwd']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_lt]': '100' }), ['hkd99', 'jpy99', 'paid', 'partial']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_eq]': '100' }), ['hkd100', 'jpy100']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_gt]': '99.99' }), ['hkd100', 'jpy100', 'kwd']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_lte]': '99.99' }), [
      'hkd99',
      'jpy99',
      'paid',
      'partial',
    ]);
    assert.deepEqual(await listNames({ 'filter[initial_total][_gt]': '100.0001' }), ['kwd']);
    assert.deepEqual(await listNames({ 'filter[initial_total][_eq]': '99.5' }), []);
    assert.deepEqual(await listNames({ 'filter[paid_total][_gte]': '21' }), ['paid']);
    assert.deepEqual(await listNames({ 'filter[paid_total][_gt]': '0', 'filter[paid_total][_lt]': '21' }), ['partial']);
  });

  test('filters on due_date with _null, and on dates', async () => {
    assert.deepEqual(await listNames({ 'filter[due_date][_null]': '0' }), ['hkd100']);
    assert.deepEqual(await listNames({ 'filter[due_date][_null]': '1' }), [
      'hkd99',
      'jpy100',
      'jpy99',
      'kwd',
      'paid',
      'partial',
    ]);
    assert.deepEqual(await listNames({ 'filter[due_date][_gte]': byName.hkd100!.due_date! }), ['hkd100']);
    assert.deepEqual(await listNames({ 'filter[note][_contains]': 'window' }), ['hkd100']);
  });

  test('an unknown field, an operator the field does not take, or a value of the wrong form is refused (100207), naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['filter[colour][_eq]', 'red'],
      ['filter[customer_uuid][_eq]', 'x'],
      ['filter[state][_like]', 'x'],
      ['filter[state][_gt]', 'invoiced'],
      ['filter[reference_number][_lt]', 'x'],
      ['filter[initial_total][_contains]', '1'],
      ['filter[state][_eq]', 'paid'],
      ['filter[correspondence_state][_in]', 'paid,settled'],
      ['filter[created_at][_gte]', '2026-11-21T08:00:00'],
      ['filter[created_at][_gte]', '2026-11-21 08:00:00+08:00'],
      ['filter[created_at][_gte]', '1763683200000'],
      ['filter[initial_total][_gte]', '1e2'],
      ['filter[initial_total][_gte]', 'ten'],
      ['filter[due_date][_eq]', '31/12/2026'],
      ['filter[due_date][_null]', 'yes'],
      ['filter[state]', 'invoiced'],
    ];
    for (const [parameter, value] of cases) {
      const error = await refusal(list({ [parameter]: value }));
      assertRefused(error, 400, '100207', parameter);
    }
  });

  test('a date or time that does not exist (February 30) is refused (100207), naming the parameter', async () => {
    for (const [parameter, value] of [
      ['filter[due_date][_eq]', '2026-02-30'],
      ['filter[created_at][_gte]', '2026-02-30T00:00:00Z'],
    ] as const) {
      assertRefused(await refusal(list({ [parameter]: value })), 400, '100207', parameter);
    }
  });

  test(`more than ${MAX_CONDITIONS} filter conditions, or ${MAX_LIST_VALUES} values in one list, are refused (100207)`, async () => {
    const conditions = Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => `x${i}`);
    assertRefused(
      await refusal(list({ 'filter[note][_not_contains]': conditions })),
      400,
      '100207',
      `At most ${MAX_CONDITIONS} filter conditions`,
    );
    assert.equal((await list({ 'filter[note][_not_contains]': conditions.slice(1) })).total, made.length);
    const values = Array.from({ length: MAX_LIST_VALUES + 1 }, (_, i) => `R${i}`).join(',');
    assertRefused(
      await refusal(list({ 'filter[reference_number][_in]': values })),
      400,
      '100207',
      'filter[reference_number][_in]',
    );
  });

  test(`a page of more than ${MAX_LIST_PAGE_ROWS} line items and transactions is refused, naming the limit that fits`, async () => {
    const heavy = await server.newMerchant();
    const items = Array.from({ length: 500 }, (_, i) => ({
      purchasable_type: 'Charge',
      price: '1.00',
      quantity: 1,
      label: `Bowl ${i}`,
    }));
    const orders = MAX_LIST_PAGE_ROWS / 500 + 1;
    for (let i = 0; i < orders; i++) {
      await heavy.client.orders.create({
        reference_number: `HEAVY-${i}`,
        currency: 'HKD',
        charge_fee: '500.00',
        line_items: items,
      } as never);
    }
    const refused = await refusal(heavy.client.orders.list({ limit: 1000 }));
    assertRefused(
      refused,
      400,
      '100207',
      `This page would hold ${orders * 500} line items and transactions, more than ${MAX_LIST_PAGE_ROWS}: ask for limit=${orders - 1} or less.`,
    );
    const fitting = await heavy.client.orders.list({ limit: orders - 1 });
    assert.equal(fitting.orders.length, orders - 1);
    assert.equal(fitting.total, orders);
    assert.ok(fitting.orders.every((order) => order.line_items?.length === 500));
    assert.equal((await heavy.client.orders.list({ offset: orders - 1, limit: 1000 })).orders.length, 1);
  });

  test('_neq and _not_in keep the orders where the field is empty, as _not_contains does', async () => {
    const withoutCustomer = ['hkd99', 'jpy100', 'jpy99', 'kwd', 'paid', 'partial'];
    assert.deepEqual(await listNames({ 'filter[customer.uuid][_neq]': customerUuid }), withoutCustomer);
    assert.deepEqual(await listNames({ 'filter[customer.uuid][_not_in]': customerUuid }), withoutCustomer);
    assert.deepEqual(await listNames({ 'filter[note][_not_contains]': 'window' }), withoutCustomer);
    assert.deepEqual(await listNames({ 'filter[note][_neq]': 'window seat' }), withoutCustomer);
  });

  test("another merchant's orders never appear", async () => {
    const mine = await list({ 'filter[reference_number][_contains]': prefix });
    assert.equal(mine.total, made.length);
    assert.ok(mine.orders.every((order) => !order.reference_number.endsWith('-theirs')));
    assert.deepEqual(await listNames({ 'filter[reference_number][_contains]': 'theirs' }), []);
    const theirs = await other.client.orders.list({ limit: 1000 });
    assert.deepEqual(
      theirs.orders.map((order) => order.reference_number),
      [`${prefix}-Beta-theirs`, `${prefix}-Alpha-theirs`],
    );
    assert.equal(theirs.total, 2);
    assert.equal((await other.client.orders.list({ customerUuid })).total, 0);
  });
});

// ---- totals ----

describe('totals and states after payments', () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await server.newMerchant();
  });

  /** Stored paid_total, and the sum in minor units of the order's successful, unvoided sales and captures. */
  async function storedTotals(referenceNumber: string) {
    const row = await storedOrder(merchant.merchantId, referenceNumber);
    const transactions = await server.platform.db
      .selectFrom('transactions')
      .selectAll()
      .where('order_id', '=', row.id)
      .execute();
    const sum = transactions
      .filter((t) => t.status === 'succeeded' && Number(t.voided) === 0 && (t.type === 'Sales' || t.type === 'Capture'))
      .reduce((acc, t) => acc + Number(t.amount), 0);
    return { paidTotal: Number(row.paid_total), sum, state: row.state, correspondence: row.correspondence_state };
  }

  test('part payment, then over-payment: totals as decimal text, states follow, stored paid_total is the sum', async () => {
    const input = smallOrder({ charge_fee: '21.00' });
    await merchant.client.orders.create(input);

    const part = await pay(merchant, input.reference_number, '5.00');
    assert.equal(part.transaction.success, true);
    assert.equal(part.transaction.amount, 5);
    assert.equal(part.order.paid_total, '5.00');
    assert.equal(part.order.unpaid_total, '16.00');
    assert.equal(part.order.state, 'in_completed');
    assert.equal(part.order.correspondence_state, 'partial_paid');
    assert.equal(part.order.initial_total, 21);
    assert.deepEqual(await storedTotals(input.reference_number), {
      paidTotal: 500,
      sum: 500,
      state: 'in_completed',
      correspondence: 'partial_paid',
    });
    assert.deepEqual(
      await merchant.client.orders.check({ order: { reference_number: input.reference_number } }),
      part.order,
    );

    const over = await pay(merchant, input.reference_number, '20.00');
    assert.equal(over.transaction.success, true);
    assert.equal(over.order.paid_total, '25.00');
    assert.equal(over.order.unpaid_total, '-4.00');
    assert.equal(over.order.state, 'completed');
    assert.equal(over.order.correspondence_state, 'over_paid');
    assert.deepEqual(
      over.order.transactions.map((t) => [t.type, t.amount, t.success]),
      [
        ['Sales', 5, true],
        ['Sales', 20, true],
      ],
    );
    assert.deepEqual(await storedTotals(input.reference_number), {
      paidTotal: 2500,
      sum: 2500,
      state: 'completed',
      correspondence: 'over_paid',
    });
    assert.deepEqual(await merchant.client.orders.check({ transaction: { uuid: part.transaction.uuid } }), over.order);
  });

  test('without an amount the payment is for the unpaid total, which then is zero in the currency decimals', async () => {
    const input = smallOrder({ currency: 'KWD', charge_fee: '1.250' });
    await merchant.client.orders.create(input);
    const part = await pay(merchant, input.reference_number, '0.5');
    assert.equal(part.order.paid_total, '0.500');
    assert.equal(part.order.unpaid_total, '0.750');
    const rest = await pay(merchant, input.reference_number);
    assert.equal(rest.transaction.amount, 0.75);
    assert.equal(rest.order.paid_total, '1.250');
    assert.equal(rest.order.unpaid_total, '0.000');
    assert.equal(rest.order.state, 'completed');
    assert.equal(rest.order.correspondence_state, 'paid');
    assert.deepEqual(await storedTotals(input.reference_number), {
      paidTotal: 1250,
      sum: 1250,
      state: 'completed',
      correspondence: 'paid',
    });
  });

  test('JPY totals have no decimals', async () => {
    const input = smallOrder({ currency: 'JPY', charge_fee: 1250 });
    await merchant.client.orders.create(input);
    const part = await pay(merchant, input.reference_number, '250');
    assert.equal(part.order.paid_total, '250');
    assert.equal(part.order.unpaid_total, '1000');
    assert.deepEqual(await storedTotals(input.reference_number), {
      paidTotal: 250,
      sum: 250,
      state: 'in_completed',
      correspondence: 'partial_paid',
    });
  });
});
