import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { CardInput, PaygateClient, PaygateError } from '@paygate/client';
import { localDate } from '../../src/platform/time-zone.js';
import { CARDS, card, paidOrder as payNewOrder } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { serverWithMerchant, startTestServer, type TestServer } from '../support/server.js';

const DAY = 86_400;
const VISA: CardInput = card(CARDS.visa);

/** An order of `total` HKD, paid by card (a sale, or an authorisation), returning the transaction's uuid. */
async function paidOrder(client: PaygateClient, total: string, consumeMode: CardInput['consume_mode'] = 'sales') {
  const { order, transaction } = await payNewOrder(client, total, consumeMode);
  return { reference: order.reference_number, number: order.number, transaction: transaction.uuid };
}

describe('capture, void and refund', () => {
  let client: PaygateClient;
  serverWithMerchant((bed) => ({ client } = bed));

  test('a pre-authorisation holds the amount; capturing less takes only that, once', async () => {
    const { transaction: auth } = await paidOrder(client, '21.00', 'pre_authorize');
    let { order } = await client.transactions.check(auth);
    assert.deepEqual([order.state, order.correspondence_state, order.paid_total], ['invoiced', 'authorized', '0.00']);

    const captured = await client.transactions.capture(auth, '15.00');
    assert.equal(captured.transaction.type, 'Capture');
    assert.equal(captured.transaction.amount, 15);
    assert.equal(captured.transaction.success, true);
    assert.equal(captured.transaction.original_transaction_uuid, auth);
    assert.equal(captured.transaction.payment_data.last_4_digits, '4242');
    order = captured.order;
    assert.deepEqual(
      [order.state, order.correspondence_state, order.paid_total, order.unpaid_total],
      ['in_completed', 'partial_paid', '15.00', '6.00'],
    );
    const authorisation = order.transactions.find((t) => t.uuid === auth)!;
    assert.deepEqual([authorisation.captured, authorisation.allow_void], [true, false]);

    const twice = await refusal(client.transactions.capture(auth, '1.00'));
    assert.equal(twice.errorCode, '400205');
    assert.match(twice.message, /once/);
  });

  test('a capture of more than was authorised, or of what is no authorisation, is refused with its own code', async () => {
    const { transaction: auth } = await paidOrder(client, '10.00', 'pre_authorize');
    assert.equal((await refusal(client.transactions.capture(auth, '10.01'))).errorCode, '400206');
    const full = await client.transactions.capture(auth);
    assert.equal(full.transaction.amount, 10, 'without an amount the whole authorisation is captured');
    assert.equal(full.order.correspondence_state, 'paid');

    const { transaction: sale } = await paidOrder(client, '10.00');
    assert.equal((await refusal(client.transactions.capture(sale))).errorCode, '400205');
  });

  test('a sale voided before settlement is never taken: the order shows it', async () => {
    const { transaction: sale } = await paidOrder(client, '21.00');
    const voided = await client.transactions.void(sale);
    assert.deepEqual(
      [
        voided.transaction.voided,
        voided.transaction.allow_void,
        voided.transaction.allow_refund,
        voided.transaction.void_is_pending,
      ],
      [true, false, false, false],
    );
    assert.deepEqual(
      [voided.order.state, voided.order.correspondence_state, voided.order.paid_total],
      ['completed', 'voided', '0.00'],
    );
    assert.equal((await refusal(client.transactions.void(sale))).errorCode, '400202');
  });

  test('orders/void with a transaction voids the transaction, as the official SDK calls it', async () => {
    const { transaction: sale, number } = await paidOrder(client, '8.00');
    const reply = await client.call<{ order: { correspondence_state: string }; transaction: { voided: boolean } }>(
      'POST',
      '/svc/payment/api/v1/openapi/orders/void',
      { order: { number }, transaction: { uuid: sale } },
    );
    assert.equal(reply.transaction.voided, true);
    assert.equal(reply.order.correspondence_state, 'voided');
  });

  test('an open authorisation voided is released; one captured cannot be voided', async () => {
    const { transaction: auth } = await paidOrder(client, '30.00', 'pre_authorize');
    const released = await client.transactions.void(auth);
    assert.equal(released.transaction.voided, true);
    assert.deepEqual([released.order.state, released.order.correspondence_state], ['invoiced', 'unpaid']);
    assert.equal((await refusal(client.transactions.capture(auth))).errorCode, '400205');

    const { transaction: other } = await paidOrder(client, '30.00', 'pre_authorize');
    await client.transactions.capture(other, '30.00');
    const refused = await refusal(client.transactions.void(other));
    assert.equal(refused.errorCode, '400202');
    assert.match(refused.message, /captured/);
  });

  test('a refund before settlement is refused: void instead', async () => {
    const { transaction: sale } = await paidOrder(client, '21.00');
    const refused = await refusal(client.transactions.refund(sale, { amount: '1.00' }));
    assert.equal(refused.errorCode, '400203');
    assert.match(refused.message, /not settled/);
  });

  test('after settlement: no void, partial and repeated refunds up to what was captured, then refunded', async () => {
    const { transaction: sale } = await paidOrder(client, '21.00');
    await client.sandbox.advanceClock(DAY);
    const settled = (await client.transactions.check(sale)).transaction;
    assert.deepEqual([settled.allow_void, settled.allow_refund], [false, true]);
    assert.equal((await refusal(client.transactions.void(sale))).errorCode, '400202');

    const first = await client.transactions.refund(sale, { amount: '5.00', note: 'one dish missing' });
    assert.equal(first.transaction.type, 'Refund');
    assert.equal(first.transaction.note, 'one dish missing');
    assert.equal(first.transaction.original_transaction_uuid, sale);
    assert.deepEqual(
      [first.order.state, first.order.correspondence_state, first.order.paid_total],
      ['in_completed', 'partial_paid', '16.00'],
    );
    const second = await client.transactions.refund(sale, { amount: 6 });
    assert.equal(second.order.paid_total, '10.00');

    assert.equal((await refusal(client.transactions.refund(sale, { amount: '10.01' }))).errorCode, '400204');
    const last = await client.transactions.refund(sale, { amount: '10.00' });
    assert.deepEqual(
      [last.order.state, last.order.correspondence_state, last.order.paid_total, last.order.unpaid_total],
      ['completed', 'refunded', '0.00', '21.00'],
    );
    assert.equal(last.order.transactions.find((t) => t.uuid === sale)!.allow_refund, false);
    assert.equal((await refusal(client.transactions.refund(sale, { amount: '0.01' }))).errorCode, '400204');
  });

  test('refunding a captured authorisation refunds its capture', async () => {
    const { transaction: auth } = await paidOrder(client, '12.00', 'pre_authorize');
    const capture = (await client.transactions.capture(auth, '12.00')).transaction.uuid;
    await client.sandbox.advanceClock(DAY);
    assert.equal((await client.transactions.check(auth)).transaction.allow_refund, true);
    const refund = await client.transactions.refund(auth, { amount: '12.00' });
    assert.equal(refund.transaction.original_transaction_uuid, capture);
    assert.equal(refund.order.correspondence_state, 'refunded');
  });

  test('an unpaid order is voided as a whole; one with payments is not', async () => {
    const reference = `VOID-${randomUUID()}`;
    await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '9.00' });
    const voided = await client.orders.void({ reference_number: reference });
    assert.deepEqual([voided.state, voided.correspondence_state], ['voided', 'unpaid']);
    assert.equal((await refusal(client.orders.void({ reference_number: reference }))).errorCode, '400105');

    const { reference: paid } = await paidOrder(client, '9.00');
    assert.equal((await refusal(client.orders.void({ reference_number: paid }))).errorCode, '400107');
  });

  test('the transactions of an order are listed oldest first', async () => {
    const { transaction: sale } = await paidOrder(client, '20.00');
    await client.sandbox.advanceClock(DAY);
    const refund = await client.transactions.refund(sale, { amount: '1.00' });
    assert.deepEqual(
      refund.order.transactions.map((t) => t.type),
      ['Sales', 'Refund'],
    );
  });
});

