import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Order, PaygateClient, PaymentInput, Transaction } from '@paygate/client';
import { CARDS, card, newOrder as createOrder } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { serverWithMerchant, type TestServer } from '../support/server.js';

// Wallet payments (Alipay, WeChat Pay, FPS) through POST /open_payments, and a payer's action that lapses
// (docs/orders.md "Paying with a wallet", docs/sandbox.md "Wallets").

const WALLETS = ['alipay', 'wechatpay', 'fps'] as const;
const VISA = card(CARDS.visa);
const CHALLENGE_CARD = card(CARDS.challenge);
const MINUTE = 60;
const DAY = 24 * 60 * 60;

/** CRC-16/CCITT-FALSE, written here from the EMVCo QR specification rather than taken from paygate. */
function emvCrc(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    for (let bit = 7; bit >= 0; bit -= 1) {
      const top = ((crc >> 15) & 1) ^ ((byte >> bit) & 1);
      crc = (crc << 1) & 0xffff;
      if (top) crc ^= 0x1021;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** The top-level ID/length/value fields of an EMVCo QR payload. */
function emvFields(payload: string): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < payload.length) {
    const id = payload.slice(at, at + 2);
    const length = Number(payload.slice(at + 2, at + 4));
    assert.ok(Number.isInteger(length) && at + 4 + length <= payload.length, `field ${id} at ${at} fits`);
    fields.set(id, payload.slice(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

function states(order: Order) {
  return {
    state: order.state,
    correspondence: order.correspondence_state,
    paid: order.paid_total,
    unpaid: order.unpaid_total,
  };
}

describe('paying with a wallet', () => {
  let server: TestServer;
  let client: PaygateClient;
  serverWithMerchant((bed) => ({ server, client } = bed));

  const newOrder = async (total = '20.00'): Promise<string> =>
    (await createOrder(client, { charge_fee: total })).reference_number;

  const payWith = (wallet: (typeof WALLETS)[number], extra: Partial<PaymentInput> = {}): PaymentInput => ({
    [wallet]: {},
    ...extra,
  });

  const storedTransaction = (uuid: string) =>
    server.platform.db.selectFrom('transactions').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  const acquirerOperations = (uuid: string) =>
    server.platform.db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', uuid).execute();

  for (const wallet of WALLETS) {
    test(`${wallet}: the payment is a pending sale with what the payer needs, and the order stays unpaid`, async () => {
      const reference = await newOrder('20.00');
      const { order, transaction } = await client.orders.pay({ reference_number: reference }, payWith(wallet));
      assert.deepEqual(
        {
          type: transaction.type,
          method: transaction.payment_method,
          success: transaction.success,
          pending: transaction.is_pending,
          captured: transaction.captured,
          amount: transaction.amount,
          state: transaction.payment_data.transaction_state,
          dataMethod: transaction.payment_data.payment_method,
        },
        {
          type: 'Sales',
          method: wallet,
          success: false,
          pending: true,
          captured: false,
          amount: 20,
          state: 'PENDING',
          dataMethod: wallet,
        },
      );
      assert.equal(transaction['3ds'], undefined);
      assert.equal(transaction.payment_data.first_6_digits, undefined, 'a wallet payment has no card');
      assert.equal(transaction.payment_data.card_read_mode, undefined);
      assert.deepEqual(states(order), { state: 'invoiced', correspondence: 'unpaid', paid: '0.00', unpaid: '20.00' });

      const payer = transaction.wallet;
      assert.ok(payer, 'wallet is shown while the payer has to pay');
      const expires = Date.parse(payer.expires_at);
      assert.equal(
        expires - Date.parse(transaction.updated_at),
        15 * 60_000,
        'the payer has 15 minutes from the code being issued',
      );
      if (wallet === 'alipay') {
        assert.match(payer.redirect_url ?? '', /^https?:\/\/\S+\/pay\/wallet\/[\w-]+$/);
        assert.equal(payer.qr_code, payer.redirect_url);
      } else if (wallet === 'wechatpay') {
        assert.match(payer.qr_code ?? '', /^https?:\/\/\S+\/pay\/wallet\/[\w-]+$/);
        assert.equal(payer.redirect_url, undefined);
      } else {
        const payload = payer.qr_code ?? '';
        assert.equal(payload.slice(-4), emvCrc(payload.slice(0, -4)), 'the EMVCo payload ends in its CRC');
        const fields = emvFields(payload);
        assert.equal(fields.get('00'), '01');
        assert.equal(fields.get('01'), '12', 'a dynamic code, for this payment only');
        assert.equal(fields.get('53'), '344', 'HKD by its ISO 4217 number');
        assert.equal(fields.get('54'), '20.00');
        assert.match(fields.get('26') ?? '', /hk\.com\.hkicl/);
        assert.equal(payer.redirect_url, undefined);
      }

      const row = await storedTransaction(transaction.uuid);
      assert.deepEqual([row.status, row.progress, row.payment_method], ['pending', 'awaiting_payer', wallet]);
      const operations = await acquirerOperations(transaction.uuid);
      assert.deepEqual(
        operations.map((o) => [o.kind, o.status, o.payment_method]),
        [['sale', 'awaiting_payer', wallet]],
      );
      assert.ok(operations[0]!.payer_token);

      const checked = await client.transactions.check(transaction.uuid);
      assert.deepEqual(checked.transaction.wallet, payer, 'the check shows the same payer details');
    });
  }

  test('paid in the wallet: the sale succeeds, the order is paid, and the payer details are gone', async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, payWith('alipay'));
    const paid = await client.sandbox.succeed(pending.transaction.uuid);
    assert.deepEqual(
      {
        success: paid.transaction.success,
        pending: paid.transaction.is_pending,
        captured: paid.transaction.captured,
        code: paid.transaction.payment_data.resp_code,
      },
      { success: true, pending: false, captured: true, code: '00' },
    );
    assert.equal(paid.transaction.wallet, undefined);
    assert.equal(paid.transaction.payment_data.transaction_state, 'APPROVED');
    assert.deepEqual(states(paid.order), { state: 'completed', correspondence: 'paid', paid: '20.00', unpaid: '0.00' });
    assert.deepEqual(
      (await acquirerOperations(pending.transaction.uuid)).map((o) => [o.status, o.payer_token]),
      [['approved', null]],
    );
  });

  test("a retry of the payer's answer under its Idempotency-Key, its reply lost: the payment as it stands, the acquirer asked once", async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, payWith('wechatpay'));
    const key = randomUUID();
    const paid = await client.sandbox.succeed(pending.transaction.uuid, { idempotencyKey: key });
    assert.equal(paid.transaction.success, true);
    const { db } = server.platform;
    // As a crash before the reply was stored leaves it: the payment answered, the key's claim gone.
    const forget = () => db.deleteFrom('idempotency_keys').where('idempotency_key', '=', key).execute();
    await forget();
    const retried = await client.sandbox.succeed(pending.transaction.uuid, { idempotencyKey: key });
    assert.deepEqual(
      [retried.transaction.uuid, retried.transaction.success, retried.order.paid_total],
      [pending.transaction.uuid, true, '20.00'],
    );
    assert.deepEqual(
      (await acquirerOperations(pending.transaction.uuid)).map((o) => o.status),
      ['approved'],
    );
    // The same retry while the answer is still with the acquirer (recovery has yet to ask): a 5xx, the key left free.
    await forget();
    await db
      .updateTable('transactions')
      .set({ progress: 'sending' })
      .where('id', '=', pending.transaction.uuid)
      .execute();
    const inFlight = await refusal(client.sandbox.succeed(pending.transaction.uuid, { idempotencyKey: key }));
    assert.deepEqual([inFlight.status, inFlight.errorCode], [502, '400302']);
    await db.updateTable('transactions').set({ progress: 'done' }).where('id', '=', pending.transaction.uuid).execute();
    assert.equal(
      (await client.sandbox.succeed(pending.transaction.uuid, { idempotencyKey: key })).transaction.success,
      true,
    );
    // Another request (another key, or none) is refused: the payment is not waiting for its payer.
    for (const other of [
      () => client.sandbox.fail(pending.transaction.uuid, { idempotencyKey: randomUUID() }),
      () => client.sandbox.succeed(pending.transaction.uuid),
    ]) {
      const refused = await refusal(other());
      assert.deepEqual([refused.status, refused.errorCode], [400, '400208']);
    }
  });

  test('refused in the wallet: declined with 05 and a wallet message; the order can be paid another way', async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, payWith('wechatpay'));
    const failed = await client.sandbox.fail(pending.transaction.uuid);
    assert.deepEqual(
      {
        success: failed.transaction.success,
        pending: failed.transaction.is_pending,
        code: failed.transaction.payment_data.resp_code,
      },
      { success: false, pending: false, code: '05' },
    );
    assert.match(failed.transaction.payment_data.resp_msg ?? '', /wallet/i);
    assert.doesNotMatch(failed.transaction.payment_data.resp_msg ?? '', /3-D Secure/);
    assert.equal(failed.transaction.wallet, undefined);
    assert.deepEqual(states(failed.order), {
      state: 'invoiced',
      correspondence: 'unpaid',
      paid: '0.00',
      unpaid: '20.00',
    });

    const byCard = await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
    assert.equal(byCard.transaction.amount, 20, 'the refused wallet payment holds nothing');
    assert.equal(byCard.order.correspondence_state, 'paid');
  });

  test('while a wallet payment is pending it holds its amount: the next payment pays only the rest', async () => {
    const reference = await newOrder('20.00');
    await client.orders.pay({ reference_number: reference }, payWith('fps', { amount: '12.50' }));
    const rest = await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
    assert.equal(rest.transaction.amount, 7.5);
  });

  test('a wallet payment nobody makes fails as expired after 15 minutes of business time, not before', async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, payWith('alipay'));
    await client.sandbox.advanceClock(14 * MINUTE);
    assert.equal((await client.transactions.check(pending.transaction.uuid)).transaction.is_pending, true);

    await client.sandbox.advanceClock(1 * MINUTE + 1);
    const { transaction, order } = await client.transactions.check(pending.transaction.uuid);
    assert.deepEqual(
      { success: transaction.success, pending: transaction.is_pending, code: transaction.payment_data.resp_code },
      { success: false, pending: false, code: '05' },
    );
    assert.match(transaction.payment_data.resp_msg ?? '', /expired/i);
    assert.equal(transaction.wallet, undefined);
    assert.equal(order.correspondence_state, 'unpaid');
    assert.equal((await refusal(client.sandbox.succeed(transaction.uuid))).errorCode, '400208', 'too late to pay');
  });

  test('a 3-D Secure challenge nobody passes fails as abandoned after 15 minutes', async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, { credit_card: CHALLENGE_CARD });
    assert.ok(pending.transaction['3ds']);
    await client.sandbox.advanceClock(15 * MINUTE + 1);
    const { transaction } = await client.transactions.check(pending.transaction.uuid);
    assert.deepEqual(
      [transaction.success, transaction.is_pending, transaction.payment_data.resp_code],
      [false, false, '05'],
    );
    assert.match(transaction.payment_data.resp_msg ?? '', /abandoned/);
    assert.equal(transaction['3ds'], undefined);
  });

  test('a paid wallet sale is voided before settlement and refunded after it, like a card sale', async () => {
    const voidable = await newOrder('20.00');
    const first = await client.orders.pay({ reference_number: voidable }, payWith('wechatpay'));
    await client.sandbox.succeed(first.transaction.uuid);
    const voided = await client.transactions.void(first.transaction.uuid);
    assert.equal(voided.transaction.voided, true);
    assert.equal(voided.order.paid_total, '0.00');

    const refundable = await newOrder('20.00');
    const second = await client.orders.pay({ reference_number: refundable }, payWith('fps'));
    await client.sandbox.succeed(second.transaction.uuid);
    await client.sandbox.advanceClock(DAY);
    const refund = await client.transactions.refund(second.transaction.uuid, { amount: '5.00' });
    assert.deepEqual(
      {
        type: refund.transaction.type,
        method: refund.transaction.payment_method,
        success: refund.transaction.success,
        paid: refund.order.paid_total,
      },
      { type: 'Refund', method: 'fps', success: true, paid: '15.00' },
    );
  });

  test('a pending wallet payment cannot be voided or refunded: it is paid, refused or expires', async () => {
    const reference = await newOrder('20.00');
    const pending = await client.orders.pay({ reference_number: reference }, payWith('alipay'));
    assert.equal((await refusal(client.transactions.void(pending.transaction.uuid))).status, 400);
    assert.equal((await refusal(client.transactions.refund(pending.transaction.uuid, { amount: '1.00' }))).status, 400);
    assert.equal((await client.transactions.check(pending.transaction.uuid)).transaction.is_pending, true);
  });

  test('payment.uuid names a wallet payment: the same again returns it; another method with it is refused', async () => {
    const reference = await newOrder('20.00');
    const uuid = randomUUID();
    const first = await client.orders.pay({ reference_number: reference }, payWith('alipay', { uuid }));
    const again = await client.orders.pay({ reference_number: reference }, payWith('alipay', { uuid }));
    assert.equal(again.transaction.uuid, first.transaction.uuid);
    assert.deepEqual(again.transaction.wallet, first.transaction.wallet);
    const other = await refusal(client.orders.pay({ reference_number: reference }, payWith('wechatpay', { uuid })));
    assert.deepEqual([other.status, other.errorCode], [409, '400207']);
    assert.equal((await acquirerOperations(first.transaction.uuid)).length, 1, 'one payment at the acquirer');
  });

  test('a payment names exactly one method, and a wallet takes an object', async () => {
    const reference = await newOrder('20.00');
    const none = await refusal(client.orders.pay({ reference_number: reference }, {}));
    assert.deepEqual([none.status, none.errorCode], [400, '400209']);
    assert.match(none.message, /alipay/);
    const two = await refusal(client.orders.pay({ reference_number: reference }, { credit_card: VISA, fps: {} }));
    assert.deepEqual([two.status, two.errorCode], [400, '100207']);
    assert.match(two.message, /credit_card and fps/);
    const notAnObject = await refusal(
      client.orders.pay({ reference_number: reference }, { alipay: 'yes' } as unknown as PaymentInput),
    );
    assert.deepEqual([notAnObject.status, notAnObject.errorCode], [400, '100207']);
    assert.match(notAnObject.message, /alipay/);
    const usd = `WAL-USD-${randomUUID()}`;
    await client.orders.create({ reference_number: usd, currency: 'USD', charge_fee: '5.00' });
    const fpsInUsd = await refusal(client.orders.pay({ reference_number: usd }, { fps: {} }));
    assert.deepEqual([fpsInUsd.status, fpsInUsd.errorCode], [400, '100207']);
    assert.match(fpsInUsd.message, /fps takes HKD, CNY; the order is in USD/);
    assert.equal(
      (await client.orders.pay({ reference_number: usd }, { alipay: {} })).transaction.is_pending,
      true,
      'Alipay takes USD',
    );
    const transactions: Transaction[] = (await client.orders.check({ order: { reference_number: reference } }))
      .transactions;
    assert.equal(transactions.length, 0, 'nothing was recorded for refused input');
  });
});
