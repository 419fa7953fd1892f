import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import {
  type CardInput,
  type Order,
  type OrderWithTransaction,
  type PaygateClient,
  PaygateError,
  type Transaction,
} from '@paygate/client';
import { CARDS, card, futureExpiry } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { serverWithMerchant, signedRaw, type TestMerchant, type TestServer } from '../support/server.js';

// Paying an order by card through POST /open_payments, against the sandbox acquirer (docs/orders.md "Paying by
// card", docs/sandbox.md): replies, and what is stored in transactions, orders and sandbox_acquirer_operations.

const OPEN_PAYMENTS = '/svc/payment/api/v1/openapi/open_payments';

const reference = (label: string) => `PAY-${label}-${randomUUID()}`;

async function assertRefused(
  promise: Promise<unknown>,
  expected: { status: number; errorCode: string; message?: RegExp },
): Promise<PaygateError> {
  const error = await refusal(promise);
  assert.deepEqual(
    { status: error.status, errorCode: error.errorCode },
    { status: expected.status, errorCode: expected.errorCode },
    error.message,
  );
  if (expected.message) assert.match(error.message, expected.message);
  return error;
}

function assertOrderStates(
  order: Order,
  expected: { state: string; correspondence: string; paid: string; unpaid: string },
): void {
  assert.deepEqual(
    {
      state: order.state,
      correspondence: order.correspondence_state,
      paid: order.paid_total,
      unpaid: order.unpaid_total,
    },
    expected,
  );
}

const UNPAID = (total: string) => ({ state: 'invoiced', correspondence: 'unpaid', paid: '0.00', unpaid: total });
const PAID = (total: string) => ({ state: 'completed', correspondence: 'paid', paid: total, unpaid: '0.00' });