describe('time: settlement, expiry and due dates on the business clock', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test("settlement happens at the merchant's settlement hour in its time zone, not before", async () => {
    const merchant = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    // The next 23:00 in Hong Kong (15:00 UTC) from business time `now`.
    const nextSettlement = (now: number) => {
      const today = Date.UTC(
        new Date(now).getUTCFullYear(),
        new Date(now).getUTCMonth(),
        new Date(now).getUTCDate(),
        15,
      );
      return today > now ? today : today + DAY * 1000;
    };
    let now = Date.parse((await merchant.client.sandbox.clock()).now);
    // Run a few minutes before 23:00, and the payment could settle before the first check: start past it.
    if (nextSettlement(now) - now < 10 * 60 * 1000)
      now = Date.parse((await merchant.client.sandbox.advanceClock(15 * 60)).now);
    const settlement = nextSettlement(now);
    const { transaction } = await paidOrder(merchant.client, '21.00');

    await merchant.client.sandbox.advanceClock(Math.floor((settlement - now) / 1000) - 60);
    assert.equal(
      (await merchant.client.transactions.check(transaction)).transaction.allow_void,
      true,
      'a minute before: not settled',
    );
    await merchant.client.sandbox.advanceClock(120);
    const after = (await merchant.client.transactions.check(transaction)).transaction;
    assert.deepEqual([after.allow_void, after.allow_refund], [false, true], 'a minute after: settled');
  });

  test('an authorisation not captured within 7 days expires', async () => {
    const merchant = await server.newMerchant();
    const { transaction: auth } = await paidOrder(merchant.client, '40.00', 'pre_authorize');
    await merchant.client.sandbox.advanceClock(7 * DAY - 60);
    assert.equal(
      (await merchant.client.transactions.check(auth)).transaction.allow_void,
      true,
      'still open a minute before',
    );
    await merchant.client.sandbox.advanceClock(120);
    const { order, transaction } = await merchant.client.transactions.check(auth);
    assert.deepEqual([transaction.voided, transaction.allow_void, transaction.captured], [true, false, false]);
    assert.deepEqual([order.state, order.correspondence_state], ['invoiced', 'unpaid']);
    const refused = await refusal(merchant.client.transactions.capture(auth));
    assert.equal(refused.errorCode, '400205');
    assert.match(refused.message, /expired/);
  });

  test('an order still unpaid when its due date is over is voided at local midnight; a part-paid one is not', async () => {
    const merchant = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    const clock = await merchant.client.sandbox.clock();
    const today = localDate(Date.parse(clock.now), 'Asia/Hong_Kong');
    const unpaid = `DUE-${randomUUID()}`;
    const partPaid = `DUE-${randomUUID()}`;
    await merchant.client.orders.create({
      reference_number: unpaid,
      currency: 'HKD',
      charge_fee: '10.00',
      due_date: today,
    });
    await merchant.client.orders.create({
      reference_number: partPaid,
      currency: 'HKD',
      charge_fee: '10.00',
      due_date: today,
    });
    await merchant.client.orders.pay({ reference_number: partPaid }, { amount: '4.00', credit_card: VISA });

    await merchant.client.sandbox.advanceClock(DAY);
    const voided = await merchant.client.orders.check({ order: { reference_number: unpaid } });
    assert.deepEqual([voided.state, voided.correspondence_state], ['voided', 'unpaid']);
    const kept = await merchant.client.orders.check({ order: { reference_number: partPaid } });
    assert.deepEqual([kept.state, kept.correspondence_state], ['in_completed', 'partial_paid']);
  });

  test("moving one merchant's clock moves no other's", async () => {
    const mover = await server.newMerchant();
    const bystander = await server.newMerchant();
    const before = await bystander.client.sandbox.clock();
    const moved = await mover.client.sandbox.advanceClock(3 * DAY);
    assert.equal(moved.offset_seconds >= 3 * DAY, true);
    const after = await bystander.client.sandbox.clock();
    assert.equal(after.offset_seconds, before.offset_seconds);
    const { transaction } = await paidOrder(bystander.client, '5.00');
    await mover.client.sandbox.advanceClock(DAY);
    assert.equal(
      (await bystander.client.transactions.check(transaction)).transaction.allow_void,
      true,
      'not settled by the other clock',
    );
  });

  test('the clock only moves forward, by a sane amount', async () => {
    const merchant = await server.newMerchant();
    for (const advance of [0, -1, 1.5, 400 * DAY + 1]) {
      const reply = await merchant.client.send('POST', '/svc/sandbox/api/v1/clock', { advance_seconds: advance });
      assert.equal(reply.status, 400, String(advance));
      assert.equal((reply.json as { error_code: string }).error_code, '100207');
    }
  });
});

