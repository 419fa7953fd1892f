import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PayeeInput, PaygateClient } from '@paygate/client';
import { checkLedger } from '../../src/ledger/check.js';
import { DEFAULT_SETTLEMENT_HOUR } from '../../src/merchants/merchants.js';
import { modulesFor } from '../../src/modules.js';
import { nextLocalHour } from '../../src/platform/time-zone.js';
import type { JobDefinition } from '../../src/scheduler/scheduler.js';
import type { JobRow } from '../../src/scheduler/store.js';
import { csv } from '../batches/support.js';
import { bindingCard, CARDS, card, moveClockTo, newCustomer, newOrder, paidOrder } from '../support/fixtures.js';
import { postForm } from '../support/forms.js';
import { newCard, spend } from '../support/issuing.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Issue 34: one rule for a job that fails for good. Every merchant job kind's handler is made to throw, for one
// merchant only, until the job is dead; its kind's give-up handler must then have left the job's object at an end
// (failed with a reason the merchant can read, its sensitive inputs erased, an event sent) or scheduled the work
// again for later. A kind added without a scenario here fails the first test.

const FAULT = 'injected fault';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Past a job's first due time, enough business time for it and its four retries (10, 20, 40, 80 s later) to run. */
const RETRIES_RUN = 5 * MINUTE;
/** What the merchant reads of a fault of paygate's own (src/batches/fail.ts, src/payouts/running.ts). */
const INTERNAL_FAULT = /an internal fault of paygate/;

type MerchantJob = Extract<JobDefinition, { scope: 'merchant' }>;

interface Bed {
  merchant: TestMerchant;
  client: PaygateClient;
}

const logLines: Array<Record<string, unknown>> = [];
let server: TestServer;
/** The merchants whose jobs of each kind throw. */
const faulty = new Map<string, Set<string>>();

const db = () => server.platform.db;
const isMerchantJob = (definition: JobDefinition): definition is MerchantJob => definition.scope === 'merchant';
const merchantJobs = (): MerchantJob[] =>
  modulesFor(server.platform.config.mode)
    .flatMap((module) => module.jobs ?? [])
    .filter(isMerchantJob);

function makeFaulty(kind: string, merchantId: string): void {
  faulty.set(kind, (faulty.get(kind) ?? new Set()).add(merchantId));
}

function heal(kind: string, merchantId: string): void {
  faulty.get(kind)?.delete(merchantId);
}

const jobsOf = (merchantId: string, kind: string): Promise<JobRow[]> =>
  db()
    .selectFrom('jobs')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

const businessNow = async (client: PaygateClient): Promise<number> => Date.parse((await client.sandbox.clock()).now);

const moveTo = (client: PaygateClient, at: number): Promise<void> => moveClockTo(client, new Date(at).toISOString());

