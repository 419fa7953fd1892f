import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  type PayeeInput,
  type PaygateClient,
  type PayoutInput,
  type PayoutRequest,
  verifyWebhook,
} from '@paygate/client';
import { checkLedger } from '../../src/ledger/check.js';
import { runCli } from '../support/processes.js';
import { TestReceiver } from '../support/receiver.js';
import { type RawReply, signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const TREASURY = '/svc/ts/api/v1/openapi';
const MINUTE = 60;
const HOUR = 60 * MINUTE;

/** A payee paid by FPS id; the id's last digits steer the sandbox bank (0002 rejects, 0003 returns). */
function fpsPayee(ending = '1'): PayeeInput {
  const id = `${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`.slice(0, 9 - ending.length) + ending;
  return {
    type: 'People',
    nickname: 'Chan Tai Man',
    payout_account: { country: 'HK', currency: 'HKD', transfer_method: 'HK FPS- FPS ID', hk_fps: { fps_id: id } },
  };
}

describe('payees and payout requests (operation 9)', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let client: PaygateClient;
  let payeeId: string;

  const payout = (fields: Partial<PayoutInput> = {}): PayoutInput => ({
    payee_id: payeeId,
    currency: 'HKD',
    amount: '150.00',
    callback_url: 'http://127.0.0.1:9/payouts',
    ...fields,
  });
  const postPayout = (m: TestMerchant, body: unknown) =>
    signedRaw(server.url, m, {
      method: 'POST',
      target: `${TREASURY}/payout_requests`,
      body: JSON.stringify({ payout_request: body }),
    });
  const postPayee = (body: unknown) =>
    signedRaw(server.url, merchant, {
      method: 'POST',
      target: `${TREASURY}/payees`,
      body: JSON.stringify({ payee: body }),
    });
  const available = async (c = client) =>
    (await c.balances.get()).find((b) => b.currency === 'HKD')?.available ?? '0.00';
  const ledgerAgrees = async (m = merchant) =>
    assert.deepEqual((await checkLedger(server.platform, { merchantIds: [m.merchantId] })).differences, []);
  /** Reads the payout until `done` holds (the scheduler runs it in the background). */
  async function until(id: string, done: (p: PayoutRequest) => boolean, c = client): Promise<PayoutRequest> {
    for (let i = 0; i < 200; i += 1) {
      const read = await c.payouts.get(id);
      if (done(read)) return read;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail(`payout ${id} never reached the state asked for: ${JSON.stringify(await c.payouts.get(id))}`);
  }
  const events = (subjectId: string) =>
    server.platform.db
      .selectFrom('events')
      .select('action')
      .where('subject_id', '=', subjectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
      .then((rows) => rows.map((row) => row.action));

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    other = await server.newMerchant();
    client = merchant.client;
    await client.sandbox.topUp({ currency: 'HKD', amount: '100000.00' });
    payeeId = (await client.payees.create(fpsPayee())).id;
  });
  after(() => server.close());

  test('each transfer method takes its identifier in its form; the payee reads back field by field, and lists', async () => {
    const byAccount = await client.payees.create({
      type: 'Company',
      nickname: ' Kowloon Stationery ',
      email: 'ap@kowloon.example',
      phone_country_code: '+852',
      phone_number: '21234567',
      payout_account: {
        country: 'hk',
        currency: 'hkd',
        transfer_method: 'HK FPS - Account Number',
        hk_fps: {
          bank_account: { bank_code: '004', account_name: 'Kowloon Stationery Ltd', account_number: '123456789' },
          mobile: '',
        },
      },
    });
    assert.match(byAccount.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(byAccount, {
      id: byAccount.id,
      type: 'Company',
      nickname: 'Kowloon Stationery',
      email: 'ap@kowloon.example',
      phone_country_code: '852',
      phone_number: '21234567',
      payout_account: {
        country: 'HK',
        currency: 'HKD',
        transfer_method: 'HK FPS - Account Number',
        hk_fps: {
          bank_account: { bank_code: '004', account_name: 'Kowloon Stationery Ltd', account_number: '123456789' },
          email: null,
          mobile: null,
          fps_id: null,
        },
      },
      created_at: byAccount.created_at,
    });
    assert.deepEqual(await client.payees.get(byAccount.id), byAccount);
    const account = (method: string, hkFps: Record<string, unknown>, currency = 'HKD') => ({
      type: 'People' as const,
      nickname: 'Wong',
      payout_account: {
        country: 'HK',
        currency,
        transfer_method: method as PayeeInput['payout_account']['transfer_method'],
        hk_fps: hkFps,
      },
    });
    for (const [given, stored] of [
      ['61234567', '+852-61234567'],
      ['+85291234567', '+852-91234567'],
      ['+852-51234567', '+852-51234567'],
      ['85241234567', '+852-41234567'],
    ]) {
      assert.equal(
        (await client.payees.create(account('HK FPS - Mobile', { mobile: given }))).payout_account.hk_fps.mobile,
        stored,
      );
    }
    assert.equal(
      (await client.payees.create(account('HK FPS - Email', { email: 'wong@example.hk' }, 'CNY'))).payout_account.hk_fps
        .email,
      'wong@example.hk',
    );
    for (const id of ['1234567', '123456789'])
      assert.equal(
        (await client.payees.create(account('HK FPS- FPS ID', { fps_id: id }))).payout_account.hk_fps.fps_id,
        id,
      );
    const page = await client.payees.list({ limit: 2 });
    assert.equal(page.payees.length, 2);
    assert.ok(page.total >= 8);
    assert.equal((await other.client.payees.list()).total, 0, "another merchant's payees are not listed");
  });

  test('every rule of each transfer method is refused naming its field', async () => {
    const base = { type: 'People', nickname: 'Wong' };
    const withAccount = (method: string, hkFps: unknown, extra: Record<string, unknown> = {}) => ({
      ...base,
      payout_account: { country: 'HK', currency: 'HKD', transfer_method: method, hk_fps: hkFps, ...extra },
    });
    const bank = (fields: Record<string, unknown>) => ({
      bank_account: { bank_code: '004', account_name: 'Wong Siu Ming', account_number: '123456789', ...fields },
    });
    const cases: Array<[unknown, string]> = [
      [withAccount('HK FPS - Account Number', bank({ bank_code: '04' })), 'hk_fps.bank_account.bank_code'],
      [withAccount('HK FPS - Account Number', bank({ bank_code: 'abc' })), 'hk_fps.bank_account.bank_code'],
      [withAccount('HK FPS - Account Number', bank({ bank_code: null })), 'hk_fps.bank_account.bank_code'],
      [withAccount('HK FPS - Account Number', bank({ account_number: '12345' })), 'hk_fps.bank_account.account_number'],
      [withAccount('HK FPS - Account Number', bank({ account_number: '1234567890123' })), 'account_number'],
      [
        withAccount('HK FPS - Account Number', bank({ account_number: '12345678a' })),
        'hk_fps.bank_account.account_number',
      ],
      [withAccount('HK FPS - Account Number', bank({ account_name: '  ' })), 'hk_fps.bank_account.account_name'],
      [withAccount('HK FPS - Account Number', { ...bank({}), fps_id: '1234567' }), 'hk_fps.fps_id'],
      [withAccount('HK FPS - Mobile', { mobile: '31234567' }), 'hk_fps.mobile'],
      [withAccount('HK FPS - Mobile', { mobile: '6123456' }), 'hk_fps.mobile'],
      [withAccount('HK FPS - Mobile', { mobile: '+853-61234567' }), 'hk_fps.mobile'],
      [withAccount('HK FPS - Mobile', {}), 'hk_fps.mobile'],
      [withAccount('HK FPS - Mobile', { mobile: '61234567', email: 'a@b.hk' }), 'hk_fps.email'],
      [withAccount('HK FPS - Email', { email: 'not-an-email' }), 'hk_fps.email'],
      [withAccount('HK FPS - Email', { email: 'wong@localhost' }), 'hk_fps.email'],
      [withAccount('HK FPS - Email', { email: 'wong siu@example.hk' }), 'hk_fps.email'],
      [withAccount('HK FPS - Email', { email: 'wong@example.hk', ...bank({}) }), 'hk_fps.bank_account'],
      [withAccount('HK FPS- FPS ID', { fps_id: '123456' }), 'hk_fps.fps_id'],
      [withAccount('HK FPS- FPS ID', { fps_id: '1234567890' }), 'fps_id'],
      [withAccount('HK FPS- FPS ID', { fps_id: '12a4567' }), 'hk_fps.fps_id'],
      [withAccount('HK FPS- FPS ID', { fps_id: '1234567', mobile: '61234567' }), 'hk_fps.mobile'],
      [withAccount('HK FPS- FPS ID', { fps_id: '1234567' }, { country: 'SG' }), 'payout_account.country'],
      [withAccount('HK FPS- FPS ID', { fps_id: '1234567' }, { currency: 'USD' }), 'payout_account.currency'],
      [withAccount('HK FPS-FPS ID', { fps_id: '1234567' }), 'transfer_method'],
      [{ ...withAccount('HK FPS- FPS ID', { fps_id: '1234567' }), type: 'Person' }, 'type'],
      [{ ...withAccount('HK FPS- FPS ID', { fps_id: '1234567' }), nickname: ' ' }, 'nickname'],
      [{ ...withAccount('HK FPS- FPS ID', { fps_id: '1234567' }), email: 'nope' }, 'payee.email'],
      [
        { ...withAccount('HK FPS- FPS ID', { fps_id: '1234567' }), phone_number: '21234567' },
        'payee.phone_country_code',
      ],
      [
        { ...withAccount('HK FPS- FPS ID', { fps_id: '1234567' }), phone_country_code: '852', phone_number: '12' },
        'payee.phone_number',
      ],
    ];
    for (const [body, field] of cases) {
      const reply = await postPayee(body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
      assert.equal(reply.json.code, 100207, reply.text);
      assert.ok(reply.json.message.includes(field), `${JSON.stringify(body)} names ${field}: ${reply.json.message}`);
    }
    assert.equal(
      (await client.payees.list({ limit: 1000 })).payees.filter(
        (p) => p.nickname === 'Wong' && p.payout_account.country !== 'HK',
      ).length,
      0,
    );
  });

  test('operation 9: the reply field by field; below the threshold Approved, at or above it Pending Approval', async () => {
    const reply = await postPayout(
      merchant,
      payout({ amount: '150.5', remark: 'Invoice 118', schedule_at: '2099-01-01T00:00:00Z' }),
    );
    assert.equal(reply.status, 200, reply.text);
    const shown = reply.json.data.payout_request;
    assert.match(shown.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(shown, {
      id: shown.id,
      amount: '150.50',
      currency: 'HKD',
      transfer_status: 'Initiated',
      schedule_status: 'Approved',
      created_at: shown.created_at,
      payee_id: payeeId,
      reference_id: null,
      remark: 'Invoice 118',
      callback_url: 'http://127.0.0.1:9/payouts',
      schedule_at: '2099-01-01T00:00:00Z',
      status_reason: null,
      decided_by: null,
      updated_at: shown.created_at,
    });
    assert.deepEqual(await client.payouts.get(shown.id), shown);
    assert.equal(
      (await client.payouts.create(payout({ amount: '9999.99', schedule_at: '2099-01-01T00:00:00Z' }))).schedule_status,
      'Approved',
    );
    assert.equal((await client.payouts.create(payout({ amount: '10000.00' }))).schedule_status, 'Pending Approval');
    assert.equal((await client.payouts.create(payout({ amount: '25000' }))).schedule_status, 'Pending Approval');
    const pending = await client.payouts.list({
      filters: { 'filter[schedule_status][_eq]': 'Pending Approval', 'filter[amount][_gte]': '10000' },
    });
    assert.ok(
      pending.payout_requests.length >= 2 &&
        pending.payout_requests.every((p) => p.schedule_status === 'Pending Approval'),
    );
  });

  test('operation 9 refuses each bad field, naming it; bad callback URLs with 820007', async () => {
    for (const url of [
      'example.com/payouts',
      'ftp://example.com/payouts',
      'http://exa mple.com/payouts',
      ' http://example.com/payouts',
      '',
      'http://',
      'https://169.254.169.254/latest',
    ]) {
      const reply = await postPayout(merchant, payout({ callback_url: url }));
      assert.equal(reply.status, 400, `${JSON.stringify(url)}: ${reply.text}`);
      assert.equal(reply.json.code, 820007, `${JSON.stringify(url)}: ${reply.text}`);
    }
    const refused: Array<[Record<string, unknown>, number, string]> = [
      [{ schedule_at: '2099-01-01T00:00:00.000Z' }, 100207, 'schedule_at'],
      [{ schedule_at: '2099-01-01T00:00:00+08:00' }, 100207, 'schedule_at'],
      [{ schedule_at: '2099-01-01T00:00:00z' }, 100207, 'schedule_at'],
      [{ schedule_at: '2099-01-01 00:00:00Z' }, 100207, 'schedule_at'],
      [{ schedule_at: '2099-02-30T00:00:00Z' }, 100207, 'schedule_at'],
      [{ schedule_at: '2099-01-01T24:00:00Z' }, 100207, 'schedule_at'],
      [{ schedule_at: '2020-01-01T00:00:00Z' }, 100207, 'schedule_at'],
      [{ amount: '0' }, 100207, 'amount'],
      [{ amount: '-5.00' }, 100207, 'amount'],
      [{ amount: '1.005' }, 100207, 'amount'],
      [{ amount: 'ten' }, 100207, 'amount'],
      [{ amount: 10 }, 100207, 'amount'],
      [{ amount: ' 5' }, 100207, 'amount'],
      [{ amount: '5 ' }, 100207, 'amount'],
      [{ amount: ' 5.00' }, 100207, 'amount'],
      [{ remark: 'x'.repeat(121) }, 100207, 'remark'],
      [{ reference_id: 'r'.repeat(81) }, 100207, 'reference_id'],
      [{ payee_id: undefined }, 100207, 'payee_id'],
      [{ payee_id: randomUUID() }, 820001, 'Payee'],
      [{ payee_id: 'not-a-payee' }, 820001, 'Payee'],
      [{ currency: 'CNY' }, 820003, 'HKD'],
      [{ currency: 'HKX' }, 400, 'currency'],
    ];
    for (const [fields, code, named] of refused) {
      const reply = await postPayout(merchant, payout(fields as Partial<PayoutInput>));
      assert.ok(reply.status >= 400 && reply.status < 500, `${JSON.stringify(fields)}: ${reply.text}`);
      assert.equal(reply.json.code, code, `${JSON.stringify(fields)}: ${reply.text}`);
      assert.ok(reply.json.message.includes(named), `${JSON.stringify(fields)} names ${named}: ${reply.json.message}`);
    }
    assert.equal(
      (
        await postPayout(
          merchant,
          payout({
            remark: 'x'.repeat(120),
            reference_id: `r${'e'.repeat(79)}${randomUUID()}`.slice(0, 80),
            schedule_at: '2099-01-01T00:00:00Z',
          }),
        )
      ).status,
      200,
    );
  });

  test('a reference names one payout: the same content answers it again, other content is refused, concurrent ones make one', async () => {
    const referenceId = `PAYOUT-${randomUUID()}`;
    const first = await client.payouts.create(
      payout({ reference_id: referenceId, schedule_at: '2099-01-01T00:00:00Z' }),
    );
    const again = await client.payouts.create(
      payout({ reference_id: referenceId, schedule_at: '2099-01-01T00:00:00Z' }),
    );
    assert.deepEqual(again, first);
    for (const change of [
      { amount: '150.01' },
      { remark: 'other' },
      { schedule_at: '2099-01-02T00:00:00Z' },
      { callback_url: 'http://127.0.0.1:9/other' },
    ]) {
      const reply = await postPayout(
        merchant,
        payout({ reference_id: referenceId, schedule_at: '2099-01-01T00:00:00Z', ...change }),
      );
      assert.deepEqual(refused(reply), { status: 409, code: 820004 }, JSON.stringify(change));
    }
    // Another merchant's reference is its own.
    const otherPayee = await other.client.payees.create(fpsPayee());
    assert.notEqual(
      (
        await other.client.payouts.create(
          payout({ payee_id: otherPayee.id, reference_id: referenceId, schedule_at: '2099-01-01T00:00:00Z' }),
        )
      ).id,
      first.id,
    );

    const together = `PAYOUT-${randomUUID()}`;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        postPayout(merchant, payout({ reference_id: together, schedule_at: '2099-01-01T00:00:00Z' })),
      ),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(8).fill(200),
      replies.map((r) => r.text).join('\n'),
    );
    assert.equal(new Set(replies.map((r) => r.json.data.payout_request.id)).size, 1);
    assert.equal((await client.payouts.list({ filters: { 'filter[reference_id][_eq]': together } })).total, 1);
    assert.deepEqual(await events(replies[0]!.json.data.payout_request.id), ['payout.created']);

    // Retried after its schedule_at has passed (it ran meanwhile): still the same payout, as it stands.
    const world = await fresh();
    const at = new Date(Math.ceil((Date.parse((await world.client.sandbox.clock()).now) + HOUR * 1000) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z');
    const scheduled = payout({ payee_id: world.payeeId, reference_id: `LATER-${randomUUID()}`, schedule_at: at });
    const made = await world.client.payouts.create(scheduled);
    await world.client.sandbox.advanceClock(2 * HOUR);
    const ran = await until(made.id, (p) => p.transfer_status !== 'Initiated', world.client);
    assert.deepEqual(await world.client.payouts.create(scheduled), ran);
    assert.deepEqual(refused(await postPayout(world.merchant, { ...scheduled, reference_id: `NEW-${randomUUID()}` })), {
      status: 400,
      code: 100207,
    });
  });

  test('every allowed move of the schedule, every refused one with its code; the decider is recorded', async () => {
    const pending = () => client.payouts.create(payout({ amount: '12000.00', schedule_at: '2099-01-01T00:00:00Z' }));
    const move = (id: string, verb: 'approve' | 'reject' | 'cancel') =>
      signedRaw(server.url, merchant, {
        method: 'POST',
        target: `${TREASURY}/payout_requests/${id}/${verb}`,
        ...(verb !== 'approve' && { body: '{}' }),
      });
    const approved = await client.payouts.approve((await pending()).id);
    assert.equal(approved.schedule_status, 'Approved');
    assert.equal(approved.decided_by, `app:${merchant.appId}`);
    const rejected = await client.payouts.reject((await pending()).id, 'Duplicate invoice.');
    assert.deepEqual([rejected.schedule_status, rejected.status_reason], ['Rejected', 'Duplicate invoice.']);
    const cancelledPending = await client.payouts.cancel((await pending()).id);
    assert.equal(cancelledPending.schedule_status, 'Cancelled');
    const cancelledApproved = await client.payouts.cancel(approved.id, 'Paid by cheque.');
    assert.deepEqual(
      [cancelledApproved.schedule_status, cancelledApproved.transfer_status],
      ['Cancelled', 'Initiated'],
    );

    // A short balance fails a payout when it runs: Failed.
    const poor = await server.newMerchant();
    const poorPayee = await poor.client.payees.create(fpsPayee());
    const failed = await until(
      (await poor.client.payouts.create(payout({ payee_id: poorPayee.id, amount: '10.00' }))).id,
      (p) => p.schedule_status === 'Failed',
      poor.client,
    );

    const ran = await until(
      (await client.payouts.create(payout({ amount: '5.00' }))).id,
      (p) => p.transfer_status !== 'Initiated',
    );
    const refusals: Array<[string, 'approve' | 'reject' | 'cancel', number]> = [
      [approved.id, 'approve', 820010],
      [approved.id, 'reject', 820010],
      [rejected.id, 'approve', 820010],
      [rejected.id, 'reject', 820010],
      [rejected.id, 'cancel', 820011],
      [cancelledPending.id, 'approve', 820010],
      [cancelledPending.id, 'cancel', 820011],
      [ran.id, 'approve', 820010],
      [ran.id, 'reject', 820010],
      [ran.id, 'cancel', 820011],
    ];
    for (const [id, verb, code] of refusals)
      assert.deepEqual(refused(await move(id, verb)), { status: 409, code }, `${verb} ${id}`);
    for (const verb of ['approve', 'reject', 'cancel'] as const) {
      const reply = await signedRaw(server.url, poor, {
        method: 'POST',
        target: `${TREASURY}/payout_requests/${failed.id}/${verb}`,
        ...(verb !== 'approve' && { body: '{}' }),
      });
      assert.deepEqual(refused(reply), { status: 409, code: verb === 'cancel' ? 820011 : 820010 }, verb);
    }

    // The operator decides from the command line, recorded as such; the threshold is the merchant's own.
    const shown = await runCli(
      ['payouts', 'threshold', '--merchant', merchant.merchantId, '--currency', 'HKD', '--amount', '100', '--json'],
      server.env,
    );
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), {
      merchant_id: merchant.merchantId,
      currency: 'HKD',
      threshold: '100.00',
    });
    try {
      assert.equal(
        (await client.payouts.create(payout({ amount: '99.99', schedule_at: '2099-01-01T00:00:00Z' }))).schedule_status,
        'Approved',
      );
      const waiting = await client.payouts.create(payout({ amount: '100.00', schedule_at: '2099-01-01T00:00:00Z' }));
      assert.equal(waiting.schedule_status, 'Pending Approval');
      const byOperator = await runCli(
        ['payouts', 'approve', waiting.id, '--merchant', merchant.merchantId, '--json'],
        server.env,
      );
      assert.equal(byOperator.code, 0, byOperator.stderr);
      assert.equal(JSON.parse(byOperator.stdout).payout_request.decided_by, 'operator');
      const again = await runCli(['payouts', 'reject', waiting.id, '--merchant', merchant.merchantId], server.env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /820010/);
      const listed = await runCli(
        ['payouts', 'list', '--merchant', merchant.merchantId, '--status', 'Approved', '--json'],
        server.env,
      );
      assert.ok(JSON.parse(listed.stdout).payout_requests.some((p: PayoutRequest) => p.id === waiting.id));
    } finally {
      assert.equal(
        (
          await runCli(
            ['payouts', 'threshold', '--merchant', merchant.merchantId, '--currency', 'HKD', '--amount', '10000'],
            server.env,
          )
        ).code,
        0,
      );
    }
  });

  test('a scheduled payout runs when the business clock passes schedule_at, not before; then the bank settles it', async () => {
    const scheduled = await fresh();
    const now = Date.parse((await scheduled.client.sandbox.clock()).now);
    const at = new Date(Math.ceil((now + 2 * HOUR * 1000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const created = await scheduled.client.payouts.create(
      payout({ payee_id: scheduled.payeeId, amount: '300.00', schedule_at: at }),
    );
    await scheduled.client.sandbox.advanceClock(HOUR);
    assert.deepEqual(pick(await scheduled.client.payouts.get(created.id)), ['Approved', 'Initiated']);
    assert.equal(await available(scheduled.client), '1000.00');
    await scheduled.client.sandbox.advanceClock(HOUR + 1);
    assert.deepEqual(
      pick(await until(created.id, (p) => p.transfer_status === 'Processing Transfer', scheduled.client)),
      ['Approved', 'Processing Transfer'],
    );
    assert.deepEqual(balance(await scheduled.client.balances.get()), { available: '700.00', reserved: '300.00' });
    await ledgerAgrees(scheduled.merchant);
    await scheduled.client.sandbox.advanceClock(29 * MINUTE);
    assert.equal((await scheduled.client.payouts.get(created.id)).transfer_status, 'Processing Transfer');
    await scheduled.client.sandbox.advanceClock(MINUTE + 1);
    assert.equal(
      (await until(created.id, (p) => p.transfer_status === 'Settled', scheduled.client)).transfer_status,
      'Settled',
    );
    assert.deepEqual(balance(await scheduled.client.balances.get()), { available: '700.00', reserved: '0.00' });
    await ledgerAgrees(scheduled.merchant);
    assert.deepEqual(await events(created.id), ['payout.created', 'payout.processing', 'payout.settled']);
  });

  test('the bank rejects (Terminated, funds released) and returns (Settled, Reversed, Refunded, funds back); the ledger agrees at each step', async () => {
    const world = await fresh();
    const rejectedPayee = (await world.client.payees.create(fpsPayee('0002'))).id;
    const returnedPayee = (
      await world.client.payees.create({
        type: 'Company',
        nickname: 'Bounce',
        payout_account: {
          country: 'HK',
          currency: 'HKD',
          transfer_method: 'HK FPS - Email',
          hk_fps: { email: 'ap0003@bounce.example' },
        },
      })
    ).id;

    const rejected = await world.client.payouts.create(payout({ payee_id: rejectedPayee, amount: '100.00' }));
    await until(rejected.id, (p) => p.transfer_status === 'Processing Transfer', world.client);
    assert.deepEqual(balance(await world.client.balances.get()), { available: '900.00', reserved: '100.00' });
    await ledgerAgrees(world.merchant);
    const terminated = await world.client.sandbox.advancePayout(rejected.id);
    assert.equal(terminated.transfer_status, 'Terminated');
    assert.match(terminated.status_reason!, /rejected/);
    assert.deepEqual(balance(await world.client.balances.get()), { available: '1000.00', reserved: '0.00' });
    await ledgerAgrees(world.merchant);
    assert.deepEqual(
      refused(
        await signedRaw(server.url, world.merchant, {
          method: 'POST',
          target: `/svc/sandbox/api/v1/payout_requests/${rejected.id}/advance`,
        }),
      ),
      { status: 409, code: 820012 },
    );

    const returned = await world.client.payouts.create(payout({ payee_id: returnedPayee, amount: '250.00' }));
    await until(returned.id, (p) => p.transfer_status === 'Processing Transfer', world.client);
    const steps: Array<[string, { available: string; reserved: string }]> = [
      ['Settled', { available: '750.00', reserved: '0.00' }],
      ['Reversed', { available: '750.00', reserved: '250.00' }],
      ['Refunded', { available: '1000.00', reserved: '0.00' }],
    ];
    // The clock's delays for the first two, the sandbox's push for the last.
    await world.client.sandbox.advanceClock(30 * MINUTE + 1);
    assert.equal(
      (await until(returned.id, (p) => p.transfer_status === 'Settled', world.client)).transfer_status,
      steps[0]![0],
    );
    assert.deepEqual(balance(await world.client.balances.get()), steps[0]![1]);
    await ledgerAgrees(world.merchant);
    await world.client.sandbox.advanceClock(24 * HOUR + 1);
    assert.equal(
      (await until(returned.id, (p) => p.transfer_status === 'Reversed', world.client)).transfer_status,
      steps[1]![0],
    );
    assert.deepEqual(balance(await world.client.balances.get()), steps[1]![1]);
    await ledgerAgrees(world.merchant);
    assert.equal((await world.client.sandbox.advancePayout(returned.id)).transfer_status, steps[2]![0]);
    assert.deepEqual(balance(await world.client.balances.get()), steps[2]![1]);
    await ledgerAgrees(world.merchant);
    // Nothing runs twice: the report the clock would have made is gone, and nothing more is reported.
    await world.client.sandbox.advanceClock(2 * HOUR);
    assert.deepEqual(await events(returned.id), [
      'payout.created',
      'payout.processing',
      'payout.settled',
      'payout.reversed',
      'payout.refunded',
    ]);
    const entries = await world.client.balances.transactions({ filters: { 'filter[source.id][_eq]': returned.id } });
    assert.deepEqual(entries.balance_transactions.map((e) => e.type).sort(), [
      'payout_refund',
      'payout_reserve',
      'payout_return',
      'payout_settlement',
    ]);
    await ledgerAgrees(world.merchant);
    const byCli = await runCli(['ledger', 'check', '--merchant', world.merchant.merchantId], server.env);
    assert.equal(byCli.code, 0, byCli.stdout + byCli.stderr);

    // A tampered payout entry is caught.
    await server.platform.db
      .updateTable('payout_requests')
      .set({ transfer_status: 'Settled' })
      .where('id', '=', rejected.id)
      .execute();
    try {
      const { differences } = await checkLedger(server.platform, { merchantIds: [world.merchant.merchantId] });
      assert.deepEqual(differences.map((d) => [d.subject, d.account, d.expected, d.found]).sort(), [
        [`payout_request:${rejected.id}`, 'available', '-100.00', '0.00'],
        [`payout_request:${rejected.id}`, 'bank', '100.00', '0.00'],
      ]);
    } finally {
      await server.platform.db
        .updateTable('payout_requests')
        .set({ transfer_status: 'Terminated' })
        .where('id', '=', rejected.id)
        .execute();
    }
  });

  test('insufficient balance fails the payout with its reason; nothing moves', async () => {
    const world = await fresh();
    const failed = await until(
      (await world.client.payouts.create(payout({ payee_id: world.payeeId, amount: '1000.01' }))).id,
      (p) => p.schedule_status === 'Failed',
      world.client,
    );
    assert.deepEqual(pick(failed), ['Failed', 'Initiated']);
    assert.match(failed.status_reason!, /Insufficient funds: 1000\.00 HKD available, 1000\.01 needed/);
    assert.deepEqual(balance(await world.client.balances.get()), { available: '1000.00', reserved: '0.00' });
    assert.deepEqual(await events(failed.id), ['payout.created', 'payout.failed']);
    await ledgerAgrees(world.merchant);
  });

  test("callbacks on every change reach callback_url signed with the app's webhook key, retried across an outage", async () => {
    const receiver = await TestReceiver.start();
    try {
      const world = await fresh();
      let outage = 3;
      receiver.answer = () => (outage-- > 0 ? 503 : 200);
      const created = await world.client.payouts.create(
        payout({ payee_id: world.payeeId, amount: '40.00', callback_url: `${receiver.url}/payouts/cb` }),
      );
      await until(created.id, (p) => p.transfer_status === 'Processing Transfer', world.client);
      await world.client.sandbox.advanceClock(30 * MINUTE + 1);
      await until(created.id, (p) => p.transfer_status === 'Settled', world.client);
      for (
        let i = 0;
        i < 6 &&
        receiver.matching({ path: '/payouts/cb' }).filter((r) => r.headers['x-action'] === 'payout.settled').length ===
          0;
        i += 1
      ) {
        await world.client.sandbox.advanceClock(10 * MINUTE);
      }
      const actions = ['payout.created', 'payout.processing', 'payout.settled'];
      for (const action of actions) await receiver.waitFor({ action, path: '/payouts/cb' }, 1, 10_000);
      const url = `${receiver.url}/payouts/cb`;
      for (const hit of receiver.matching({ path: '/payouts/cb' })) {
        const verified = verifyWebhook(hit.headers, hit.rawBody, world.merchant.webhookPublicKey, url);
        assert.equal(verified.appId, world.merchant.appId);
        const body = JSON.parse(hit.rawBody.toString('utf8'));
        assert.equal(body.code, 200);
        assert.equal(body.data.payout_request.id, created.id);
      }
      const delivered = receiver.matching({ path: '/payouts/cb' });
      assert.ok(
        delivered.length >= actions.length + 3,
        `the outage's failures were retried: ${delivered.length} requests`,
      );
      const settled = JSON.parse(receiver.matching({ action: 'payout.settled' })[0]!.rawBody.toString('utf8'));
      assert.deepEqual(settled.data.payout_request, await world.client.payouts.get(created.id));
    } finally {
      await receiver.close();
    }
  });

  test('a payee with a payout in flight cannot be deleted; once it ended, it can', async () => {
    const world = await fresh();
    const del = (id: string) =>
      signedRaw(server.url, world.merchant, { method: 'DELETE', target: `${TREASURY}/payees/${id}` });
    const waiting = await world.client.payouts.create(payout({ payee_id: world.payeeId, amount: '20000.00' }));
    assert.deepEqual(refused(await del(world.payeeId)), { status: 409, code: 820005 });
    await world.client.payouts.reject(waiting.id);
    const running = await world.client.payouts.create(payout({ payee_id: world.payeeId, amount: '10.00' }));
    await until(running.id, (p) => p.transfer_status === 'Processing Transfer', world.client);
    assert.deepEqual(refused(await del(world.payeeId)), { status: 409, code: 820005 });
    await world.client.sandbox.advancePayout(running.id);
    assert.deepEqual((await del(world.payeeId)).json.data, { id: world.payeeId, deleted: true });
    assert.deepEqual(
      refused(
        await signedRaw(server.url, world.merchant, { method: 'GET', target: `${TREASURY}/payees/${world.payeeId}` }),
      ),
      { status: 404, code: 820001 },
    );
    assert.deepEqual(refused(await postPayout(world.merchant, payout({ payee_id: world.payeeId }))), {
      status: 404,
      code: 820001,
    });
    assert.equal((await world.client.payouts.get(running.id)).payee_id, world.payeeId, 'its payouts still name it');
  });

  test("another merchant's payees and payouts are indistinguishable from missing; its payee is refused as payee_id", async () => {
    const mine = await client.payouts.create(payout({ amount: '20000.00', schedule_at: '2099-01-01T00:00:00Z' }));
    const as = (m: TestMerchant, method: string, target: string, body?: unknown) =>
      signedRaw(server.url, m, { method, target, ...(body !== undefined && { body: JSON.stringify(body) }) });
    for (const [method, target, body, code] of [
      ['GET', `${TREASURY}/payees/${payeeId}`, undefined, 820001],
      ['DELETE', `${TREASURY}/payees/${payeeId}`, undefined, 820001],
      ['GET', `${TREASURY}/payout_requests/${mine.id}`, undefined, 820002],
      ['POST', `${TREASURY}/payout_requests/${mine.id}/approve`, undefined, 820002],
      ['POST', `${TREASURY}/payout_requests/${mine.id}/reject`, {}, 820002],
      ['POST', `${TREASURY}/payout_requests/${mine.id}/cancel`, {}, 820002],
      ['POST', `/svc/sandbox/api/v1/payout_requests/${mine.id}/advance`, undefined, 820002],
    ] as const) {
      const theirs = refused(await as(other, method, target, body));
      const missing = refused(await as(other, method, target.replace(/[0-9a-f-]{36}/, randomUUID()), body));
      assert.deepEqual(theirs, { status: 404, code }, `${method} ${target}`);
      assert.deepEqual(missing, theirs, `${method} ${target}`);
    }
    assert.deepEqual(refused(await postPayout(other, payout())), { status: 404, code: 820001 });
    assert.ok(!(await other.client.payouts.list({ limit: 1000 })).payout_requests.some((p) => p.id === mine.id));
    assert.equal((await client.payouts.get(mine.id)).schedule_status, 'Pending Approval', 'untouched');
  });

  /** A merchant of its own with HKD 1,000.00 available and a payee the bank settles. */
  async function fresh(): Promise<{ merchant: TestMerchant; client: PaygateClient; payeeId: string }> {
    const m = await server.newMerchant();
    await m.client.sandbox.topUp({ currency: 'HKD', amount: '1000.00' });
    return { merchant: m, client: m.client, payeeId: (await m.client.payees.create(fpsPayee())).id };
  }
});

const pick = (p: PayoutRequest) => [p.schedule_status, p.transfer_status];
function balance(balances: Array<{ currency: string; available: string; reserved: string }>) {
  const hkd = balances.find((b) => b.currency === 'HKD')!;
  return { available: hkd.available, reserved: hkd.reserved };
}

/** A refusal's HTTP status and envelope code. */
const refused = (reply: RawReply) => ({ status: reply.status, code: reply.json?.code as number });