describe('concurrent operations on one order', () => {
  let server: TestServer;
  let client: PaygateClient;
  before(async () => {
    server = await startTestServer();
    client = (await server.newMerchant()).client;
  });
  after(() => server.close());

  test('two refunds of one transaction at once cannot add up to more than was captured', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { transaction: sale } = await paidOrder(client, '10.00');
      await client.sandbox.advanceClock(DAY);
      const results = await Promise.allSettled([
        client.transactions.refund(sale, { amount: '6.00' }),
        client.transactions.refund(sale, { amount: '6.00' }),
      ]);
      const passed = results.filter((r) => r.status === 'fulfilled');
      assert.equal(passed.length, 1, JSON.stringify(results.map((r) => r.status)));
      const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal((failed.reason as PaygateError).errorCode, '400204');
      assert.equal((await client.transactions.check(sale)).order.paid_total, '4.00');
    }
  });

  test('two captures of one authorisation at once: one passes', async () => {
    const { transaction: auth } = await paidOrder(client, '10.00', 'pre_authorize');
    const results = await Promise.allSettled([client.transactions.capture(auth), client.transactions.capture(auth)]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((failed.reason as PaygateError).errorCode, '400205');
  });

  test('five payments of the unpaid total at once: one pays, the others find nothing left', async () => {
    const reference = `RACE-${randomUUID()}`;
    await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '25.00' });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => client.orders.pay({ reference_number: reference }, { credit_card: VISA })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      assert.equal((result.reason as PaygateError).errorCode, '400106');
    }
    const order = await client.orders.check({ order: { reference_number: reference } });
    assert.deepEqual([order.paid_total, order.correspondence_state], ['25.00', 'paid']);
  });
});