/** The merchant's events, as [action, subject_id]. */
const eventsOf = async (merchantId: string): Promise<Array<[string, string | null]>> =>
  (
    await db()
      .selectFrom('events')
      .select(['action', 'subject_id', 'payload'])
      .where('merchant_id', '=', merchantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => {
    assert.ok(!row.payload.includes(FAULT), `the event ${row.action} does not show the merchant the error itself`);
    return [row.action, row.subject_id];
  });

/** The batch's events, as [action, subject_id, upload_status, failure_reason] of the batch_info they carry. */
const batchEventsOf = async (merchantId: string) =>
  (
    await db()
      .selectFrom('events')
      .select(['action', 'subject_id', 'payload'])
      .where('merchant_id', '=', merchantId)
      .where('action', 'like', 'batch.%')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => {
    const { batch_info: info } = (
      JSON.parse(row.payload) as { data: { batch_info: { upload_status: string; failure_reason: string | null } } }
    ).data;
    return [row.action, row.subject_id, info.upload_status, info.failure_reason];
  });

async function ledgerAgrees(merchantId: string): Promise<void> {
  assert.deepEqual(
    (await checkLedger(server.platform, { merchantIds: [merchantId] })).differences,
    [],
    'the ledger agrees with the records',
  );
}

/**
 * A challenge given up on is over at the acquirer too, as it is once the expiry job has told the acquirer: the
 * sandbox acquirer's operation no longer waits for the payer, and its page (the payer's 3-D Secure challenge) is
 * gone. The give-up handlers record the end without the acquirer ("its challenge lapses at the same deadline there").
 */
async function challengeClosed(reference: string, page: string): Promise<void> {
  const operations = await db()
    .selectFrom('sandbox_acquirer_operations')
    .select(['kind', 'status', 'payer_token'])
    .where('reference', '=', reference)
    .execute();
  const shown = await fetch(page);
  await shown.text();
  assert.deepEqual(
    { acquirer: operations.map((op) => op.status), page: shown.status },
    { acquirer: operations.map(() => 'declined'), page: 404 },
    `the challenge ended at the sandbox acquirer too: its operation ${JSON.stringify(operations)}, its page ${page} answers ${shown.status}`,
  );
}

/** The first job of `kind` of the merchant, once it exists (the job before it may still be running). */
async function firstJob(bed: Bed, kind: string): Promise<JobRow> {
  for (let i = 0; i < 100; i += 1) {
    const [job] = await jobsOf(bed.merchant.merchantId, kind);
    if (job) return job;
    // Runs what is due now (the job that makes this one), a second of business time at a time.
    await bed.client.sandbox.advanceClock(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`no ${kind} job was made for merchant ${bed.merchant.merchantId}`);
}

/**
 * Moves the merchant's clock past the job's due time and its retries, and answers the dead job: of this kind, the
 * merchant's only one, with the injected error and five attempts, and given up on with nothing logged against that.
 */
async function runUntilDead(bed: Bed, kind: string): Promise<JobRow> {
  const job = await firstJob(bed, kind);
  await moveTo(bed.client, Math.max(job.due_at, await businessNow(bed.client)) + RETRIES_RUN);
  const jobs = await jobsOf(bed.merchant.merchantId, kind);
  const dead = jobs.filter((row) => row.state === 'dead');
  assert.equal(
    dead.length,
    1,
    `one ${kind} job is dead: ${JSON.stringify(jobs.map((row) => [row.state, row.attempts, row.last_error]))}`,
  );
  const row = dead[0]!;
  assert.deepEqual([row.state, row.last_error, row.attempts], ['dead', FAULT, 5]);
  assert.equal(
    row.dedupe_key === null || row.dedupe_key.endsWith(`#dead:${row.id}`),
    true,
    'its dedupe key is set free',
  );
  const faults = logLines.filter(
    (line) => line.job_id === row.id && line.msg !== 'job failed, will retry' && line.msg !== 'job failed for good',
  );
  assert.deepEqual(
    faults.map((line) => `${String(line.msg)}: ${JSON.stringify(line.err)}`),
    [],
    `nothing went wrong giving up on the ${kind} job`,
  );
  return row;
}

/** The one pending job of `kind` the give-up handler scheduled again, about an hour after the dead one. */
async function scheduledAgainLater(bed: Bed, kind: string, dead: JobRow): Promise<JobRow> {
  const pending = (await jobsOf(bed.merchant.merchantId, kind)).filter((row) => row.state === 'pending');
  assert.equal(pending.length, 1, `one ${kind} job is scheduled again`);
  const again = pending[0]!;
  const later = again.due_at - dead.due_at;
  assert.ok(
    later >= HOUR && later <= HOUR + 2 * MINUTE,
    `due about an hour after the job given up on (${later / MINUTE} minutes)`,
  );
  assert.equal(again.attempts, 0);
  assert.equal(again.last_error, null);
  return again;
}

function fpsPayee(): PayeeInput {
  const id = `${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}1`;
  return {
    type: 'People',
    nickname: 'Chan Tai Man',
    payout_account: { country: 'HK', currency: 'HKD', transfer_method: 'HK FPS- FPS ID', hk_fps: { fps_id: id } },
  };
}

/**
 * A funded merchant's payout to an FPS id, run (or not) as its jobs allow; the bank settles it 30 minutes after it is
 * sent.
 */
async function newPayout(bed: Bed, amount = '150.00') {
  await bed.client.sandbox.topUp({ currency: 'HKD', amount: '1000.00' });
  const payee = await bed.client.payees.create(fpsPayee());
  // A callback address nobody answers: the payout's events are in the events table all the same.
  return bed.client.payouts.create({
    payee_id: payee.id,
    currency: 'HKD',
    amount,
    callback_url: 'http://127.0.0.1:9/payouts',
  });
}

const balanceOf = async (client: PaygateClient) => {
  const found = (await client.balances.get()).find((balance) => balance.currency === 'HKD');
  return { available: found?.available, reserved: found?.reserved };
};

/**
 * A customer with a frictionless card bound and made their default, and a monthly HKD 100.00 plan of theirs that starts
 * now.
 */
async function monthlyPlan(client: PaygateClient) {
  const customer = await newCustomer(client);
  const token = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
  assert.equal(token.state, 'success');
  await client.customers.update(customer.uuid, {
    name: 'Chan Tai Man',
    phone: '91234567',
    default_payment_token: token.token,
  });
  const item = await client.recurring.createItem({ label: 'Gold', price: '100.00', currency: 'HKD' });
  const config = await client.recurring.createBillingConfig({ billing_interval: 'monthly', billing_type: 'automated' });
  return client.recurring.createPlan({
    name: 'Gold',
    reference_number: `GOLD-${randomUUID()}`,
    customer_uuid: customer.uuid,
    cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: config.id }],
  });
}