describe('paying an order by card', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  serverWithMerchant((bed) => ({ server, merchant, client } = bed));

  // ---- helpers bound to the server ----

  /** A fresh HKD order of `total`, by a unique reference. */
  async function newOrder(total = '20.00', who: PaygateClient = client): Promise<{ reference: string; order: Order }> {
    const ref = reference('O');
    const order = await who.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: total });
    return { reference: ref, order };
  }

  async function pay(
    ref: string,
    payment: Parameters<PaygateClient['orders']['pay']>[1],
    who: PaygateClient = client,
  ): Promise<OrderWithTransaction> {
    return who.orders.pay({ reference_number: ref }, payment);
  }

  /** A signed payment of HKD 5.00 by card for order `ref` under Idempotency-Key `key`: each call sends it again. */
  const keyedPayment = (ref: string, key: string) => {
    const body = JSON.stringify({ reference_number: ref, payment: { amount: '5.00', credit_card: card(CARDS.visa) } });
    return () =>
      signedRaw(server.url, merchant, {
        method: 'POST',
        target: OPEN_PAYMENTS,
        body,
        at: server.clock.now(),
        headers: { 'idempotency-key': key },
      });
  };

  /** A refusal as `status code`, anything else as its text. */
  const refusalText = (reason: unknown) =>
    reason instanceof PaygateError ? `${reason.status} ${reason.errorCode}` : String(reason);

  const storedTransaction = (uuid: string) =>
    server.platform.db.selectFrom('transactions').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  const storedOrder = (number: string) =>
    server.platform.db
      .selectFrom('orders')
      .selectAll()
      .where('merchant_id', '=', merchant.merchantId)
      .where('number', '=', number)
      .executeTakeFirstOrThrow();
  const acquirerOperations = (ref: string) =>
    server.platform.db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', ref).execute();

  async function assertStoredOrder(
    number: string,
    expected: { state: string; correspondence: string; paidMinor: number },
  ): Promise<void> {
    const row = await storedOrder(number);
    assert.deepEqual(
      { state: row.state, correspondence: row.correspondence_state, paidMinor: Number(row.paid_total) },
      expected,
    );
  }

  // ---- 1. the sandbox's magic cards ----

  describe('the sandbox cards, each as a sale on a fresh order', () => {
    const approved: Array<[string, string, string]> = [
      ['Visa', CARDS.visa, 'VISA'],
      ['Visa, sent with spaces', '4242 4242 4242 4242', 'VISA'],
      ['Mastercard', CARDS.mastercard, 'MASTERCARD'],
      ['JCB', CARDS.jcb, 'JCB'],
    ];
    for (const [label, number, brand] of approved) {
      test(`${label} is approved and captured, pays the order, and shows the acquirer's payment_data`, async () => {
        const { reference: ref, order: created } = await newOrder('20.00');
        const { order, transaction } = await pay(ref, { credit_card: card(number) });
        const digits = number.replace(/ /g, '');

        assert.equal(transaction.type, 'Sales');
        assert.equal(transaction.amount, 20);
        assert.equal(transaction.currency, 'HKD');
        assert.deepEqual(
          {
            success: transaction.success,
            captured: transaction.captured,
            pending: transaction.is_pending,
            voided: transaction.voided,
          },
          { success: true, captured: true, pending: false, voided: false },
        );
        assert.equal(transaction.payment_method, 'credit_card');
        assert.equal(transaction['3ds'], undefined);

        const data = transaction.payment_data;
        for (const field of [
          'acquirer_name',
          'acquirer_type',
          'receipt_id',
          'new_gateway_txn_id',
          'brn',
          'merchant_id',
          'card_read_mode',
          'resp_msg',
        ] as const) {
          assert.equal(typeof data[field], 'string', field);
          assert.ok((data[field] as string).length > 0, `${field} is filled`);
        }
        assert.match(data.auth_code ?? '', /^[0-9A-Z]{6}$/);
        assert.match(data.rrn ?? '', /^\d{12}$/);
        assert.deepEqual(
          {
            first6: data.first_6_digits,
            last4: data.last_4_digits,
            length: data.card_number_len,
            type: data.credit_card_type,
            holder: data.holder_name,
            month: data.exp_month,
            year: data.exp_year,
            code: data.resp_code,
            state: data.transaction_state,
          },
          {
            first6: digits.slice(0, 6),
            last4: digits.slice(-4),
            length: 16,
            type: brand,
            holder: 'Chan Tai Man',
            month: '12',
            year: futureExpiry().exp_year,
            code: '00',
            state: 'APPROVED',
          },
        );

        assert.equal(order.number, created.number);
        assertOrderStates(order, PAID('20.00'));
        assert.deepEqual(
          order.transactions.map((t) => t.uuid),
          [transaction.uuid],
        );

        const row = await storedTransaction(transaction.uuid);
        assert.deepEqual(
          {
            status: row.status,
            progress: row.progress,
            captured: Number(row.captured),
            amount: Number(row.amount),
            type: row.type,
          },
          { status: 'succeeded', progress: 'done', captured: 1, amount: 2000, type: 'Sales' },
        );
        await assertStoredOrder(order.number, { state: 'completed', correspondence: 'paid', paidMinor: 2000 });
        const operations = await acquirerOperations(transaction.uuid);
        assert.equal(operations.length, 1);
        assert.deepEqual(
          {
            kind: operations[0]!.kind,
            status: operations[0]!.status,
            auth: operations[0]!.auth_code,
            rrn: operations[0]!.rrn,
            last4: operations[0]!.card_last4,
          },
          { kind: 'sale', status: 'approved', auth: data.auth_code, rrn: data.rrn, last4: digits.slice(-4) },
        );
      });
    }

    const declined: Array<[string, string, string]> = [
      [CARDS.doNotHonour, '05', 'Do not honour'],
      [CARDS.insufficientFunds, '51', 'Insufficient funds'],
      // Binds as a payment token, but no charge of it goes through, by token or by number.
      [CARDS.bindsThenDeclines, '51', 'Insufficient funds'],
      [CARDS.expiredCard, '54', 'Expired card'],
      [CARDS.incorrectCvv, 'N7', 'Incorrect CVV'],
    ];
    for (const [number, code, message] of declined) {
      test(`…${number.slice(-4)} is declined with ${code} (a 200 with the transaction recorded), and the order stays unpaid`, async () => {
        const { reference: ref } = await newOrder('20.00');
        const { order, transaction } = await pay(ref, { credit_card: card(number) });

        assert.deepEqual(
          {
            success: transaction.success,
            pending: transaction.is_pending,
            captured: transaction.captured,
            allowVoid: transaction.allow_void,
          },
          { success: false, pending: false, captured: false, allowVoid: false },
        );
        assert.deepEqual(
          {
            code: transaction.payment_data.resp_code,
            message: transaction.payment_data.resp_msg,
            state: transaction.payment_data.transaction_state,
          },
          { code, message, state: 'DECLINED' },
        );
        assert.equal(transaction.payment_data.auth_code, undefined, 'a decline has no auth code');
        assertOrderStates(order, UNPAID('20.00'));

        assert.equal((await storedTransaction(transaction.uuid)).status, 'failed');
        await assertStoredOrder(order.number, { state: 'invoiced', correspondence: 'unpaid', paidMinor: 0 });
        const operations = await acquirerOperations(transaction.uuid);
        assert.deepEqual(
          operations.map((o) => [o.status, o.response_code]),
          [['declined', code]],
        );
      });
    }

    test('…0119 is an acquirer fault: 96 "System malfunction", nothing charged, and a retry with a good card pays', async () => {
      const { reference: ref } = await newOrder('20.00');
      const { order, transaction } = await pay(ref, { credit_card: card(CARDS.fault) });
      assert.deepEqual(
        {
          success: transaction.success,
          pending: transaction.is_pending,
          code: transaction.payment_data.resp_code,
          message: transaction.payment_data.resp_msg,
        },
        { success: false, pending: false, code: '96', message: 'System malfunction' },
      );
      assert.equal(transaction.payment_data.transaction_state, 'FAILED');
      assertOrderStates(order, UNPAID('20.00'));
      assert.equal((await storedTransaction(transaction.uuid)).status, 'failed');
      await assertStoredOrder(order.number, { state: 'invoiced', correspondence: 'unpaid', paidMinor: 0 });
      assert.deepEqual(
        (await acquirerOperations(transaction.uuid)).map((o) => [o.status, o.auth_code]),
        [['failed', null]],
      );

      const retry = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(retry.transaction.amount, 20, 'the failed attempt held nothing');
      assertOrderStates(retry.order, PAID('20.00'));
    });

    test('…3220 waits for 3-D Secure; passing the challenge pays the order', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge) });
      assert.deepEqual(
        {
          success: pending.transaction.success,
          pending: pending.transaction.is_pending,
          state: pending.transaction.payment_data.transaction_state,
        },
        { success: false, pending: true, state: 'PENDING' },
      );
      const threeDs = pending.transaction['3ds'];
      assert.ok(threeDs, '3ds is shown while the challenge is pending');
      assert.equal(typeof threeDs.enrolled, 'string');
      assert.ok(threeDs.enrolled.length > 0);
      assert.match(threeDs.redirect_url, /^https?:\/\/\S+$/);
      assertOrderStates(pending.order, UNPAID('20.00'));
      assert.equal((await storedTransaction(pending.transaction.uuid)).status, 'pending');
      await assertStoredOrder(pending.order.number, { state: 'invoiced', correspondence: 'unpaid', paidMinor: 0 });

      const passed = await client.sandbox.succeed(pending.transaction.uuid);
      assert.equal(passed.transaction.uuid, pending.transaction.uuid);
      assert.deepEqual(
        {
          success: passed.transaction.success,
          pending: passed.transaction.is_pending,
          captured: passed.transaction.captured,
        },
        { success: true, pending: false, captured: true },
      );
      assert.equal(passed.transaction['3ds'], undefined, '3ds is gone once the challenge is over');
      assert.equal(passed.transaction.payment_data.resp_code, '00');
      assert.equal(passed.transaction.payment_data.transaction_state, 'APPROVED');
      assert.match(passed.transaction.payment_data.auth_code ?? '', /^[0-9A-Z]{6}$/);
      assert.equal(
        passed.transaction.payment_data.rrn,
        pending.transaction.payment_data.rrn,
        'the same transaction keeps its rrn',
      );
      assertOrderStates(passed.order, PAID('20.00'));
      const row = await storedTransaction(pending.transaction.uuid);
      assert.deepEqual([row.status, Number(row.captured)], ['succeeded', 1]);
      await assertStoredOrder(passed.order.number, { state: 'completed', correspondence: 'paid', paidMinor: 2000 });
      assert.deepEqual(
        (await acquirerOperations(pending.transaction.uuid)).map((o) => o.status),
        ['approved'],
      );
    });

    test('…3220 failing the challenge declines with 05, releases the hold, and leaves the order unpaid', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge) });
      assert.equal(pending.transaction.is_pending, true);

      const failed = await client.sandbox.fail(pending.transaction.uuid);
      assert.deepEqual(
        {
          success: failed.transaction.success,
          pending: failed.transaction.is_pending,
          code: failed.transaction.payment_data.resp_code,
          state: failed.transaction.payment_data.transaction_state,
        },
        { success: false, pending: false, code: '05', state: 'DECLINED' },
      );
      assert.equal(failed.transaction['3ds'], undefined);
      assertOrderStates(failed.order, UNPAID('20.00'));
      assert.equal((await storedTransaction(pending.transaction.uuid)).status, 'failed');
      await assertStoredOrder(failed.order.number, { state: 'invoiced', correspondence: 'unpaid', paidMinor: 0 });

      const next = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(next.transaction.amount, 20, 'the failed challenge no longer holds anything');
    });

    test('succeed or fail on a transaction that is not waiting is refused with 400208, and changes nothing', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { amount: '5.00', credit_card: card(CARDS.challenge) });
      await client.sandbox.succeed(pending.transaction.uuid);
      await assertRefused(client.sandbox.succeed(pending.transaction.uuid), { status: 400, errorCode: '400208' });
      await assertRefused(client.sandbox.fail(pending.transaction.uuid), { status: 400, errorCode: '400208' });

      const otherPending = await pay(ref, { amount: '5.00', credit_card: card(CARDS.challenge) });
      await client.sandbox.fail(otherPending.transaction.uuid);
      await assertRefused(client.sandbox.succeed(otherPending.transaction.uuid), { status: 400, errorCode: '400208' });
      await assertRefused(client.sandbox.fail(otherPending.transaction.uuid), { status: 400, errorCode: '400208' });

      const sale = await pay(ref, { amount: '5.00', credit_card: card(CARDS.visa) });
      await assertRefused(client.sandbox.succeed(sale.transaction.uuid), { status: 400, errorCode: '400208' });
      const declined = await pay(ref, { amount: '5.00', credit_card: card(CARDS.doNotHonour) });
      await assertRefused(client.sandbox.succeed(declined.transaction.uuid), { status: 400, errorCode: '400208' });

      const { order } = await client.transactions.check(otherPending.transaction.uuid);
      assertOrderStates(order, {
        state: 'in_completed',
        correspondence: 'partial_paid',
        paid: '10.00',
        unpaid: '10.00',
      });
      assert.equal((await storedTransaction(otherPending.transaction.uuid)).status, 'failed');
    });

    test('succeed and fail at once: one is applied, the other is refused with 400208', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge) });
      const results = await Promise.allSettled([
        client.sandbox.succeed(pending.transaction.uuid),
        client.sandbox.fail(pending.transaction.uuid),
      ]);
      const outcomes = results.map((r) =>
        r.status === 'fulfilled'
          ? `200 success=${r.value.transaction.success}`
          : r.reason instanceof PaygateError
            ? `${r.reason.status} ${r.reason.errorCode}`
            : String(r.reason),
      );
      assert.equal(outcomes.filter((o) => o === '400 400208').length, 1, outcomes.join(' | '));
      const final = (await client.transactions.check(pending.transaction.uuid)).transaction;
      assert.ok(
        outcomes.includes(`200 success=${final.success}`),
        `${outcomes.join(' | ')}; stored success=${final.success}`,
      );
    });

    test('succeed or fail on an unknown transaction uuid is 404 400201', async () => {
      await assertRefused(client.sandbox.succeed(randomUUID()), { status: 404, errorCode: '400201' });
      await assertRefused(client.sandbox.fail(randomUUID()), { status: 404, errorCode: '400201' });
      await assertRefused(client.sandbox.succeed('not-a-uuid'), { status: 404, errorCode: '400201' });
    });
  });

  describe('card forms', () => {
    test('expiry as JSON numbers and a two-digit year are taken; holder name and CVV may be left out', async () => {
      const { reference: ref } = await newOrder('20.00');
      const twoDigitYear = futureExpiry().exp_year.slice(2);
      const { transaction } = await pay(ref, {
        note: 'table 7',
        credit_card: { number: '4242-4242-4242-4242', exp_month: 1, exp_year: Number(twoDigitYear) },
      });
      assert.equal(transaction.success, true);
      assert.equal(transaction.note, 'table 7');
      assert.deepEqual(
        {
          month: transaction.payment_data.exp_month,
          year: transaction.payment_data.exp_year,
          holder: transaction.payment_data.holder_name,
          last4: transaction.payment_data.last_4_digits,
        },
        { month: '01', year: `20${twoDigitYear}`, holder: undefined, last4: '4242' },
      );
    });
  });

  // ---- 2. determinism ----

  describe('determinism', () => {
    test("a transaction's auth_code and rrn are the same on every read", async () => {
      const { reference: ref } = await newOrder('20.00');
      const paid = await pay(ref, { credit_card: card(CARDS.visa) });
      const { auth_code: authCode, rrn } = paid.transaction.payment_data;
      assert.ok(authCode && rrn);

      const reads: Transaction[] = [];
      for (let i = 0; i < 2; i += 1) {
        reads.push((await client.transactions.check(paid.transaction.uuid)).transaction);
        reads.push((await client.orders.check({ order: { reference_number: ref } })).transactions[0]!);
        reads.push((await client.orders.check({ transaction: { uuid: paid.transaction.uuid } })).transactions[0]!);
      }
      for (const read of reads) {
        assert.equal(read.uuid, paid.transaction.uuid);
        assert.deepEqual([read.payment_data.auth_code, read.payment_data.rrn], [authCode, rrn]);
        assert.deepEqual(read.payment_data, paid.transaction.payment_data);
      }
    });

    test('two transactions get different auth codes and rrns', async () => {
      const first = await pay((await newOrder()).reference, { credit_card: card(CARDS.visa) });
      const second = await pay((await newOrder()).reference, { credit_card: card(CARDS.visa) });
      assert.notEqual(first.transaction.payment_data.rrn, second.transaction.payment_data.rrn);
      assert.notEqual(first.transaction.payment_data.auth_code, second.transaction.payment_data.auth_code);
    });
  });

  // ---- 3. invalid input ----

  describe('invalid input', () => {
    let ref: string;
    let number: string;
    before(async () => {
      ({
        reference: ref,
        order: { number },
      } = await newOrder('20.00'));
    });

    const thisYear = new Date().getUTCFullYear();
    const invalidCards: Array<[string, Partial<CardInput>, string]> = [
      ['a number failing the Luhn check', { number: '4242424242424241' }, 'payment.credit_card.number'],
      ['a number with too few digits', { number: '42424242424' }, 'payment.credit_card.number'],
      ['month 13', { exp_month: '13' }, 'payment.credit_card.exp_month'],
      ['month 0', { exp_month: '0' }, 'payment.credit_card.exp_month'],
      ['an expiry a year ago', { exp_year: String(thisYear - 1) }, 'payment.credit_card.exp_year'],
      ['a 3-digit exp_year', { exp_year: '203' }, 'payment.credit_card.exp_year'],
      ['a 2-digit cvv', { cvv: '12' }, 'payment.credit_card.cvv'],
      ['a cvv that is not digits', { cvv: '12a' }, 'payment.credit_card.cvv'],
    ];
    for (const [label, change, field] of invalidCards) {
      test(`${label} is refused with 400 100207 naming ${field}, and nothing is recorded`, async () => {
        const error = await assertRefused(pay(ref, { credit_card: card(CARDS.visa, change) }), {
          status: 400,
          errorCode: '100207',
        });
        assert.ok(error.message.includes(field), `"${error.message}" names ${field}`);
        assert.deepEqual((await client.orders.check({ order: { number } })).transactions, []);
      });
    }

    test('a payment with no card at all is refused with 400209', async () => {
      await assertRefused(pay(ref, {}), { status: 400, errorCode: '400209' });
      await assertRefused(pay(ref, { amount: '1.00' }), { status: 400, errorCode: '400209' });
    });

    test('an order that does not exist is 404 400101', async () => {
      await assertRefused(pay(reference('missing'), { credit_card: card(CARDS.visa) }), {
        status: 404,
        errorCode: '400101',
      });
      await assertRefused(client.orders.pay({ number: '999999999999999999' }, { credit_card: card(CARDS.visa) }), {
        status: 404,
        errorCode: '400101',
      });
    });

    test('a payment naming no order (neither number nor reference_number) is refused with 400109', async () => {
      await assertRefused(client.orders.pay({}, { credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '400109',
      });
    });

    test('an amount with more decimals than the currency has is refused with 400 naming payment.amount', async () => {
      const error = await assertRefused(pay(ref, { amount: '5.001', credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '100207',
      });
      assert.match(error.message, /payment\.amount/);
      assert.deepEqual((await client.orders.check({ order: { number } })).transactions, []);
    });

    test('an amount in exponent notation or a JSON number with too many decimals is refused with 400', async () => {
      for (const amount of ['1e1', 5.001]) {
        const error = await refusal(pay(ref, { amount, credit_card: card(CARDS.visa) }));
        assert.deepEqual([error.status, error.errorCode], [400, '100207'], `${amount}: ${error.message}`);
      }
      assert.deepEqual((await client.orders.check({ order: { number } })).transactions, []);
    });

    test('a zero or negative amount is refused', async () => {
      for (const amount of ['0.00', '-5.00']) {
        const error = await refusal(pay(ref, { amount, credit_card: card(CARDS.visa) }));
        assert.equal(error.status, 400, `${amount}: ${error.errorCode} ${error.message}`);
      }
      assert.deepEqual((await client.orders.check({ order: { number } })).transactions, []);
    });
  });

  // ---- 4. amounts ----

  describe('amounts', () => {
    test('without amount a payment is for the unpaid total', async () => {
      const { reference: ref } = await newOrder('37.50');
      const { order, transaction } = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(transaction.amount, 37.5);
      assertOrderStates(order, PAID('37.50'));
    });

    test('part, then the rest, then nothing left (400106), then an explicit amount over-pays', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');

      const part = await pay(ref, { amount: '5.00', credit_card: card(CARDS.visa) });
      assert.equal(part.transaction.amount, 5);
      assertOrderStates(part.order, {
        state: 'in_completed',
        correspondence: 'partial_paid',
        paid: '5.00',
        unpaid: '15.00',
      });
      await assertStoredOrder(created.number, {
        state: 'in_completed',
        correspondence: 'partial_paid',
        paidMinor: 500,
      });

      const rest = await pay(ref, { credit_card: card(CARDS.mastercard) });
      assert.equal(rest.transaction.amount, 15);
      assertOrderStates(rest.order, PAID('20.00'));

      await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }), { status: 400, errorCode: '400106' });

      const over = await pay(ref, { amount: '1.00', credit_card: card(CARDS.visa) });
      assert.equal(over.transaction.success, true);
      assertOrderStates(over.order, {
        state: 'completed',
        correspondence: 'over_paid',
        paid: '21.00',
        unpaid: '-1.00',
      });
      await assertStoredOrder(created.number, { state: 'completed', correspondence: 'over_paid', paidMinor: 2100 });
      assert.deepEqual(
        over.order.transactions.map((t) => t.amount),
        [5, 15, 1],
        'oldest first',
      );
    });

    test('amounts follow the currency: JPY has no decimals, KWD three', async () => {
      const yen = reference('JPY');
      await client.orders.create({ reference_number: yen, currency: 'JPY', charge_fee: '1250' });
      const part = await pay(yen, { amount: '250', credit_card: card(CARDS.visa) });
      assert.deepEqual([part.transaction.amount, part.order.paid_total, part.order.unpaid_total], [250, '250', '1000']);
      await assertRefused(pay(yen, { amount: '12.5', credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '100207',
        message: /payment\.amount/,
      });
      const rest = await pay(yen, { credit_card: card(CARDS.visa) });
      assert.deepEqual(
        [rest.transaction.amount, rest.order.paid_total, rest.order.correspondence_state],
        [1000, '1250', 'paid'],
      );

      const dinar = reference('KWD');
      await client.orders.create({ reference_number: dinar, currency: 'KWD', charge_fee: '10.000' });
      const kwd = await pay(dinar, { amount: '1.125', credit_card: card(CARDS.visa) });
      assert.deepEqual(
        [kwd.transaction.amount, kwd.order.paid_total, kwd.order.unpaid_total],
        [1.125, '1.125', '8.875'],
      );
    });

    test("an order's payments stop at the largest total (15 digits of minor units): paid_total is never rounded", async () => {
      const { reference: ref } = await newOrder('9999999999999.99');
      const paid = await pay(ref, { credit_card: card(CARDS.visa) });
      assertOrderStates(paid.order, PAID('9999999999999.99'));
      const error = await assertRefused(pay(ref, { amount: '0.01', credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '100207',
      });
      assert.match(error.message, /payment\.amount would take this order's payments past 9999999999999\.99 HKD/);
      const parts = await newOrder('9999999999999.99');
      await pay(parts.reference, { amount: '9999999999999.91', credit_card: card(CARDS.visa) });
      await assertRefused(pay(parts.reference, { amount: '9999999999999.91', credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '100207',
      });
      const order = await client.orders.check({ order: { reference_number: parts.reference } });
      assert.deepEqual([order.paid_total, order.transactions.length], ['9999999999999.91', 1]);
    });

    test('an amount may be a JSON number', async () => {
      const { reference: ref } = await newOrder('20.00');
      const { transaction, order } = await pay(ref, { amount: 7.5, credit_card: card(CARDS.visa) });
      assert.equal(transaction.amount, 7.5);
      assert.equal(order.paid_total, '7.50');
    });

    test('a pending 3-D Secure payment holds its amount: a payment without amount takes only what is left', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { amount: '8.00', credit_card: card(CARDS.challenge) });
      assert.equal(pending.transaction.is_pending, true);

      const rest = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(rest.transaction.amount, 12);
      assertOrderStates(rest.order, {
        state: 'in_completed',
        correspondence: 'partial_paid',
        paid: '12.00',
        unpaid: '8.00',
      });
      await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }), { status: 400, errorCode: '400106' });

      const passed = await client.sandbox.succeed(pending.transaction.uuid);
      assertOrderStates(passed.order, PAID('20.00'));
    });

    test('a pending 3-D Secure payment of everything: a payment without amount is refused with 400106 until it fails', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge) });
      assert.equal(pending.transaction.amount, 20);
      await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }), { status: 400, errorCode: '400106' });
      const order = await client.orders.check({ order: { number: created.number } });
      assert.equal(order.transactions.length, 1, 'the refused payment left nothing');

      await client.sandbox.fail(pending.transaction.uuid);
      const after = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(after.transaction.amount, 20);
    });
  });

  // ---- 5. pre-authorisation ----

  describe('pre-authorisation', () => {
    for (const mode of ['pre_authorize', 'preauth'] as const) {
      test(`consume_mode ${mode} authorises without capturing, and holds the amount`, async () => {
        const { reference: ref, order: created } = await newOrder('20.00');
        const { order, transaction } = await pay(ref, { credit_card: card(CARDS.visa, { consume_mode: mode }) });
        assert.deepEqual(
          {
            type: transaction.type,
            success: transaction.success,
            captured: transaction.captured,
            pending: transaction.is_pending,
            amount: transaction.amount,
          },
          { type: 'Authorization', success: true, captured: false, pending: false, amount: 20 },
        );
        assert.equal(transaction.payment_data.transaction_state, 'APPROVED');
        assert.match(transaction.payment_data.auth_code ?? '', /^[0-9A-Z]{6}$/);
        assertOrderStates(order, { state: 'invoiced', correspondence: 'authorized', paid: '0.00', unpaid: '20.00' });

        const row = await storedTransaction(transaction.uuid);
        assert.deepEqual([row.type, row.status, Number(row.captured)], ['Authorization', 'succeeded', 0]);
        await assertStoredOrder(created.number, { state: 'invoiced', correspondence: 'authorized', paidMinor: 0 });
        assert.deepEqual(
          (await acquirerOperations(transaction.uuid)).map((o) => [o.kind, o.status]),
          [['authorize', 'approved']],
        );

        await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }), { status: 400, errorCode: '400106' });
      });
    }

    test('a declined pre-authorisation holds nothing and leaves the order unpaid', async () => {
      const { reference: ref } = await newOrder('20.00');
      const { order, transaction } = await pay(ref, {
        credit_card: card(CARDS.doNotHonour, { consume_mode: 'pre_authorize' }),
      });
      assert.deepEqual(
        [transaction.type, transaction.success, transaction.payment_data.resp_code],
        ['Authorization', false, '05'],
      );
      assertOrderStates(order, UNPAID('20.00'));
      const next = await pay(ref, { credit_card: card(CARDS.visa) });
      assert.equal(next.transaction.amount, 20);
    });

    test('a pre-authorisation behind 3-D Secure becomes an open authorisation once passed, not a payment', async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge, { consume_mode: 'pre_authorize' }) });
      assert.deepEqual([pending.transaction.type, pending.transaction.is_pending], ['Authorization', true]);
      const passed = await client.sandbox.succeed(pending.transaction.uuid);
      assert.deepEqual(
        { type: passed.transaction.type, success: passed.transaction.success, captured: passed.transaction.captured },
        { type: 'Authorization', success: true, captured: false },
      );
      assertOrderStates(passed.order, {
        state: 'invoiced',
        correspondence: 'authorized',
        paid: '0.00',
        unpaid: '20.00',
      });
      assert.deepEqual(
        (await acquirerOperations(pending.transaction.uuid)).map((o) => [o.kind, o.status]),
        [['authorize', 'approved']],
      );
    });
  });

  // ---- naming the order ----

  describe('naming the order', () => {
    test('by number, by reference_number, or inside an order object', async () => {
      const byNumber = await newOrder('3.00');
      assert.equal(
        (await client.orders.pay({ number: byNumber.order.number }, { credit_card: card(CARDS.visa) })).order
          .reference_number,
        byNumber.reference,
      );

      const byObject = await newOrder('4.00');
      const reply = await client.call<OrderWithTransaction>('POST', OPEN_PAYMENTS, {
        order: { reference_number: byObject.reference },
        payment: { credit_card: card(CARDS.visa) },
      });
      assert.equal(reply.order.number, byObject.order.number);
      assertOrderStates(reply.order, PAID('4.00'));
    });

    test('names of two different orders are refused (400108), wherever they stand, and neither order is charged', async () => {
      const first = await newOrder('5.00');
      const second = await newOrder('6.00');
      const conflicts = [
        { number: first.order.number, order: { reference_number: second.reference } },
        { reference_number: first.reference, order: { number: second.order.number } },
        { order: { number: first.order.number, reference_number: second.reference } },
        { number: first.order.number, reference_number: second.reference },
      ];
      for (const names of conflicts) {
        await assertRefused(
          client.call('POST', OPEN_PAYMENTS, { ...names, payment: { credit_card: card(CARDS.visa) } }),
          { status: 400, errorCode: '400108' },
        );
      }
      for (const { order } of [first, second])
        assert.equal((await client.orders.check({ order: { number: order.number } })).transactions.length, 0);
      const agreeing = await client.call<OrderWithTransaction>('POST', OPEN_PAYMENTS, {
        number: first.order.number,
        order: { reference_number: first.reference },
        payment: { credit_card: card(CARDS.visa) },
      });
      assertOrderStates(agreeing.order, PAID('5.00'));
    });
  });

  // ---- 6. idempotency ----

  describe('idempotency', () => {
    test('the same payment.uuid again returns the same payment and charges once', async () => {
      const { reference: ref } = await newOrder('20.00');
      const uuid = randomUUID();
      const first = await pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa) });
      const again = await pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa) });
      const withoutAmount = await pay(ref, { uuid, credit_card: card(CARDS.visa) });

      for (const reply of [again, withoutAmount]) {
        assert.equal(reply.transaction.uuid, first.transaction.uuid);
        assert.deepEqual(reply.transaction.payment_data, first.transaction.payment_data);
        assert.equal(reply.order.transactions.length, 1);
        assert.equal(reply.order.paid_total, '5.00');
      }
      const rows = await server.platform.db
        .selectFrom('transactions')
        .selectAll()
        .where('merchant_id', '=', merchant.merchantId)
        .where('payment_uuid', '=', uuid)
        .execute();
      assert.equal(rows.length, 1);
      const approvals = (await acquirerOperations(first.transaction.uuid)).filter((o) => o.status === 'approved');
      assert.equal(approvals.length, 1);
    });

    test('the same payment.uuid with another amount, mode or order is refused with 409 400207', async () => {
      const { reference: ref } = await newOrder('20.00');
      const uuid = randomUUID();
      const first = await pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa) });
      await assertRefused(pay(ref, { uuid, amount: '6.00', credit_card: card(CARDS.visa) }), {
        status: 409,
        errorCode: '400207',
      });
      await assertRefused(
        pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa, { consume_mode: 'pre_authorize' }) }),
        { status: 409, errorCode: '400207' },
      );
      const { reference: other } = await newOrder('20.00');
      await assertRefused(pay(other, { uuid, amount: '5.00', credit_card: card(CARDS.visa) }), {
        status: 409,
        errorCode: '400207',
      });

      const { order } = await client.transactions.check(first.transaction.uuid);
      assert.equal(order.transactions.length, 1);
      assert.equal(order.paid_total, '5.00');
      assert.deepEqual((await client.orders.check({ order: { reference_number: other } })).transactions, []);
    });

    test('the same payment.uuid after a decline returns the declined payment, never a second attempt', async () => {
      const { reference: ref } = await newOrder('20.00');
      const uuid = randomUUID();
      const declined = await pay(ref, { uuid, credit_card: card(CARDS.insufficientFunds) });
      const again = await pay(ref, { uuid, credit_card: card(CARDS.insufficientFunds) });
      assert.equal(again.transaction.uuid, declined.transaction.uuid);
      assert.deepEqual([again.transaction.success, again.transaction.payment_data.resp_code], [false, '51']);
      assert.equal(again.order.transactions.length, 1);
      assert.equal((await acquirerOperations(declined.transaction.uuid)).length, 1);
    });

    test("a payment.uuid is the merchant's own: another merchant may use the same one", async () => {
      const other = await server.newMerchant({ name: 'Same uuid' });
      const uuid = randomUUID();
      const mine = await pay((await newOrder('2.00')).reference, { uuid, credit_card: card(CARDS.visa) });
      const otherRef = reference('O');
      await other.client.orders.create({ reference_number: otherRef, currency: 'HKD', charge_fee: '2.00' });
      const theirs = await pay(otherRef, { uuid, credit_card: card(CARDS.visa) }, other.client);
      assert.equal(theirs.transaction.success, true);
      assert.notEqual(theirs.transaction.uuid, mine.transaction.uuid);
    });

    test('concurrent payments with one payment.uuid: one charge; every reply names it paid, or asks for a retry while it is at the acquirer', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');
      const uuid = randomUUID();
      const send = () => pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa) });
      const results = await Promise.allSettled(Array.from({ length: 5 }, send));
      const outcomes = results.map((r) =>
        r.status === 'fulfilled' ? `${r.value.transaction.uuid} ${r.value.transaction.success}` : refusalText(r.reason),
      );
      const paid = outcomes.filter((outcome) => outcome !== '502 400302');
      assert.ok(paid.length >= 1, outcomes.join(', '));
      assert.equal(new Set(paid).size, 1, outcomes.join(', '));
      // Never a reply with the payment still pending, which a merchant could read as a failure.
      assert.match(paid[0]!, / true$/);
      // Sent again once it is answered: the same payment.
      assert.equal((await send()).transaction.uuid, paid[0]!.split(' ')[0]);
      const order = await client.orders.check({ order: { number: created.number } });
      assert.deepEqual([order.transactions.length, order.paid_total], [1, '5.00']);
    });

    test('a retry while the payment is still at the acquirer (its first request out, or cut off) is a 502 that keeps the key free; once answered, the payment', async () => {
      const { reference: ref } = await newOrder('20.00');
      const key = randomUUID();
      const send = keyedPayment(ref, key);
      const first = await send();
      assert.equal(first.status, 200, first.text);
      const uuid = first.json.data.transaction.uuid as string;
      const { db } = server.platform;
      // As a crash before the reply was stored, with the acquirer's answer not yet recorded, leaves it.
      await db.deleteFrom('idempotency_keys').where('idempotency_key', '=', key).execute();
      const answered = await storedTransaction(uuid);
      await db
        .updateTable('transactions')
        .set({ progress: 'sending', status: 'pending' })
        .where('id', '=', uuid)
        .execute();
      const inFlight = await send();
      assert.deepEqual([inFlight.status, inFlight.json.error_code], [502, '400302'], inFlight.text);
      assert.equal(
        await db.selectFrom('idempotency_keys').select('state').where('idempotency_key', '=', key).executeTakeFirst(),
        undefined,
      );
      await db
        .updateTable('transactions')
        .set({ progress: answered.progress, status: answered.status })
        .where('id', '=', uuid)
        .execute();
      const retried = await send();
      assert.equal(retried.status, 200, retried.text);
      assert.deepEqual([retried.json.data.transaction.uuid, retried.json.data.transaction.success], [uuid, true]);
      assert.equal((await acquirerOperations(uuid)).length, 1);
    });

    test('concurrent payments with one payment.uuid on two orders: one is made, the other refused with 409 400207', async () => {
      const first = await newOrder('20.00');
      const second = await newOrder('20.00');
      const uuid = randomUUID();
      const results = await Promise.allSettled(
        [first, second].map(({ reference: ref }) => pay(ref, { uuid, amount: '5.00', credit_card: card(CARDS.visa) })),
      );
      const outcomes = results.map((r) => (r.status === 'fulfilled' ? 'paid' : refusalText(r.reason)));
      assert.deepEqual(outcomes.sort(), ['409 400207', 'paid'], outcomes.join(', '));
      const rows = await server.platform.db
        .selectFrom('transactions')
        .select('id')
        .where('merchant_id', '=', merchant.merchantId)
        .where('payment_uuid', '=', uuid)
        .execute();
      assert.equal(rows.length, 1);
    });

    test('without payment.uuid, an Idempotency-Key retry replays the reply and pays once', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');
      const key = randomUUID();
      const send = keyedPayment(ref, key);

      const first = await send();
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const replay = await send();
      assert.equal(replay.status, 200);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.text, first.text);

      const uuid = first.json.data.transaction.uuid as string;
      const order = await storedOrder(created.number);
      const rows = await server.platform.db
        .selectFrom('transactions')
        .selectAll()
        .where('order_id', '=', order.id)
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [uuid],
      );
      assert.equal(rows[0]!.idempotency_key, key);
      assert.equal(Number(order.paid_total), 500);
      assert.equal((await acquirerOperations(uuid)).length, 1);
    });
  });

  describe('idempotency past the Idempotency-Key record', () => {
    test('after 24 hours an Idempotency-Key starts afresh: it names no payment any more', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');
      const key = randomUUID();
      const send = keyedPayment(ref, key);
      const first = await send();
      assert.equal(first.status, 200, first.text);
      const withinTheDay = await send();
      assert.equal(withinTheDay.headers['idempotent-replayed'], 'true');

      const day = 24 * 60 * 60 * 1000 + 60_000;
      server.clock.advance(day);
      try {
        const later = await send();
        assert.equal(later.status, 200, later.text);
        assert.equal(later.headers['idempotent-replayed'], undefined, 'the record is gone: the request ran again');
        assert.notEqual(
          later.json.data.transaction.uuid,
          first.json.data.transaction.uuid,
          'a new payment, as documented',
        );
        assert.equal(later.json.data.order.paid_total, '10.00');
      } finally {
        server.clock.advance(-day);
      }
      const order = await storedOrder(created.number);
      const rows = await server.platform.db
        .selectFrom('transactions')
        .select('id')
        .where('order_id', '=', order.id)
        .execute();
      assert.equal(rows.length, 2);
    });
  });

  // ---- the card's expiry, on the merchant's clock ----

  describe("the card's expiry, on the merchant's clock", () => {
    const monthOf = (at: Date) => ({
      month: String(at.getUTCMonth() + 1).padStart(2, '0'),
      year: String(at.getUTCFullYear()),
    });

    test("a card expiring this month is taken until the month is over on the merchant's business clock", async () => {
      const own = await server.newMerchant({ name: 'Clock' });
      const clock = await own.client.sandbox.clock();
      const { month, year } = monthOf(new Date(clock.now));
      const thisMonth = card(CARDS.visa, { exp_month: month, exp_year: year });
      const payOwn = async () => {
        const ref = reference('EXP');
        await own.client.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: '1.00' });
        return own.client.orders.pay({ reference_number: ref }, { credit_card: thisMonth });
      };
      assert.equal((await payOwn()).transaction.success, true);

      await own.client.sandbox.advanceClock(32 * 24 * 60 * 60);
      const error = await assertRefused(payOwn(), { status: 400, errorCode: '100207' });
      assert.match(error.message, /payment\.credit_card\.exp_year/);
    });

    test("the month turns at midnight in the merchant's time zone", async () => {
      // Both merchants' clocks are moved to 12:00 UTC on the last day of a month: already the next month at UTC+14.
      const east = await server.newMerchant({ name: 'Kiritimati', timezone: 'Pacific/Kiritimati' });
      const utc = await server.newMerchant({ name: 'UTC', timezone: 'UTC' });
      const now = new Date((await east.client.sandbox.clock()).now);
      let target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0, 12));
      if (target.getTime() - now.getTime() < 60 * 60 * 1000)
        target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 0, 12));
      const { month, year } = monthOf(target);
      const seconds = Math.round((target.getTime() - now.getTime()) / 1000);

      const outcomes: string[] = [];
      for (const who of [east, utc]) {
        await who.client.sandbox.advanceClock(seconds);
        const ref = reference('TZ');
        await who.client.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: '1.00' });
        try {
          const { transaction } = await who.client.orders.pay(
            { reference_number: ref },
            { credit_card: card(CARDS.visa, { exp_month: month, exp_year: year }) },
          );
          outcomes.push(transaction.success ? 'approved' : 'declined');
        } catch (error) {
          outcomes.push(error instanceof PaygateError ? `${error.errorCode} ${error.message}` : String(error));
        }
      }
      assert.equal(outcomes[1], 'approved', `UTC merchant, card ${month}/${year}`);
      assert.match(outcomes[0]!, /^100207 payment\.credit_card\.exp_year/, `UTC+14 merchant, card ${month}/${year}`);
    });
  });

  // ---- 7. voided orders ----

  describe('voided orders', () => {
    test('an order voided as a whole refuses payment with 400105', async () => {
      const { reference: ref, order: created } = await newOrder('20.00');
      const voided = await client.orders.void({ reference_number: ref });
      assert.equal(voided.state, 'voided');
      await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }), { status: 400, errorCode: '400105' });
      await assertRefused(pay(ref, { amount: '5.00', credit_card: card(CARDS.visa) }), {
        status: 400,
        errorCode: '400105',
      });
      const rows = await server.platform.db
        .selectFrom('transactions')
        .select('id')
        .where('order_id', '=', (await storedOrder(created.number)).id)
        .execute();
      assert.deepEqual(rows, []);
    });
  });

  // ---- 8. card data ----

  describe('card data', () => {
    test('the full card number and the CVV are never stored or returned', async () => {
      // A merchant of its own, so that only this test's rows are searched.
      const own = await server.newMerchant();
      const ref = reference('PAN');
      await own.client.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: '30.00' });
      const replies: string[] = [];
      const send = async (payment: Record<string, unknown>, key?: string) => {
        const reply = await signedRaw(server.url, own, {
          method: 'POST',
          target: OPEN_PAYMENTS,
          body: JSON.stringify({ reference_number: ref, payment }),
          at: server.clock.now(),
          headers: key === undefined ? {} : { 'idempotency-key': key },
        });
        assert.equal(reply.status, 200, reply.text);
        replies.push(reply.text);
        return reply;
      };
      await send({ amount: '10.00', credit_card: card(CARDS.visa) }, randomUUID());
      await send({
        uuid: randomUUID(),
        amount: '5.00',
        credit_card: card('4242-4242-4242-4242', { consume_mode: 'pre_authorize' }),
      });
      const pending = await send({ amount: '5.00', credit_card: card(CARDS.challenge) }, randomUUID());
      await own.client.sandbox.succeed(pending.json.data.transaction.uuid as string);
      const check = await signedRaw(server.url, own, {
        method: 'POST',
        target: '/svc/payment/api/v1/openapi/orders/check',
        body: JSON.stringify({ order: { reference_number: ref } }),
        at: server.clock.now(),
      });
      replies.push(check.text);

      const db = server.platform.db;
      const stored = JSON.stringify({
        transactions: await db
          .selectFrom('transactions')
          .selectAll()
          .where('merchant_id', '=', own.merchantId)
          .execute(),
        orders: await db.selectFrom('orders').selectAll().where('merchant_id', '=', own.merchantId).execute(),
        operations: await db
          .selectFrom('sandbox_acquirer_operations')
          .selectAll()
          .where('merchant_id', '=', own.merchantId)
          .execute(),
        idempotency: await db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('merchant_id', '=', own.merchantId)
          .execute(),
      });
      assert.ok(stored.includes('424242') && stored.includes('Chan Tai Man'), 'the search does see the stored rows');
      for (const [where, text] of [['stored rows', stored], ...replies.map((r, i) => [`reply ${i}`, r])] as Array<
        [string, string]
      >) {
        for (const pan of [CARDS.visa, CARDS.challenge, '4242-4242-4242-4242', '4242 4242 4242 4242']) {
          assert.ok(!text.includes(pan), `${where} contain the card number ${pan}`);
        }
        assert.doesNotMatch(text, /\\*"cvv\\*"/i, `${where} carry a "cvv" field`);
        assert.doesNotMatch(text, /\\*"123\\*"/, `${where} contain the CVV's value`);
      }
    });
  });

  // ---- 9. other merchants ----

  describe('another merchant', () => {
    let other: TestMerchant;
    before(async () => {
      other = await server.newMerchant({ name: 'Other Merchant' });
    });

    test("cannot pay this merchant's order: 404, exactly as for a missing order", async () => {
      const { reference: ref, order } = await newOrder('20.00');
      const byReference = await assertRefused(pay(ref, { credit_card: card(CARDS.visa) }, other.client), {
        status: 404,
        errorCode: '400101',
      });
      const byNumber = await assertRefused(
        other.client.orders.pay({ number: order.number }, { credit_card: card(CARDS.visa) }),
        { status: 404, errorCode: '400101' },
      );
      const missing = await assertRefused(pay(reference('missing'), { credit_card: card(CARDS.visa) }, other.client), {
        status: 404,
        errorCode: '400101',
      });
      for (const error of [byReference, byNumber]) {
        assert.deepEqual([error.code, error.message], [missing.code, missing.message]);
      }
      assertOrderStates(await client.orders.check({ order: { reference_number: ref } }), UNPAID('20.00'));
      assert.deepEqual((await client.orders.check({ order: { reference_number: ref } })).transactions, []);
    });

    test("its own order of the same reference is its own: paying it leaves this merchant's order alone", async () => {
      const { reference: ref } = await newOrder('20.00');
      await other.client.orders.create({ reference_number: ref, currency: 'HKD', charge_fee: '3.00' });
      const theirs = await pay(ref, { credit_card: card(CARDS.visa) }, other.client);
      assert.equal(theirs.transaction.amount, 3);
      assertOrderStates(await client.orders.check({ order: { reference_number: ref } }), UNPAID('20.00'));
    });

    test("cannot succeed or fail this merchant's pending transaction (404 400201), which stays pending", async () => {
      const { reference: ref } = await newOrder('20.00');
      const pending = await pay(ref, { credit_card: card(CARDS.challenge) });
      const missing = await assertRefused(other.client.sandbox.succeed(randomUUID()), {
        status: 404,
        errorCode: '400201',
      });
      const attempts = [
        (uuid: string) => other.client.sandbox.succeed(uuid),
        (uuid: string) => other.client.sandbox.fail(uuid),
      ];
      for (const attempt of attempts) {
        const error = await assertRefused(attempt(pending.transaction.uuid), { status: 404, errorCode: '400201' });
        assert.equal(error.message, missing.message);
      }
      assert.equal((await storedTransaction(pending.transaction.uuid)).status, 'pending');
      const still = await client.transactions.check(pending.transaction.uuid);
      assert.equal(still.transaction.is_pending, true);
      assertOrderStates(still.order, UNPAID('20.00'));
      assert.equal(
        (await client.sandbox.succeed(pending.transaction.uuid)).transaction.success,
        true,
        'its own merchant still can',
      );
    });
  });
});