describe("another merchant's transactions", () => {
  test('cannot be read, captured, voided or refunded: they look missing', async () => {
    const server = await startTestServer();
    try {
      const owner = await server.newMerchant();
      const stranger = await server.newMerchant();
      const { transaction: auth } = await paidOrder(owner.client, '10.00', 'pre_authorize');
      const missing = await refusal(stranger.client.transactions.check(randomUUID()));
      for (const attempt of [
        () => stranger.client.transactions.check(auth),
        () => stranger.client.transactions.capture(auth),
        () => stranger.client.transactions.void(auth),
        () => stranger.client.transactions.refund(auth, { amount: '1.00' }),
      ]) {
        const error = await refusal(attempt());
        assert.deepEqual(
          [error.status, error.errorCode, error.message],
          [missing.status, missing.errorCode, missing.message],
        );
      }
      assert.equal((await owner.client.transactions.check(auth)).transaction.voided, false, 'untouched');
    } finally {
      await server.close();
    }
  });
});

describe('live mode', () => {
  test('has no sandbox routes, and refuses card payments while no acquirer is configured', async () => {
    const server = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'cd'.repeat(32) } });
    try {
      const merchant = await server.newMerchant();
      const clock = await merchant.client.send('GET', '/svc/sandbox/api/v1/clock');
      assert.equal(clock.status, 404);
      const reference = `LIVE-${randomUUID()}`;
      await merchant.client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '1.00' });
      const refused = await refusal(merchant.client.orders.pay({ reference_number: reference }, { credit_card: VISA }));
      assert.deepEqual([refused.status, refused.errorCode], [503, '400301']);
    } finally {
      await server.close();
    }
  });

  test('refuses a callback_url on this machine or a private network, however it is spelled', async () => {
    const server = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'cd'.repeat(32) } });
    try {
      const merchant = await server.newMerchant();
      for (const url of [
        'http://localhost./hook',
        'http://LOCALHOST/hook',
        'http://[::ffff:0:7f00:1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://10.0.0.7/',
        'http://169.254.169.254/',
      ]) {
        const error = await refusal(
          merchant.client.orders.create({
            reference_number: `LIVE-${randomUUID()}`,
            currency: 'HKD',
            charge_fee: '1.00',
            callback_url: url,
          }),
        );
        assert.deepEqual([error.status, error.errorCode], [400, '100207'], url);
        assert.match(error.message, /order\.callback_url must not point at an internal address/, url);
      }
      const accepted = await merchant.client.orders.create({
        reference_number: `LIVE-${randomUUID()}`,
        currency: 'HKD',
        charge_fee: '1.00',
        callback_url: 'https://shop.example/hook',
      });
      assert.equal(accepted.notify_url, 'https://shop.example/hook');
    } finally {
      await server.close();
    }
  });
});