const planOrders = async (client: PaygateClient, planId: string) =>
  client.recurring.listOrders({ limit: 100, filters: { 'filter[plan.id][_eq]': planId } });

const orderIdOfTransaction = async (transactionId: string) =>
  (await db().selectFrom('transactions').select('order_id').where('id', '=', transactionId).executeTakeFirstOrThrow())
    .order_id;

const orderIdOfNumber = async (merchantId: string, number: string) =>
  (
    await db()
      .selectFrom('orders')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('number', '=', number)
      .executeTakeFirstOrThrow()
  ).id;

const PAYMENT_HEADER = [
  'Action',
  'Reference Number',
  'Customer UUID',
  'Amount',
  'Token ID',
  'Card Number',
  'Expiry Month',
  'Expiry Year',
  'CVC',
];
/** A CSV file of card payments, one row each. */
const cardPayments = (count: number) =>
  csv([
    PAYMENT_HEADER,
    ...Array.from({ length: count }, () => [
      'payment',
      `GIVEUP-${randomUUID().slice(0, 13)}`,
      '',
      '10.00',
      '',
      CARDS.visa,
      '12',
      '2040',
      '123',
    ]),
  ]);

/** The batch's file gone: no part of it stored, no row read from it. */
async function nothingOfTheFile(merchantId: string, batchId: string): Promise<void> {
  const parts = await db()
    .selectFrom('batch_file_parts')
    .select('part')
    .where('merchant_id', '=', merchantId)
    .where('batch_id', '=', batchId)
    .execute();
  assert.equal(parts.length, 0, 'no part of the file is left');
  const rows = await db()
    .selectFrom('batch_rows')
    .select('row_number')
    .where('merchant_id', '=', merchantId)
    .where('batch_id', '=', batchId)
    .execute();
  assert.equal(rows.length, 0, 'no row read from it is left');
}

/**
 * A batch's file given up on (fetched or read): failed, naming a fault of paygate's own, nothing of the file kept,
 * batch.failed sent.
 */
async function fileGivenUp(bed: Bed, kind: string, batchId: string): Promise<void> {
  await runUntilDead(bed, kind);
  const { batch_info: batch } = await bed.client.batches.get(batchId);
  assert.equal(batch.upload_status, 'failed');
  assert.match(batch.failure_reason ?? '', INTERNAL_FAULT);
  assert.doesNotMatch(batch.failure_reason ?? '', new RegExp(FAULT));
  assert.deepEqual([batch.total_records, batch.successful_records, batch.failed_records], [0, 0, 0]);
  await nothingOfTheFile(bed.merchant.merchantId, batchId);
  const events = await batchEventsOf(bed.merchant.merchantId);
  assert.deepEqual(
    events.map(([action, subject, status]) => [action, subject, status]),
    [['batch.failed', batchId, 'failed']],
  );
  assert.equal(events[0]![3], batch.failure_reason, 'the event carries the reason');
}

