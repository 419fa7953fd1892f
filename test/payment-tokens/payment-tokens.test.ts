import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type BindCardInput, type Customer, type PaygateClient, verifyWebhook } from '@paygate/client';
import { merchantContext } from '../../src/context/context.js';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { bindPaymentToken } from '../../src/payment-tokens/bind.js';
import { AppError, PLATFORM_ERRORS } from '../../src/platform/errors.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { newCustomer as createCustomer, futureExpiry } from '../support/fixtures.js';
import { postForm } from '../support/forms.js';
import { TestReceiver } from '../support/receiver.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Payment tokens (docs/payment-tokens.md): binding cards with 3-D Secure, checking, listing, deleting, the
// customer's default token, charging a token, the sandbox API that settles a binding, and the webhooks.

const MINUTE = 60;
const card = (number: string, extra: Partial<BindCardInput> = {}): BindCardInput => ({
  number,
  ...futureExpiry(),
  cvv: '4829',
  holder_name: 'Chan Tai Man',
  ...extra,
});

describe('payment tokens', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  let receiver: TestReceiver;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    server = await startTestServer({ logLines });
    merchant = await server.newMerchant({ name: 'Token Shop' });
    client = merchant.client;
    receiver = await TestReceiver.start();
    await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/hooks`);
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const newCustomer = (): Promise<Customer> => createCustomer(client);

  for (const number of ['4242424242424242', '5555555555554444', '3530111333300000', '4000000000003220']) {
    test(`${number}: pending with verify_url until the challenge is passed; then success`, async () => {
      const customer = await newCustomer();
      const pending = await client.customers.bindCard(customer.uuid, card(number));
      assert.equal(pending.state, 'pending');
      assert.equal(pending.token_type, 'CreditCard');
      assert.equal(pending.default, false);
      assert.match(pending.verify_url ?? '', new RegExp(`^${server.url}/pay/3ds/[A-Za-z0-9_-]{22}$`));
      assert.match(pending.verify_uuid ?? '', /^[0-9a-f-]{36}$/);
      assert.deepEqual(pending.credit_card, {
        number: `${number.slice(0, 6)}******${number.slice(-4)}`,
        ...futureExpiry(),
        holder_name: 'Chan Tai Man',
        brand: { '4': 'VISA', '5': 'MASTERCARD', '3': 'JCB' }[number[0]!],
        billing_currency: 'HKD',
      });
      const passed = await client.sandbox.settleToken(pending.token, 'succeed');
      assert.equal(passed.state, 'success');
      const checked = await client.customers.checkToken(pending.token);
      assert.equal(checked.state, 'success');
      assert.equal(checked.verify_url, null);
    });
  }

  test('4000 0000 0000 3055 (frictionless) succeeds at once; binding authorised HKD 1.00 and voided it', async () => {
    const customer = await newCustomer();
    const token = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    assert.equal(token.state, 'success');
    const stored = await server.platform.db
      .selectFrom('payment_tokens')
      .selectAll()
      .where('token', '=', token.token)
      .executeTakeFirstOrThrow();
    const operations = await server.platform.db
      .selectFrom('sandbox_acquirer_operations')
      .selectAll()
      .where((eb) =>
        eb.or([eb('reference', '=', stored.bind_reference), eb('original_reference', '=', stored.bind_reference)]),
      )
      .execute();
    assert.deepEqual(operations.map((op) => [op.kind, op.status, op.amount, op.currency]).sort(), [
      ['authorize', 'approved', 100, 'HKD'],
      ['void', 'approved', 100, 'HKD'],
    ]);
  });

  for (const [number, code, message] of [
    ['4000000000000002', '05', 'Do not honour'],
    ['4000000000009995', '51', 'Insufficient funds'],
    ['4000000000000069', '54', 'Expired card'],
    ['4000000000000127', 'N7', 'Incorrect CVV'],
    ['4000000000000119', '96', 'System malfunction'],
  ] as const) {
    test(`${number}: failed at once with error_code ${code}`, async () => {
      const customer = await newCustomer();
      const token = await client.customers.bindCard(customer.uuid, card(number));
      assert.equal(token.state, 'failed');
      assert.equal(token.error_code, code);
      assert.equal(token.error_msg, message);
      assert.equal(token.verify_url, null);
    });
  }

  test('a failed challenge fails the token; settling it again is refused', async () => {
    const customer = await newCustomer();
    const pending = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    const failed = await client.sandbox.settleToken(pending.token, 'fail');
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error_code, '05');
    assert.equal(failed.error_msg, '3-D Secure authentication failed');
    assert.equal((await refusal(client.sandbox.settleToken(pending.token, 'succeed'))).code, 200105);
  });

  test('a challenge nobody answers fails as abandoned after 15 minutes of business time', async () => {
    const customer = await newCustomer();
    const pending = await client.customers.bindCard(customer.uuid, card('5555555555554444'));
    await client.sandbox.advanceClock(14 * MINUTE);
    assert.equal((await client.customers.checkToken(pending.token)).state, 'pending');
    await client.sandbox.advanceClock(MINUTE + 1);
    const expired = await client.customers.checkToken(pending.token);
    assert.equal(expired.state, 'failed');
    assert.match(expired.error_msg ?? '', /abandoned/);
  });

  test('check: the literal and the customer path, with token alone or with verify_uuid; wrong ones are not found', async () => {
    const customer = await newCustomer();
    const other = await newCustomer();
    const token = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    for (const by of [
      {},
      { customerUuid: customer.uuid },
      { verifyUuid: token.verify_uuid },
      { customerUuid: customer.uuid, verifyUuid: token.verify_uuid },
    ]) {
      assert.equal((await client.customers.checkToken(token.token, by)).token, token.token, JSON.stringify(by));
    }
    assert.equal((await refusal(client.customers.checkToken(token.token, { customerUuid: other.uuid }))).code, 200104);
    assert.equal((await refusal(client.customers.checkToken(token.token, { verifyUuid: randomUUID() }))).code, 200104);
    assert.equal((await refusal(client.customers.checkToken('no-such-token'))).code, 200104);
    // Another merchant's token is not found either.
    const stranger = (await server.newMerchant()).client;
    assert.equal((await refusal(stranger.customers.checkToken(token.token))).code, 200104);
  });

  test('list and delete, with both body shapes; deleted tokens are gone', async () => {
    const customer = await newCustomer();
    const first = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const second = await client.customers.bindCard(customer.uuid, card('5555555555554444'));
    const third = await client.customers.bindCard(customer.uuid, card('4000000000000002'));
    assert.deepEqual(
      (await client.customers.tokens(customer.uuid)).map((t) => [t.token, t.state]),
      [
        [first.token, 'success'],
        [second.token, 'pending'],
        [third.token, 'failed'],
      ],
    );
    await client.customers.deleteToken(customer.uuid, first.token);
    await client.call('DELETE', `/svc/payment/api/v1/openapi/customers/${customer.uuid}/payment_tokens`, {
      token: second.token,
    });
    assert.deepEqual(
      (await client.customers.tokens(customer.uuid)).map((t) => t.token),
      [third.token],
    );
    assert.equal((await refusal(client.customers.checkToken(first.token))).code, 200104);
    assert.equal((await refusal(client.customers.deleteToken(customer.uuid, first.token))).code, 200104);
    const bare = await refusal(
      client.call('DELETE', `/svc/payment/api/v1/openapi/customers/${customer.uuid}/payment_tokens`, {}),
    );
    assert.equal(bare.status, 400);
  });

  test('default token: only a successful token of the customer; shown on the customer; deleting it clears it', async () => {
    const customer = await newCustomer();
    const other = await newCustomer();
    const good = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const pending = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    const failed = await client.customers.bindCard(customer.uuid, card('4000000000000002'));
    const foreign = await client.customers.bindCard(other.uuid, card('4000000000003055'));
    for (const token of [pending.token, failed.token, foreign.token, 'nothing']) {
      assert.equal(
        (
          await refusal(
            client.customers.update(customer.uuid, {
              name: 'Chan Tai Man',
              phone: '91234567',
              default_payment_token: token,
            }),
          )
        ).code,
        200103,
      );
    }
    const updated = await client.customers.update(customer.uuid, {
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: good.token,
    });
    assert.equal(updated.default_payment_token?.token, good.token);
    assert.equal(updated.default_payment_token?.default, true);
    assert.equal(updated.default_payment_token?.credit_card?.number, '400000******3055');
    // Also on create (an upsert by reference_number), and on read.
    const again = await client.customers.create({
      reference_number: customer.reference_number,
      name: 'Chan Tai Man',
      phone: '91234567',
      default_payment_token: good.token,
    });
    assert.equal(again.default_payment_token?.token, good.token);
    assert.equal((await client.customers.tokens(customer.uuid)).find((t) => t.token === good.token)?.default, true);
    await client.customers.deleteToken(customer.uuid, good.token);
    assert.equal((await client.customers.get(customer.uuid)).default_payment_token, undefined);
  });

  async function orderFor(customer: Customer | undefined, total = '50.00') {
    const reference = `TOK-${randomUUID()}`;
    await client.orders.create(
      { reference_number: reference, currency: 'HKD', charge_fee: total },
      customer ? { customerUuid: customer.uuid } : {},
    );
    return reference;
  }

  test('charging a token: cit sale and mit pre-authorisation, no new challenge, payment_method payment_token', async () => {
    const customer = await newCustomer();
    // Bound through a 3-D Secure challenge: charged later without one.
    const pending = await client.customers.bindCard(customer.uuid, card('4000000000003220'));
    const token = await client.sandbox.settleToken(pending.token, 'succeed');
    const sale = await client.orders.pay(
      { reference_number: await orderFor(customer) },
      { payment_token: { token: token.token, entry_type: 'cit' } },
    );
    assert.equal(sale.transaction.success, true);
    assert.equal(sale.transaction.type, 'Sales');
    assert.equal(sale.transaction.payment_method, 'payment_token');
    assert.equal(sale.transaction['3ds'], undefined);
    assert.equal(sale.transaction.payment_data.token, token.token);
    assert.equal(sale.transaction.payment_data.last_4_digits, '3220');
    assert.equal(sale.order.correspondence_state, 'paid');
    const auth = await client.orders.pay(
      { reference_number: await orderFor(customer) },
      {
        payment_token: { token: token.token, consume_mode: 'pre_authorize', entry_type: 'mit', amount: '20.00' },
        amount: '20.00',
      },
    );
    assert.equal(auth.transaction.type, 'Authorization');
    assert.equal(auth.transaction.success, true);
    assert.equal(auth.transaction.amount, 20);
    // A charge of a token refunds like any card payment.
    const captured = await client.transactions.capture(auth.transaction.uuid);
    assert.equal(captured.transaction.success, true);
  });

  test('4000 0000 0000 0341 binds at once, then every charge of its token is declined 51; the order stays unpaid until another token pays it', async () => {
    const customer = await newCustomer();
    const token = await client.customers.bindCard(customer.uuid, card('4000000000000341'));
    assert.deepEqual([token.state, token.verify_url, token.error_code], ['success', null, undefined]);
    assert.equal(token.credit_card?.number, '400000******0341');
    const stored = await server.platform.db
      .selectFrom('payment_tokens')
      .selectAll()
      .where('token', '=', token.token)
      .executeTakeFirstOrThrow();
    const binding = await server.platform.db
      .selectFrom('sandbox_acquirer_operations')
      .selectAll()
      .where((eb) =>
        eb.or([eb('reference', '=', stored.bind_reference), eb('original_reference', '=', stored.bind_reference)]),
      )
      .execute();
    assert.deepEqual(
      binding.map((op) => [op.kind, op.status]).sort(),
      [
        ['authorize', 'approved'],
        ['void', 'approved'],
      ],
      'verified and released, no challenge',
    );
    // As the billing engine charges it: mit sales of one order, retried.
    const reference = `TOK-${randomUUID()}`;
    const path = `/orders/${reference}`;
    await client.orders.create(
      { reference_number: reference, currency: 'HKD', charge_fee: '50.00', callback_url: `${receiver.url}${path}` },
      { customerUuid: customer.uuid },
    );
    const charges = [
      { payment_token: { token: token.token, entry_type: 'mit' as const } },
      { payment_token: { token: token.token, entry_type: 'mit' as const } },
      { payment_token: { token: token.token, entry_type: 'cit' as const, consume_mode: 'pre_authorize' as const } },
    ];
    for (const [index, charge] of charges.entries()) {
      const { order, transaction } = await client.orders.pay({ reference_number: reference }, charge);
      assert.deepEqual(
        {
          type: transaction.type,
          success: transaction.success,
          pending: transaction.is_pending,
          method: transaction.payment_method,
          token: transaction.payment_data.token,
        },
        {
          type: index < 2 ? 'Sales' : 'Authorization',
          success: false,
          pending: false,
          method: 'payment_token',
          token: token.token,
        },
      );
      assert.deepEqual(
        {
          code: transaction.payment_data.resp_code,
          message: transaction.payment_data.resp_msg,
          state: transaction.payment_data.transaction_state,
        },
        { code: '51', message: 'Insufficient funds', state: 'DECLINED' },
      );
      assert.equal(transaction.payment_data.auth_code, undefined, 'a decline has no auth code');
      assert.deepEqual(
        [order.state, order.correspondence_state, order.paid_total, order.unpaid_total],
        ['invoiced', 'unpaid', '0.00', '50.00'],
      );
      const operations = await server.platform.db
        .selectFrom('sandbox_acquirer_operations')
        .selectAll()
        .where('reference', '=', transaction.uuid)
        .execute();
      assert.deepEqual(
        operations.map((op) => [op.kind, op.status, op.response_code, op.card_last4]),
        [[index < 2 ? 'sale' : 'authorize', 'declined', '51', '0341']],
      );
    }
    const failures = await receiver.waitFor({ path, action: 'order.payment_failure' }, charges.length);
    for (const request of failures) {
      const { order } = (
        JSON.parse(request.rawBody.toString()) as { data: { order: { correspondence_state: string } } }
      ).data;
      assert.equal(order.correspondence_state, 'unpaid');
    }
    assert.equal(
      (await client.customers.checkToken(token.token)).state,
      'success',
      'a declined charge leaves the token as it is',
    );
    // The control: an ordinary card's token pays the same order.
    const good = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const paid = await client.orders.pay(
      { reference_number: reference },
      { payment_token: { token: good.token, entry_type: 'mit' } },
    );
    assert.deepEqual([paid.transaction.success, paid.transaction.payment_data.resp_code], [true, '00']);
    assert.deepEqual([paid.order.correspondence_state, paid.order.paid_total], ['paid', '50.00']);
    await receiver.waitFor({ path, action: 'order.paid' });
  });

  test("charging is refused for a failed, pending or deleted token, another customer's or merchant's, or two amounts", async () => {
    const customer = await newCustomer();
    const other = await newCustomer();
    const good = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const failed = await client.customers.bindCard(customer.uuid, card('4000000000000002'));
    const pending = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    const pay = (reference: string, token: string, extra: Record<string, unknown> = {}) =>
      refusal(client.orders.pay({ reference_number: reference }, { payment_token: { token }, ...extra }));
    assert.equal((await pay(await orderFor(customer), failed.token)).code, 400210);
    assert.equal((await pay(await orderFor(customer), pending.token)).code, 400210);
    assert.equal((await pay(await orderFor(other), good.token)).code, 200104);
    const twoAmounts = await refusal(
      client.orders.pay(
        { reference_number: await orderFor(customer) },
        { amount: '10.00', payment_token: { token: good.token, amount: '11.00' } },
      ),
    );
    assert.equal(twoAmounts.code, 100207);
    const stranger = (await server.newMerchant()).client;
    const strangerOrder = `TOK-${randomUUID()}`;
    await stranger.orders.create({ reference_number: strangerOrder, currency: 'HKD', charge_fee: '5.00' });
    assert.equal(
      (
        await refusal(
          stranger.orders.pay({ reference_number: strangerOrder }, { payment_token: { token: good.token } }),
        )
      ).code,
      200104,
    );
    await client.customers.deleteToken(customer.uuid, good.token);
    assert.equal((await pay(await orderFor(customer), good.token)).code, 200104);
  });

  /** The webhook of `action` about `token`, once it has arrived (other tests' token events arrive too). */
  async function arrival(action: string, token: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const request = receiver.received.find(
        (r) => r.headers['x-action'] === action && JSON.parse(r.rawBody.toString()).data.payment_token.token === token,
      );
      if (request) return request;
      assert.ok(Date.now() < deadline, `${action} for ${token} arrived`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  for (const [wallet, type] of [
    ['alipay', 'AlipayAutoDebit'],
    ['wechatpay', 'WechatPayAutoDebit'],
  ] as const) {
    test(`${wallet} auto-debit: pending until the payer allows it in the wallet, then charged as a sale with no payer`, async () => {
      const customer = await newCustomer();
      const pending = await client.customers.bindWallet(customer.uuid, wallet);
      assert.equal(pending.token_type, type);
      assert.equal(pending.state, 'pending');
      assert.equal(pending.credit_card, undefined);
      assert.match(pending.verify_url ?? '', new RegExp(`^${server.url}/pay/wallet/[A-Za-z0-9_-]{22}$`));
      const page = await (await fetch(pending.verify_url!)).text();
      assert.ok(page.includes('Allow Token Shop to charge your'));
      const allowed = await postForm(pending.verify_url!, { outcome: 'passed' });
      assert.ok((await allowed.text()).includes('Auto-debit allowed'));
      assert.equal((await client.customers.checkToken(pending.token)).state, 'success');
      const sale = await client.orders.pay(
        { reference_number: await orderFor(customer) },
        { payment_token: { token: pending.token, entry_type: 'mit' } },
      );
      assert.equal(sale.transaction.success, true);
      assert.equal(sale.transaction.is_pending, false);
      assert.equal(sale.transaction.payment_method, 'payment_token');
      const preauth = await refusal(
        client.orders.pay(
          { reference_number: await orderFor(customer) },
          { payment_token: { token: pending.token, consume_mode: 'pre_authorize' } },
        ),
      );
      assert.equal(preauth.code, 100207);
    });
  }

  test('a binding names one thing: card, alipay or wechatpay', async () => {
    const customer = await newCustomer();
    const path = `/svc/payment/api/v1/openapi/customers/${customer.uuid}/payment_tokens`;
    assert.equal(
      (await refusal(client.call('POST', path, { card: card('4242424242424242'), alipay: {} }))).code,
      100207,
    );
    assert.equal((await refusal(client.call('POST', path, {}))).code, 100207);
    assert.equal((await refusal(client.customers.bindCard(randomUUID(), card('4242424242424242')))).code, 200101);
    assert.equal((await refusal(client.customers.bindCard(customer.uuid, card('4242424242424241')))).code, 100207);
    assert.equal(
      (await refusal(client.customers.bindCard(customer.uuid, card('4242424242424242', { billing_currency: 'XYZ' }))))
        .status,
      400,
    );
  });

  test('a bind retried with its Idempotency-Key after a lost answer finishes the same binding, not a second one', async () => {
    const customer = await newCustomer();
    const ctx = merchantContext(
      server.platform,
      (await findMerchant(server.platform.db, merchant.merchantId))!,
      { kind: 'app', appId: merchant.appId },
      'test',
    );
    ctx.idempotency = { key: `bind-${randomUUID()}`, expiresAt: Date.now() + 60_000 };
    const first = await bindPaymentToken(ctx, customer.uuid, { card: card('4000000000003055') });
    assert.equal(first.state, 'success');
    // As if the answer had been lost after the acquirer approved: the token is still being sent.
    await server.platform.db
      .updateTable('payment_tokens')
      .set({ state: 'pending', progress: 'sending' })
      .where('id', '=', first.id)
      .execute();
    const retried = await bindPaymentToken(ctx, customer.uuid, { card: card('4000000000003055') });
    assert.equal(retried.id, first.id);
    assert.equal(retried.state, 'success');
    assert.equal((await client.customers.tokens(customer.uuid)).length, 1);
    const authorisations = await server.platform.db
      .selectFrom('sandbox_acquirer_operations')
      .select('reference')
      .where('merchant_id', '=', merchant.merchantId)
      .where('reference', '=', first.id)
      .execute();
    assert.equal(authorisations.length, 1);
    // A settled binding is answered as it is.
    assert.equal((await bindPaymentToken(ctx, customer.uuid, { card: card('4000000000003055') })).id, first.id);
    // The same key for another customer is a different request.
    const other = await newCustomer();
    await assert.rejects(
      bindPaymentToken(ctx, other.uuid, { card: card('4000000000003055') }),
      (error) => error instanceof AppError && error.definition === PLATFORM_ERRORS.idempotencyKeyReused,
    );
  });

  test('deleting a token waiting for 3-D Secure fails it and closes its challenge; nothing revives it', async () => {
    const customer = await newCustomer();
    const pending = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    const deleted = await client.customers.deleteToken(customer.uuid, pending.token);
    assert.equal(deleted.state, 'failed');
    assert.equal((await fetch(pending.verify_url!)).status, 404, 'the challenge page is closed');
    const answered = await postForm(pending.verify_url!, { outcome: 'passed' });
    assert.equal(answered.status, 404);
    await client.sandbox.advanceClock(16 * MINUTE);
    const row = await server.platform.db
      .selectFrom('payment_tokens')
      .selectAll()
      .where('token', '=', pending.token)
      .executeTakeFirstOrThrow();
    assert.equal(row.state, 'failed');
    const jobs = await server.platform.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'payment_tokens.expire_binding')
      .execute();
    assert.ok(
      jobs.every((job) => job.last_error === null || job.last_error === undefined),
      'the expiry job did not fail',
    );
  });

  test('a binding settled at once leaves no expiry job to run; one waiting for 3-D Secure, or whose hold could not be voided, keeps it', async () => {
    const customer = await newCustomer();
    const expiryJob = async (token: string) => {
      const { id } = await server.platform.db
        .selectFrom('payment_tokens')
        .select('id')
        .where('token', '=', token)
        .executeTakeFirstOrThrow();
      return server.platform.db
        .selectFrom('jobs')
        .select(['state', 'attempts'])
        .where('dedupe_key', '=', `payment_tokens.expire_binding:${id}`)
        .executeTakeFirstOrThrow();
    };
    const bound = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const declined = await client.customers.bindCard(customer.uuid, card('4000000000009995'));
    const challenged = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    assert.deepEqual([bound.state, declined.state, challenged.state], ['success', 'failed', 'pending']);
    assert.deepEqual(await expiryJob(bound.token), { state: 'done', attempts: 0 }, 'dropped, never run');
    assert.deepEqual(await expiryJob(declined.token), { state: 'done', attempts: 0 });
    assert.deepEqual(await expiryJob(challenged.token), { state: 'pending', attempts: 0 });
    // The acquirer refuses the void of the verification hold once: the card is bound, and its job voids it later.
    const acquirer = server.platform.rails.acquirer!;
    const voidHold = acquirer.void.bind(acquirer);
    acquirer.void = async () => {
      acquirer.void = voidHold;
      throw new Error('the acquirer is unreachable');
    };
    const held = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    assert.equal(held.state, 'success');
    assert.deepEqual(await expiryJob(held.token), { state: 'pending', attempts: 0 });
    const { bind_reference: reference } = await server.platform.db
      .selectFrom('payment_tokens')
      .select('bind_reference')
      .where('token', '=', held.token)
      .executeTakeFirstOrThrow();
    const voids = () =>
      server.platform.db
        .selectFrom('sandbox_acquirer_operations')
        .select(['kind', 'status'])
        .where('original_reference', '=', reference)
        .execute();
    assert.deepEqual(await voids(), []);
    await client.sandbox.advanceClock(16 * MINUTE);
    assert.deepEqual(await voids(), [{ kind: 'void', status: 'approved' }]);
    assert.deepEqual(await expiryJob(held.token), { state: 'done', attempts: 1 });
    assert.equal((await expiryJob(challenged.token)).state, 'done');
    assert.equal(
      (await client.customers.checkToken(challenged.token)).state,
      'failed',
      'the unanswered challenge expired',
    );
  });

  test('a retried charge answers the payment made even after the token is deleted; another token with the same uuid is refused', async () => {
    const customer = await newCustomer();
    const token = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const other = await client.customers.bindCard(customer.uuid, card('4000000000003055'));
    const reference = await orderFor(customer);
    const uuid = randomUUID();
    const first = await client.orders.pay(
      { reference_number: reference },
      { uuid, payment_token: { token: token.token } },
    );
    assert.equal(
      (
        await refusal(
          client.orders.pay({ reference_number: reference }, { uuid, payment_token: { token: other.token } }),
        )
      ).code,
      400207,
    );
    await client.customers.deleteToken(customer.uuid, token.token);
    const again = await client.orders.pay(
      { reference_number: reference },
      { uuid, payment_token: { token: token.token } },
    );
    assert.equal(again.transaction.uuid, first.transaction.uuid);
  });

  test("an auto-debit token is charged only in its wallet's currencies", async () => {
    const customer = await newCustomer();
    const pending = await client.customers.bindWallet(customer.uuid, 'wechatpay');
    await client.sandbox.settleToken(pending.token, 'succeed');
    const reference = `TOK-${randomUUID()}`;
    await client.orders.create(
      { reference_number: reference, currency: 'USD', charge_fee: '5.00' },
      { customerUuid: customer.uuid },
    );
    assert.equal(
      (await refusal(client.orders.pay({ reference_number: reference }, { payment_token: { token: pending.token } })))
        .code,
      100207,
    );
  });

  test('webhooks: payment_token.succeeded, .failed and .deleted reach the app endpoint, signed', async () => {
    const customer = await newCustomer();
    const pending = await client.customers.bindCard(customer.uuid, card('4242424242424242'));
    await client.sandbox.settleToken(pending.token, 'succeed');
    const failed = await client.customers.bindCard(customer.uuid, card('4000000000009995'));
    await client.customers.deleteToken(customer.uuid, pending.token);
    for (const [action, token, state] of [
      ['payment_token.succeeded', pending.token, 'success'],
      ['payment_token.failed', failed.token, 'failed'],
      ['payment_token.deleted', pending.token, 'success'],
    ] as const) {
      const request = await arrival(action, token);
      verifyWebhook(request.headers, request.rawBody, merchant.webhookPublicKey, `${receiver.url}${request.target}`);
      const body = JSON.parse(request.rawBody.toString()) as {
        data: { customer_uuid: string; payment_token: { state: string } };
      };
      assert.equal(body.data.customer_uuid, customer.uuid);
      assert.equal(body.data.payment_token.state, state);
    }
  });

  test('the binding page: escaped customer name, the decline cap on the link, unknown customers and links refused', async () => {
    const customer = await client.customers.create({
      reference_number: `CUS-${randomUUID()}`,
      name: '<b>Bold</b> & Co',
      phone: '91234567',
    });
    const { wallet_link, expires_at } = await client.customers.walletLink(customer.uuid);
    assert.ok(Date.parse(expires_at) > Date.now());
    const page = await (await fetch(wallet_link)).text();
    assert.ok(page.includes('Save a card for &lt;b&gt;Bold&lt;/b&gt; &amp; Co') && !page.includes('<b>Bold'));
    const post = (number: string) =>
      postForm(`${wallet_link}/card`, { holder_name: 'Chan Tai Man', number, expiry: '12/31', cvv: '123' });
    const limit = server.platform.config.pageDeclineLimit;
    for (let attempt = 0; attempt < limit; attempt += 1)
      assert.match((await post('4000000000000002')).headers.get('location') ?? '', /\?token=/);
    assert.equal((await post('4000000000003055')).headers.get('location'), wallet_link, 'locked: nothing tried');
    assert.ok((await (await fetch(wallet_link)).text()).includes('data-testid="locked"'));
    const tokens = await client.customers.tokens(customer.uuid);
    assert.equal(tokens.length, limit);
    assert.ok(tokens.every((t) => t.state === 'failed'));
    assert.equal((await refusal(client.customers.walletLink(randomUUID()))).code, 200101);
    assert.equal((await fetch(`${server.url}/wallet/${'x'.repeat(22)}`)).status, 404);
  });

  test('the binding page: cards saved after 3-D Secure do not use up the decline cap', async () => {
    const customer = await newCustomer();
    const { wallet_link } = await client.customers.walletLink(customer.uuid);
    const limit = server.platform.config.pageDeclineLimit;
    for (let saved = 0; saved <= limit; saved += 1) {
      const posted = await postForm(`${wallet_link}/card`, {
        holder_name: 'Chan Tai Man',
        number: '4242424242424242',
        expiry: '12/31',
        cvv: '123',
      });
      const challenge = posted.headers.get('location') ?? '';
      assert.match(challenge, /\/pay\/3ds\/.*\?checkout=/, `card ${saved + 1} sent to 3-D Secure`);
      const passed = await postForm(challenge, { outcome: 'passed' });
      assert.match(passed.headers.get('location') ?? '', new RegExp(`^${wallet_link}\\?token=`));
    }
    assert.ok(!(await (await fetch(wallet_link)).text()).includes('data-testid="locked"'));
    assert.equal((await client.customers.tokens(customer.uuid)).filter((t) => t.state === 'success').length, limit + 1);
  });

  test('no card number or CVV in any stored row, log line or reply beyond the masked forms', async () => {
    const customer = await newCustomer();
    const number = '5555555555554444';
    const reply = await client.call('POST', `/svc/payment/api/v1/openapi/customers/${customer.uuid}/payment_tokens`, {
      card: card(number, { cvv: '7391' }),
    });
    const token = (reply as { payment_token: { token: string } }).payment_token.token;
    await client.sandbox.settleToken(token, 'succeed');
    await client.orders.pay({ reference_number: await orderFor(customer) }, { payment_token: { token } });
    assert.ok(!JSON.stringify(reply).includes(number));
    for (const table of [
      'payment_tokens',
      'sandbox_acquirer_operations',
      'transactions',
      'events',
      'idempotency_keys',
      'jobs',
    ] as const) {
      const rows = await server.platform.db.selectFrom(table).selectAll().execute();
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(number), `no card number in ${table}`);
      assert.ok(
        !rows.some((row) =>
          Object.values(row).some(
            (value) => value === '7391' || (typeof value === 'string' && value.includes('"7391"')),
          ),
        ),
        `no CVV in ${table}`,
      );
    }
    const logs = JSON.stringify(logLines);
    assert.ok(logLines.length > 0);
    // (The CVV as a value of its own: its four digits may well occur inside a timestamp or an id.)
    assert.ok(
      !logs.includes(number) && !logs.includes('"7391"') && !/"(cvv|cvc|card_number|number)"/.test(logs),
      'no card number or CVV in the logs',
    );
  });
});
