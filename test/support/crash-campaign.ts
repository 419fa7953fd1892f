import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_IN_PROGRESS, type PaygateClient, PaygateConnectionError, PaygateError } from '@paygate/client';
import { customerWithToken } from '../batches/support.js';
import { type CrashBed, type CrashServer, startCrashBed } from './crash-bed.js';
import { CARDS, card } from './fixtures.js';
import { spend, userInput } from './issuing.js';
import { runCli, startServe } from './processes.js';
import { TestReceiver } from './receiver.js';

/**
 * The crash campaign (issue 17): a mixed, seeded load on real `paygate serve` processes (one on SQLite; two sharing
 * PostgreSQL, one of them killed each time) that are killed with SIGKILL at random moments and started again; then
 * the checks that nothing acknowledged was lost and nothing was done twice.
 *
 * The load: orders paid by card, by a saved token and by wallet (the payer's answer simulated), pre-authorisations
 * captured, settled sales refunded in part, card authorisations of issued cards settled, payouts through the sandbox
 * bank, a batch of token payments running all along, and the business clock moved four hours at a time, which bills
 * a daily plan and settles the day's sales. Every request carries an Idempotency-Key (a payout, its reference); a
 * request that got no answer (its process died) is sent again with the same key, to whichever process is up, until
 * it is answered: what it answers is acknowledged.
 *
 * The checks, after the last restart, once the processes have settled what the kills left (rail calls pending,
 * leases, deliveries): every acknowledged operation exists, exactly once, as it was acknowledged; no order is paid
 * twice, no pre-authorisation captured twice, no sale refunded beyond its amount or by more refunds than were asked
 * for; no card authorisation, payout or billing time is made twice; every batch row ran once; every billing time that
 * came is billed once; `paygate ledger check` finds nothing; every event reached the receiver at least once.
 */
export interface CampaignOptions {
  seed: number;
  kills: number;
  /** Requests at once. */
  concurrency?: number;
  /** Between kills, a random pause up to this long. */
  maxPauseMs?: number;
  log?: (line: string) => void;
}

export interface CampaignReport {
  database: 'SQLite' | 'PostgreSQL';
  processes: number;
  kills: number;
  seed: number;
  /** Operations answered, by kind; sent again after a kill before they were: `resent`. */
  acknowledged: Record<Kind, number>;
  resent: number;
  /** Everything found wrong: empty is the campaign passing. */
  problems: string[];
  events: { recorded: number; received: number };
  /** Card authorisations the load went to settle after the business clock had expired them (refused, and Expired). */
  expiredBeforeSettling: number;
  billings: number;
  batchRows: number;
  seconds: number;
}

type Kind =
  | 'card_payment'
  | 'token_payment'
  | 'wallet_payment'
  | 'capture'
  | 'refund'
  | 'card_authorization'
  | 'card_settlement'
  | 'payout'
  | 'clock';
const KINDS: Kind[] = [
  'card_payment',
  'token_payment',
  'wallet_payment',
  'capture',
  'refund',
  'card_authorization',
  'card_settlement',
  'payout',
  'clock',
];
/** How often each kind is picked. */
const WEIGHTS: Record<Kind, number> = {
  card_payment: 5,
  token_payment: 5,
  wallet_payment: 2,
  capture: 2,
  refund: 2,
  card_authorization: 5,
  card_settlement: 2,
  payout: 3,
  clock: 1,
};
/** Issuing's refusal to change an authorisation no longer open (here: expired). */
const AUTHORIZATION_CLOSED = '700202';
/** Rows of the batch that runs while the processes are killed. */
const BATCH_ROWS = 40;
/** Each clock move: four hours, so that the day's settlement comes (sales become refundable) and the plan bills. */
const CLOCK_STEP_SECONDS = 4 * 3_600;

/**
 * A small deterministic generator (mulberry32). The seed decides the kinds of operation and the pauses between kills;
 * which request a kill cuts off depends on timing too, so two runs of one seed differ there.
 */