/** What each kind's job works for, made through the API, and the end its give-up handler must leave it at. */
const SCENARIOS: Record<string, (bed: Bed, kind: string) => Promise<void>> = {
  async 'batches.fetch'(bed, kind) {
    // Never fetched (the fault comes first): the address is not asked for.
    const created = await bed.client.batches.create({ file_url: `https://files.example.com/dues-${randomUUID()}.csv` });
    await fileGivenUp(bed, kind, created.id);
  },

  async 'batches.load'(bed, kind) {
    const created = await bed.client.batches.upload(cardPayments(3), { kind: 'csv' });
    const parts = await db().selectFrom('batch_file_parts').select('part').where('batch_id', '=', created.id).execute();
    assert.ok(parts.length > 0, 'the file sent as the body is stored, sealed, until it is read');
    await fileGivenUp(bed, kind, created.id);
  },

  async 'batches.run'(bed, kind) {
    const created = await bed.client.batches.upload(cardPayments(3), { kind: 'csv' });
    const sealed = () =>
      db()
        .selectFrom('batch_rows')
        .select(['row_number', 'state', 'card_sealed'])
        .where('batch_id', '=', created.id)
        .orderBy('row_number')
        .execute();
    await firstJob(bed, kind);
    assert.ok(
      (await sealed()).every((row) => row.card_sealed !== null),
      'read, the card rows keep their cards sealed until they run',
    );
    await runUntilDead(bed, kind);
    const { batch_info: batch } = await bed.client.batches.get(created.id);
    assert.equal(batch.upload_status, 'failed');
    assert.match(batch.failure_reason ?? '', /Rows 2 to 4 could not be run/);
    assert.match(batch.failure_reason ?? '', INTERNAL_FAULT);
    assert.deepEqual(
      [batch.total_records, batch.successful_records, batch.failed_records, batch.skipped_records],
      [3, 0, 0, 3],
    );
    const rows = await sealed();
    assert.deepEqual(
      rows.map((row) => [row.row_number, row.state, row.card_sealed]),
      [
        [2, 'skipped', null],
        [3, 'skipped', null],
        [4, 'skipped', null],
      ],
    );
    const events = await batchEventsOf(bed.merchant.merchantId);
    assert.deepEqual(events, [['batch.failed', created.id, 'failed', batch.failure_reason]]);
  },

  async 'orders.settle'(bed, kind) {
    const { transaction: sale } = await paidOrder(bed.client, '21.00');
    const dead = await runUntilDead(bed, kind);
    const { at } = JSON.parse(dead.payload) as { at: number };
    assert.ok((await businessNow(bed.client)) > at, 'the settlement time has passed');
    assert.equal(
      (await bed.client.transactions.check(sale.uuid)).transaction.allow_void,
      true,
      'the sale is not settled',
    );
    const pending = (await jobsOf(bed.merchant.merchantId, kind)).filter((row) => row.state === 'pending');
    assert.deepEqual(
      pending.map((row) => row.due_at),
      [nextLocalHour(at, DEFAULT_SETTLEMENT_HOUR, 'UTC')],
      "the next day's settlement is scheduled",
    );
    assert.equal(pending[0]!.due_at, at + DAY);
    // It settles what the one given up on did not.
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, pending[0]!.due_at + MINUTE);
    const settled = (await bed.client.transactions.check(sale.uuid)).transaction;
    assert.deepEqual([settled.allow_void, settled.allow_refund], [false, true], "settled by the next day's settlement");
  },

  async 'orders.expire_authorization'(bed, kind) {
    const { order, transaction: auth } = await paidOrder(bed.client, '40.00', 'pre_authorize');
    await runUntilDead(bed, kind);
    const { order: after, transaction } = await bed.client.transactions.check(auth.uuid);
    assert.deepEqual(
      [transaction.voided, transaction.allow_void, transaction.captured],
      [true, false, false],
      'the authorisation is voided',
    );
    assert.deepEqual([after.state, after.correspondence_state], ['invoiced', 'unpaid']);
    const stored = await db()
      .selectFrom('transactions')
      .select(['void_reason', 'void_is_pending'])
      .where('id', '=', auth.uuid)
      .executeTakeFirstOrThrow();
    assert.deepEqual([stored.void_reason, stored.void_is_pending], ['expired', 0]);
    const orderId = await orderIdOfNumber(bed.merchant.merchantId, order.number);
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId)).filter(([action]) => action === 'transaction.voided'),
      [['transaction.voided', orderId]],
    );
  },

  async 'orders.expire_payer_action'(bed, kind) {
    const order = await newOrder(bed.client, { charge_fee: '20.00' });
    const pending = await bed.client.orders.pay({ number: order.number }, { credit_card: card(CARDS.challenge) });
    assert.deepEqual(
      [pending.transaction.is_pending, Boolean(pending.transaction['3ds'])],
      [true, true],
      'waiting for the 3-D Secure challenge',
    );
    await runUntilDead(bed, kind);
    const { order: after, transaction } = await bed.client.transactions.check(pending.transaction.uuid);
    assert.deepEqual(
      [transaction.success, transaction.is_pending, transaction.payment_data.resp_code],
      [false, false, '05'],
    );
    assert.match(transaction.payment_data.resp_msg ?? '', /abandoned/);
    assert.equal(after.correspondence_state, 'unpaid');
    const stored = await db()
      .selectFrom('transactions')
      .select(['status', 'progress'])
      .where('id', '=', pending.transaction.uuid)
      .executeTakeFirstOrThrow();
    assert.deepEqual([stored.status, stored.progress], ['failed', 'done']);
    const orderId = await orderIdOfTransaction(pending.transaction.uuid);
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId)).filter(([action]) => action === 'order.payment_failure'),
      [['order.payment_failure', orderId]],
    );
    // Nothing of it holds the order: it is paid by another card.
    const paid = await bed.client.orders.pay({ number: order.number }, { credit_card: card(CARDS.visa) });
    assert.deepEqual([paid.transaction.success, paid.order.correspondence_state], [true, 'paid']);
    await ledgerAgrees(bed.merchant.merchantId);
    await challengeClosed(pending.transaction.uuid, pending.transaction['3ds']!.redirect_url);
  },

  async 'orders.void_overdue'(bed, kind) {
    const today = (await bed.client.sandbox.clock()).business_date;
    const order = await newOrder(bed.client, { charge_fee: '10.00', due_date: today });
    await runUntilDead(bed, kind);
    const after = await bed.client.orders.check({ order: { number: order.number } });
    assert.deepEqual([after.state, after.correspondence_state], ['voided', 'unpaid'], 'the overdue order is voided');
    const orderId = await orderIdOfNumber(bed.merchant.merchantId, order.number);
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId)).filter(([action]) => action === 'order.voided'),
      [['order.voided', orderId]],
    );
  },

  async 'payment_tokens.expire_binding'(bed, kind) {
    const customer = await newCustomer(bed.client);
    const pending = await bed.client.customers.bindCard(customer.uuid, bindingCard(CARDS.challenge));
    assert.equal(pending.state, 'pending', 'waiting for the 3-D Secure challenge');
    await runUntilDead(bed, kind);
    const token = await bed.client.customers.checkToken(pending.token);
    assert.equal(token.state, 'failed');
    assert.equal(token.error_code, '05');
    assert.match(token.error_msg ?? '', /abandoned/);
    assert.equal(token.verify_url, null);
    const stored = await db()
      .selectFrom('payment_tokens')
      .select(['id', 'progress', 'bind_reference'])
      .where('token', '=', pending.token)
      .executeTakeFirstOrThrow();
    assert.equal(stored.progress, 'done');
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId)).filter(([action]) => action.startsWith('payment_token.')),
      [['payment_token.failed', stored.id]],
    );
    // The payer answering the challenge now changes nothing.
    await (await postForm(pending.verify_url!, { outcome: 'passed' })).text();
    assert.equal((await bed.client.customers.checkToken(pending.token)).state, 'failed');
    await ledgerAgrees(bed.merchant.merchantId);
    await challengeClosed(stored.bind_reference, pending.verify_url!);
  },

  async 'recurring.bill'(bed, kind) {
    const plan = await monthlyPlan(bed.client);
    assert.equal(plan.state, 'active');
    const dead = await runUntilDead(bed, kind);
    const after = await bed.client.recurring.getPlan(plan.id);
    assert.equal(after.state, 'active', 'the plan is still active');
    assert.deepEqual(
      after.cycles.map((cycle) => [cycle.state, cycle.billing_count]),
      [['active', 0]],
    );
    assert.equal((await planOrders(bed.client, plan.id)).length, 0, 'nothing billed yet');
    const again = await scheduledAgainLater(bed, kind, dead);
    // Billed by the job an hour later.
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, again.due_at + MINUTE);
    const orders = await planOrders(bed.client, plan.id);
    assert.deepEqual(
      orders.map((order) => order.order.correspondence_state),
      ['paid'],
      'billed once, an hour later',
    );
  },

  async 'recurring.refund_credit'(bed, kind) {
    const plan = await monthlyPlan(bed.client);
    await bed.client.sandbox.advanceClock(1);
    // Past the daily settlement: the sale to refund is settled.
    await bed.client.sandbox.advanceClock(DAY / SECOND + 60);
    const [billed] = await planOrders(bed.client, plan.id);
    assert.equal(billed?.order.correspondence_state, 'paid');
    const cancelled = await bed.client.recurring.cancelPlan(plan.id, {
      activate_type: 'immediate',
      refund_credit: true,
    });
    assert.equal(cancelled.state, 'cancelled');
    const dead = await runUntilDead(bed, kind);
    const refundsOf = async () =>
      ((await bed.client.orders.check({ order: { number: billed!.order.order_number } })).transactions ?? [])
        .filter((transaction) => transaction.type === 'Refund')
        .map((transaction) => [transaction.amount, transaction.success]);
    assert.deepEqual(await refundsOf(), [], 'nothing refunded yet');
    assert.equal((await bed.client.recurring.getPlan(plan.id)).state, 'cancelled');
    const again = await scheduledAgainLater(bed, kind, dead);
    assert.deepEqual(JSON.parse(again.payload), JSON.parse(dead.payload), 'the same refund is asked for again');
    // Refunded, once, by the job an hour later.
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, again.due_at + MINUTE);
    const refunds = await refundsOf();
    assert.equal(refunds.length, 1, 'refunded once, an hour later');
    assert.equal(refunds[0]![1], true);
  },

  async 'payouts.run'(bed, kind) {
    const created = await newPayout(bed);
    assert.equal(created.schedule_status, 'Approved');
    await runUntilDead(bed, kind);
    const payout = await bed.client.payouts.get(created.id);
    assert.deepEqual([payout.schedule_status, payout.transfer_status], ['Failed', 'Initiated']);
    assert.match(payout.status_reason ?? '', INTERNAL_FAULT);
    assert.doesNotMatch(payout.status_reason ?? '', new RegExp(FAULT));
    assert.deepEqual(await balanceOf(bed.client), { available: '1000.00', reserved: '0.00' }, 'nothing was reserved');
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId))
        .filter(([, subject]) => subject === created.id)
        .map(([action]) => action),
      ['payout.created', 'payout.failed'],
    );
  },

  async 'payouts.follow'(bed, kind) {
    const created = await newPayout(bed);
    const dead = await runUntilDead(bed, kind);
    const payout = await bed.client.payouts.get(created.id);
    assert.deepEqual(
      [payout.schedule_status, payout.transfer_status],
      ['Approved', 'Processing Transfer'],
      "the transfer is still the bank's",
    );
    assert.deepEqual(
      await balanceOf(bed.client),
      { available: '850.00', reserved: '150.00' },
      'its amount stays reserved',
    );
    const again = await scheduledAgainLater(bed, kind, dead);
    assert.deepEqual(JSON.parse(again.payload), { ...JSON.parse(dead.payload), attempt: 1 }, 'the bank is asked again');
    // The bank's next report comes through once it is asked again.
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, again.due_at + MINUTE);
    assert.equal(
      (await bed.client.payouts.get(created.id)).transfer_status,
      'Settled',
      'settled once the bank is asked again',
    );
    assert.deepEqual(await balanceOf(bed.client), { available: '850.00', reserved: '0.00' });
  },

  async 'payouts.report'(bed, kind) {
    const created = await newPayout(bed);
    const dead = await runUntilDead(bed, kind);
    const payout = await bed.client.payouts.get(created.id);
    assert.deepEqual(
      [payout.schedule_status, payout.transfer_status],
      ['Approved', 'Processing Transfer'],
      'the report is not applied yet',
    );
    assert.deepEqual(await balanceOf(bed.client), { available: '850.00', reserved: '150.00' });
    const again = await scheduledAgainLater(bed, kind, dead);
    assert.deepEqual(JSON.parse(again.payload), JSON.parse(dead.payload), 'the same report, applied again later');
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, again.due_at + MINUTE);
    assert.equal((await bed.client.payouts.get(created.id)).transfer_status, 'Settled', 'applied an hour later');
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId))
        .filter(([, subject]) => subject === created.id)
        .map(([action]) => action),
      ['payout.created', 'payout.processing', 'payout.settled'],
    );
  },

  async 'issuing.expire_authorizations'(bed, kind) {
    await bed.client.sandbox.topUp({ currency: 'HKD', amount: '1000.00' });
    const issued = await newCard(bed.client);
    const { transaction, decline_reason } = await bed.client.sandbox.authorize(spend(issued.id, '10.00'));
    assert.equal(decline_reason, null);
    const dead = await runUntilDead(bed, kind);
    const stored = await db()
      .selectFrom('issued_card_transactions')
      .select(['status', 'expires_at'])
      .where('id', '=', transaction.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.status, 'Authorized', 'the authorisation is still open, its hold kept');
    assert.ok(stored.expires_at !== null && stored.expires_at <= dead.due_at, 'though it is due to expire');
    const held = (await bed.client.balances.get()).find((balance) => balance.currency === 'HKD');
    assert.equal(held?.on_hold, '10.00');
    const again = await scheduledAgainLater(bed, kind, dead);
    // Swept an hour later.
    heal(kind, bed.merchant.merchantId);
    await moveTo(bed.client, again.due_at + MINUTE);
    const expired = await db()
      .selectFrom('issued_card_transactions')
      .select('status')
      .where('id', '=', transaction.id)
      .executeTakeFirstOrThrow();
    assert.equal(expired.status, 'Expired', 'expired by the sweep an hour later');
    assert.deepEqual(
      (await eventsOf(bed.merchant.merchantId)).filter(([action]) => action === 'card_transaction.expired').length,
      1,
    );
  },
};