class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function runCrashCampaign(options: CampaignOptions): Promise<CampaignReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const rng = new Rng(options.seed >>> 0);
  const receiver = await TestReceiver.start();
  // A request a kill cut off holds its Idempotency-Key until its claim runs out: 5 s rather than a minute, so that
  // the load goes on between kills (and a slow request whose claim a retry takes over is part of what is tested).
  const bed = await startCrashBed({
    label: 'campaign',
    merchantName: 'Campaign',
    startAll: true,
    env: { PAYGATE_IDEMPOTENCY_LOCK_MS: '5000' },
  });
  try {
    const db = bed.database.db;
    const env = bed.servers[0]!.env;
    const app = await db.selectFrom('apps').select('id').executeTakeFirstOrThrow();
    const hooked = await runCli(['app', 'webhook', app.id, `${receiver.url}/campaign`], env);
    if (hooked.code !== 0) throw new Error(`paygate app webhook: ${hooked.stderr}`);
    const setup = bed.servers[0]!.client;

    // What the load works with: funds, saved cards, an issued card, a payee, a plan billed every day.
    await setup.sandbox.topUp({ currency: 'HKD', amount: '1000000.00' });
    const tokens = [await customerWithToken(setup), await customerWithToken(setup)];
    const cardholder = await setup.users.create(userInput());
    const issued = await setup.cards.create({
      user_id: cardholder,
      reference_id: `CARD-${randomUUID()}`,
      title: 'Campaign',
      settlement_currency: 'HKD',
    });
    const payee = await setup.payees.create({
      type: 'People',
      nickname: 'Campaign payee',
      payout_account: {
        country: 'HK',
        currency: 'HKD',
        transfer_method: 'HK FPS- FPS ID',
        hk_fps: { fps_id: '76543211' },
      },
    });
    const item = await setup.recurring.createItem({ label: 'Daily', price: '3.00', currency: 'HKD' });
    const daily = await setup.recurring.createBillingConfig({ billing_interval: 'daily', billing_type: 'automated' });
    const plan = await setup.recurring.createPlan({
      name: 'Daily',
      reference_number: `PLAN-${randomUUID()}`,
      customer_uuid: tokens[0]!.customer,
      default_payment_token: tokens[0]!.token,
      cycles: [{ recurring_items: [{ id: item.id }], recurring_billing_config: daily.id }],
    });

    // A batch of token payments, running while the processes are killed.
    const batchRows = [
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
      ...Array.from({ length: BATCH_ROWS }, (_, i) => [
        'payment',
        `BATCH-${randomUUID()}-${i}`,
        tokens[i % 2]!.customer,
        '1.50',
        tokens[i % 2]!.token,
      ]),
    ];
    const batch = await setup.batches.upload(batchRows.map((row) => row.join(',')).join('\r\n'), {
      kind: 'csv',
      batchName: 'campaign',
    });

    const acknowledged = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
    const ackedOrders: string[] = [];
    const ackedTransactions: Array<{ id: string; succeeded: boolean }> = [];
    const ackedCardTransactions: string[] = [];
    const ackedPayouts: string[] = [];
    const authorizations: string[] = [];
    const expiredBeforeSettling: string[] = [];
    const preAuthorizations: string[] = [];
    const refunds: string[] = [];
    let refundsAsked = 0;
    let resent = 0;

    const live = (): CrashServer[] => bed.servers.filter((server) => server.serve !== undefined);
    /** Sends one request until a process answers it; the same request (the same key) each time. */
    async function answered<T>(send: (client: PaygateClient) => Promise<T>): Promise<T> {
      for (let attempt = 0; ; attempt += 1) {
        const up = live();
        const server = up[attempt % Math.max(up.length, 1)];
        try {
          if (!server) throw new PaygateConnectionError('no process is up', undefined);
          return await send(server.client);
        } catch (error) {
          const again =
            error instanceof PaygateConnectionError ||
            (error instanceof PaygateError && (error.status >= 500 || error.errorCode === IDEMPOTENCY_IN_PROGRESS));
          if (!again || attempt > 2_000) throw error;
          if (attempt === 0) resent += 1;
          await sleep(50);
        }
      }
    }
    const keyed = () => ({ idempotencyKey: randomUUID() });

    async function operate(kind: Kind): Promise<void> {
      switch (kind) {
        case 'card_payment':
        case 'token_payment': {
          const reference = `ORDER-${randomUUID()}`;
          const create = keyed();
          await answered((client) =>
            client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '12.00' }, create),
          );
          const pay = keyed();
          const token = tokens[rng.below(tokens.length)]!;
          const method =
            kind === 'card_payment'
              ? { credit_card: card(CARDS.visa) }
              : { payment_token: { token: token.token, entry_type: 'mit' as const } };
          const paid = await answered((client) => client.orders.pay({ reference_number: reference }, method, pay));
          ackedOrders.push(reference);
          // A payment whose call to the acquirer a kill cut off before the acquirer had it is failed by recovery: its
          // retry is answered so, and the merchant pays again under a new key.
          ackedTransactions.push({ id: paid.transaction.uuid, succeeded: paid.transaction.success });
          break;
        }
        case 'wallet_payment': {
          const reference = `WALLET-${randomUUID()}`;
          const create = keyed();
          await answered((client) =>
            client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '8.00' }, create),
          );
          const pay = keyed();
          const pending = await answered((client) =>
            client.orders.pay({ reference_number: reference }, { alipay: {} }, pay),
          );
          ackedOrders.push(reference);
          if (!pending.transaction.is_pending) {
            ackedTransactions.push({ id: pending.transaction.uuid, succeeded: pending.transaction.success });
            break;
          }
          // The payer pays in the wallet; unless a kill came first and recovery ended the payment (then it is as it
          // stands).
          const succeed = keyed();
          try {
            const paid = await answered((client) => client.sandbox.succeed(pending.transaction.uuid, succeed));
            ackedTransactions.push({ id: paid.transaction.uuid, succeeded: paid.transaction.success });
          } catch (error) {
            if (!(error instanceof PaygateError && error.status < 500)) throw error;
            const now = await answered((client) => client.transactions.check(pending.transaction.uuid));
            ackedTransactions.push({ id: now.transaction.uuid, succeeded: now.transaction.success });
          }
          break;
        }
        case 'refund': {
          // A settled sale of the load, refunded 1.00 at a time (sales of 12.00: several refunds each).
          const settled = await db
            .selectFrom('transactions')
            .select('id')
            .where('type', '=', 'Sales')
            .where('status', '=', 'succeeded')
            .where('settled_at', 'is not', null)
            .where('payment_method', '=', 'credit_card')
            .limit(50)
            .execute();
          if (settled.length === 0) return;
          const sale = settled[rng.below(settled.length)]!.id;
          refundsAsked += 1;
          const key = keyed();
          try {
            const refunded = await answered((client) => client.transactions.refund(sale, { amount: '1.00' }, key));
            // Failed by recovery (cut off before the acquirer had it), a refund refunds nothing; it is still the
            // answer.
            ackedTransactions.push({ id: refunded.transaction.uuid, succeeded: refunded.transaction.success });
            if (refunded.transaction.success) refunds.push(refunded.transaction.uuid);
          } catch (error) {
            // Refunded in full already: a refusal, and nothing made.
            if (!(error instanceof PaygateError && error.status < 500)) throw error;
            refundsAsked -= 1;
            return;
          }
          break;
        }
        case 'capture': {
          const reference = `AUTH-${randomUUID()}`;
          const create = keyed();
          await answered((client) =>
            client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '20.00' }, create),
          );
          const hold = keyed();
          const held = await answered((client) =>
            client.orders.pay(
              { reference_number: reference },
              { credit_card: card(CARDS.visa, { consume_mode: 'pre_authorize' }) },
              hold,
            ),
          );
          ackedTransactions.push({ id: held.transaction.uuid, succeeded: held.transaction.success });
          // Failed by recovery (cut off before the acquirer had it): nothing to capture.
          if (!held.transaction.success) break;
          // A capture whose call to the acquirer a kill cut off before the acquirer had it is failed by recovery, like
          // a
          // payment: the merchant captures again under a new key.
          for (let tries = 1; ; tries += 1) {
            const capture = keyed();
            const reply = await answered((client) =>
              client.transactions.capture(held.transaction.uuid, '15.00', capture),
            );
            ackedTransactions.push({ id: reply.transaction.uuid, succeeded: reply.transaction.success });
            if (reply.transaction.success) break;
            if (tries === 5) throw new Error(`the capture of ${held.transaction.uuid} failed ${tries} times`);
          }
          ackedOrders.push(reference);
          preAuthorizations.push(held.transaction.uuid);
          break;
        }
        case 'card_authorization': {
          const key = keyed();
          const outcome = await answered((client) => client.sandbox.authorize(spend(issued.id, '2.00'), key));
          ackedCardTransactions.push(outcome.transaction.id);
          if (outcome.decline_reason === null) authorizations.push(outcome.transaction.id);
          break;
        }
        case 'card_settlement': {
          const id = authorizations.shift();
          if (id === undefined) return;
          const key = keyed();
          try {
            await answered((client) => client.sandbox.settle(id, undefined, key));
          } catch (error) {
            // The clock moves four hours at a time: an authorisation older than its lifetime has expired, and the
            // network refuses to settle it (checked below: it is Expired).
            if (!(error instanceof PaygateError && error.errorCode === AUTHORIZATION_CLOSED)) throw error;
            expiredBeforeSettling.push(id);
            return;
          }
          break;
        }
        case 'payout': {
          const referenceId = `PAYOUT-${randomUUID()}`;
          const payout = await answered((client) =>
            client.payouts.create({
              payee_id: payee.id,
              currency: 'HKD',
              amount: '5.00',
              callback_url: `${receiver.url}/payouts`,
              reference_id: referenceId,
            }),
          );
          ackedPayouts.push(payout.id);
          break;
        }
        case 'clock': {
          const key = keyed();
          await answered((client) => client.sandbox.advanceClock(CLOCK_STEP_SECONDS, key));
          break;
        }
      }
      acknowledged[kind] += 1;
    }

    const total = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
    const pick = (): Kind => {
      let n = rng.below(total);
      for (const kind of KINDS) {
        n -= WEIGHTS[kind];
        if (n < 0) return kind;
      }
      return 'card_payment';
    };

    // The load runs until the last kill has restarted its process; the killer picks its moments.
    let loading = true;
    const failures: unknown[] = [];
    const workers = Array.from({ length: options.concurrency ?? 6 }, async () => {
      while (loading) {
        try {
          await operate(pick());
        } catch (error) {
          failures.push(error);
          loading = false;
        }
      }
    });
    for (let kill = 1; kill <= options.kills && loading; kill += 1) {
      await sleep(200 + rng.below(options.maxPauseMs ?? 1_500));
      const victim = bed.servers[rng.below(bed.servers.length)]!;
      await victim.serve!.stop('SIGKILL');
      victim.serve = undefined;
      const down = Date.now();
      victim.serve = await startServe(victim.env);
      log(
        `kill ${kill}: process on port ${victim.env.PORT}, started again in ${Date.now() - down} ms; ${Object.values(acknowledged).reduce((a, b) => a + b, 0)} operations acknowledged`,
      );
    }
    await sleep(500);
    loading = false;
    await Promise.all(workers);
    if (failures.length > 0) throw failures[0];

    // Settle what the kills left: a payment or payout whose rail call was cut off is recovered (at start on SQLite,
    // periodically on PostgreSQL); a dead process's leases run out (forced here rather than waited for: a live
    // process's job that runs twice must do nothing the second time anyway).
    const expireLeases = async () => {
      await db
        .updateTable('jobs')
        .set({ lease_expires_at: Date.now() - 1 })
        .where('state', '=', 'running')
        .execute();
      await db
        .updateTable('webhook_deliveries')
        .set({ lease_expires_at: Date.now() - 1 })
        .where('state', '=', 'sending')
        .execute();
    };
    const unsettled = async () => {
      const [sending, bank, deliveries] = await Promise.all([
        db
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('progress', '=', 'sending')
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('payout_requests')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('bank_started_at', 'is not', null)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', 'in', ['pending', 'sending'])
          .where('url', 'like', `${receiver.url}%`)
          .executeTakeFirstOrThrow(),
      ]);
      const running = await db
        .selectFrom('batches')
        .select('upload_status')
        .where('id', '=', batch.id)
        .executeTakeFirstOrThrow();
      return (
        Number(sending.n) +
        Number(bank.n) +
        Number(deliveries.n) +
        (['success', 'failed', 'cancelled'].includes(running.upload_status) ? 0 : 1)
      );
    };
    const problems: string[] = [];
    const settle = async (when: string) => {
      const settling = Date.now();
      for (let i = 0; i < 600 && (await unsettled()) > 0; i += 1) {
        if (i % 20 === 19) await expireLeases();
        await sleep(100);
      }
      const left = await unsettled();
      if (left > 0)
        problems.push(`${when}: ${left} payments, transfers, deliveries or batches still unsettled after 60 s`);
      log(`${when}: settled in ${Date.now() - settling} ms`);
    };
    await settle('after the load');
    // Every report the sandbox bank had to make, and the day's settlements.
    await answered((client) => client.sandbox.advanceClock(2 * 3_600, keyed()));
    await settle('after the last clock move');

    const count = (rows: Array<{ n: number | string | bigint }>) => Number(rows[0]?.n ?? 0);

    // Orders: each acknowledged one exists once, paid once; no order anywhere has two successful charges.
    const orderCounts = await db
      .selectFrom('orders')
      .select(['reference_number'])
      .where('reference_number', 'in', ackedOrders.length > 0 ? ackedOrders : ['-'])
      .execute();
    if (orderCounts.length !== new Set(ackedOrders).size)
      problems.push(`${new Set(ackedOrders).size - orderCounts.length} acknowledged orders missing`);
    const doubled = await db
      .selectFrom('transactions')
      .select(['order_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('type', 'in', ['Sales', 'Authorization'])
      .where('status', '=', 'succeeded')
      .groupBy('order_id')
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    for (const row of doubled) problems.push(`order ${row.order_id} charged ${row.n} times`);
    const captured = await db
      .selectFrom('transactions')
      .select(['original_transaction_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('type', '=', 'Capture')
      .where('status', '=', 'succeeded')
      .groupBy('original_transaction_id')
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    for (const row of captured)
      problems.push(`pre-authorisation ${row.original_transaction_id} captured ${row.n} times`);
    const found = await db
      .selectFrom('transactions')
      .select(['id', 'status'])
      .where('id', 'in', ackedTransactions.length > 0 ? ackedTransactions.map((t) => t.id) : ['-'])
      .execute();
    for (const { id, succeeded } of ackedTransactions) {
      const status = found.find((t) => t.id === id)?.status ?? 'missing';
      if (status !== (succeeded ? 'succeeded' : 'failed'))
        problems.push(`payment ${id} was acknowledged ${succeeded ? 'succeeded' : 'failed'} and is ${status}`);
    }
    const capturedOnce = await db
      .selectFrom('transactions')
      .select('original_transaction_id')
      .where('type', '=', 'Capture')
      .where('status', '=', 'succeeded')
      .where('original_transaction_id', 'in', preAuthorizations.length > 0 ? preAuthorizations : ['-'])
      .execute();
    if (capturedOnce.length !== preAuthorizations.length)
      problems.push(`${preAuthorizations.length - capturedOnce.length} acknowledged captures missing`);

    // Refunds: each acknowledged one exists; no more made than asked for; no sale refunded beyond its amount.
    const refundRows = await db
      .selectFrom('transactions')
      .select(['id', 'original_transaction_id', 'amount'])
      .where('type', '=', 'Refund')
      .where('status', '=', 'succeeded')
      .execute();
    const missingRefunds = refunds.filter((id) => !refundRows.some((row) => row.id === id));
    if (missingRefunds.length > 0) problems.push(`${missingRefunds.length} acknowledged refunds missing`);
    if (refundRows.length > refundsAsked)
      problems.push(`${refundRows.length} refunds made for ${refundsAsked} asked for`);
    const overRefunded = await db
      .selectFrom('transactions as sale')
      .innerJoin('transactions as refund', 'refund.original_transaction_id', 'sale.id')
      .select(['sale.id', 'sale.amount', (eb) => eb.fn.sum<number>('refund.amount').as('refunded')])
      .where('refund.type', '=', 'Refund')
      .where('refund.status', '=', 'succeeded')
      .groupBy(['sale.id', 'sale.amount'])
      .execute();
    for (const row of overRefunded)
      if (Number(row.refunded) > Number(row.amount))
        problems.push(`sale ${row.id} refunded ${row.refunded} of ${row.amount}`);

    // The batch: every row ran once (its order paid once, by the check above), its counters its rows' outcomes.
    const finishedBatch = await db
      .selectFrom('batches')
      .select(['upload_status', 'total_records', 'successful_records', 'failed_records'])
      .where('id', '=', batch.id)
      .executeTakeFirstOrThrow();
    const rowStates = await db
      .selectFrom('batch_rows')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('batch_id', '=', batch.id)
      .groupBy('state')
      .execute();
    const rowsIn = (state: string) => Number(rowStates.find((row) => row.state === state)?.n ?? 0);
    if (finishedBatch.upload_status !== 'success' || Number(finishedBatch.total_records) !== BATCH_ROWS) {
      problems.push(
        `the batch is ${finishedBatch.upload_status} with ${finishedBatch.total_records} of ${BATCH_ROWS} rows`,
      );
    }
    if (
      Number(finishedBatch.successful_records) !== rowsIn('succeeded') ||
      Number(finishedBatch.failed_records) !== rowsIn('failed') ||
      rowsIn('succeeded') + rowsIn('failed') !== BATCH_ROWS
    ) {
      problems.push(
        `the batch counts ${finishedBatch.successful_records} succeeded and ${finishedBatch.failed_records} failed; its rows ${JSON.stringify(rowStates)}`,
      );
    }

    // Card transactions and payouts: each acknowledged one exists; none made twice under one key.
    const cardRows = await db
      .selectFrom('issued_card_transactions')
      .select('id')
      .where('id', 'in', ackedCardTransactions.length > 0 ? ackedCardTransactions : ['-'])
      .execute();
    if (cardRows.length !== new Set(ackedCardTransactions).size)
      problems.push(`${ackedCardTransactions.length - cardRows.length} acknowledged card transactions missing`);
    const expired = await db
      .selectFrom('issued_card_transactions')
      .select(['id', 'status'])
      .where('id', 'in', expiredBeforeSettling.length > 0 ? expiredBeforeSettling : ['-'])
      .execute();
    for (const row of expired)
      if (row.status !== 'Expired') problems.push(`card authorisation ${row.id} refused settling and is ${row.status}`);
    const cardTotal = count(
      await db
        .selectFrom('issued_card_transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .execute(),
    );
    // Every authorisation sent was sent again until answered: one card transaction each, no more, no fewer.
    if (cardTotal !== acknowledged.card_authorization)
      problems.push(
        `${cardTotal} card transactions for ${acknowledged.card_authorization} acknowledged authorisations`,
      );
    const payoutRows = await db
      .selectFrom('payout_requests')
      .select(['id', 'transfer_status', 'schedule_status'])
      .execute();
    const missingPayouts = ackedPayouts.filter((id) => !payoutRows.some((row) => row.id === id));
    if (missingPayouts.length > 0) problems.push(`${missingPayouts.length} acknowledged payouts missing`);
    if (payoutRows.length !== acknowledged.payout)
      problems.push(`${payoutRows.length} payouts for ${acknowledged.payout} acknowledged payout requests`);
    // Each payout's events: one of each kind (created, processing, settled), never two.
    const payoutEvents = await db
      .selectFrom('events')
      .select(['subject_id', 'action', (eb) => eb.fn.countAll<number>().as('n')])
      .where('action', 'like', 'payout.%')
      .groupBy(['subject_id', 'action'])
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    for (const row of payoutEvents) problems.push(`payout ${row.subject_id} has ${row.n} ${row.action} events`);
    const stuck = payoutRows.filter((row) => row.schedule_status === 'Approved' && row.transfer_status !== 'Settled');
    if (stuck.length > 0)
      problems.push(
        `${stuck.length} approved payouts not settled: ${stuck
          .slice(0, 3)
          .map((row) => `${row.id} ${row.transfer_status}`)
          .join(', ')}`,
      );

    // The plan: one billing per billing time that came, each charged at most once.
    const billings = await db
      .selectFrom('recurring_billings')
      .select(['sequence', 'billing_at', 'order_id'])
      .where('plan_id', '=', plan.id)
      .orderBy('sequence')
      .execute();
    const clock = await answered((client) => client.sandbox.clock());
    const first = billings[0]?.billing_at;
    const due = first === undefined ? 0 : Math.floor((Date.parse(clock.now) - Number(first)) / 86_400_000) + 1;
    if (billings.length !== due)
      problems.push(`the plan has ${billings.length} billings for ${due} billing times that came`);
    if (billings.some((billing, i) => billing.sequence !== billings[0]!.sequence + i))
      problems.push('the plan skipped or repeated a billing time');

    // The ledger agrees with itself and with every record.
    const check = await runCli(['ledger', 'check', '--json'], env);
    if (check.code !== 0)
      problems.push(`paygate ledger check: ${check.stdout.slice(0, 500)}${check.stderr.slice(0, 500)}`);

    // Every event reached the receiver at least once.
    const events = await db.selectFrom('events').select('id').execute();
    const received = new Set(receiver.matching({ path: '/campaign' }).map((hit) => String(hit.headers['x-event-id'])));
    const undelivered = events.filter((event) => !received.has(event.id));
    if (undelivered.length > 0)
      problems.push(`${undelivered.length} of ${events.length} events never reached the receiver`);

    return {
      database: bed.shared ? 'PostgreSQL' : 'SQLite',
      processes: bed.servers.length,
      kills: options.kills,
      seed: options.seed,
      acknowledged,
      resent,
      problems,
      events: { recorded: events.length, received: received.size },
      expiredBeforeSettling: expiredBeforeSettling.length,
      billings: billings.length,
      batchRows: BATCH_ROWS,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await bed.close();
    await receiver.close();
  }
}

export type { CrashBed };