describe('a job that fails for good (issue 34): each kind of merchant job, given up on, leaves its object at an end', () => {
  before(async () => {
    server = await startTestServer({ logLines });
    // Every merchant job throws for the merchants made faulty for its kind; its give-up handler and options stay.
    for (const definition of merchantJobs()) {
      const { kind, run } = definition;
      const wrapped: MerchantJob = {
        ...definition,
        run: async (ctx, payload, job) => {
          if (faulty.get(kind)?.has(ctx.merchant.id)) throw new Error(FAULT);
          await run(ctx, payload, job);
        },
      };
      server.server.scheduler.register(wrapped);
    }
  });
  after(() => server?.close());

  test('every merchant job kind the server registers has a scenario here', () => {
    const kinds = merchantJobs()
      .map((definition) => definition.kind)
      .sort();
    assert.ok(kinds.length > 0);
    assert.deepEqual(
      kinds.filter((kind) => !(kind in SCENARIOS)),
      [],
      'kinds with no give-up scenario',
    );
    assert.deepEqual(
      Object.keys(SCENARIOS).filter((kind) => !kinds.includes(kind)),
      [],
      'scenarios of kinds no longer registered',
    );
  });

  for (const [kind, scenario] of Object.entries(SCENARIOS)) {
    test(kind, async () => {
      const merchant = await server.newMerchant({ name: `Faulty ${kind}` });
      // Faulty before its object exists: the scheduler's lanes may run a job due now as soon as it is made.
      makeFaulty(kind, merchant.merchantId);
      await scenario({ merchant, client: merchant.client }, kind);
      await ledgerAgrees(merchant.merchantId);
    });
  }
});
