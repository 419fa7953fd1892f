import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { BatchInfo, PaygateClient } from '@paygate/client';
import { sql } from 'kysely';
import type { Database } from '../../src/platform/database/database.js';
import { type CrashBed, type CrashServer, startCrashBed } from '../support/crash-bed.js';
import { CARDS } from '../support/fixtures.js';
import { POSTGRES_URL } from '../support/postgres.js';
import { startServe } from '../support/processes.js';
import { csv, customerWithToken, FINISHED } from './support.js';

// Issue 13, "done when": a crash test kills the server with SIGKILL while a batch runs and shows after restart that
// every row ran exactly once (no order paid twice, no transaction refunded twice, counters equal to the rows'
// outcomes); two PostgreSQL processes share one batch with the same result.
//
// Real `paygate serve` processes run a batch of payments (by token and by card number) and refunds (of all, or part,
// of sales settled the day before): 3,200 rows on SQLite, 1,920 on PostgreSQL, where rows run slower.
// The process running it is killed with SIGKILL, each time with payments or a refund at the acquirer whose answers are
// not recorded yet, and restarted on the same data. Then every row has ended once: each payment row's order has one
// succeeded Sales transaction, under the row's key (a payment cut off before the acquirer had it is sent again under
// the key's next number), charged at most once at the acquirer; each refunded sale has one Refund,
// made at most once; each row's state is what its transaction came to, and the counters are the rows' states. On
// PostgreSQL a second process takes the batch over from the first, killed, and the first, restarted, from the second.
// Smaller batches then aim a kill at the acquirer's slowest answer: a card row, and a refund of all of a sale, whose
// operation the acquirer made but whose answer no one recorded.
//
// The last test (PostgreSQL) has two processes run the same chunk at once, as they would if one lost its lease while
// running it (held still with SIGSTOP past its lease, then woken): every row is still paid once, and counted once.

const PG = POSTGRES_URL !== undefined;
const BLOCKS = PG ? 6 : 10;
/** A block of the crash batch: 300 payments (10 by card number, the rest by token), then 20 refunds. */
const PAYMENTS_PER_BLOCK = 300;
const REFUNDS_PER_BLOCK = 20;
const CUSTOMERS = 6;
const PART = 2000; // HKD 20.00, what a refund row gives back of a sale of HKD 50.00
/** How often the kills look at the database: often enough to land in a round's window, not so often as to slow it. */
const POLL_MS = PG ? 10 : 3;

const HEADER = [
  'Action',
  'Reference Number',
  'Original Transaction ID',
  'Customer UUID',
  'Amount',
  'Token ID',
  'Card Number',
  'Expiry Month',
  'Expiry Year',
  'CVC',
  'Remark',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a row of a batch asks for, as the test wrote it (amounts in cents; a refund of all of its sale has none). */
type Planned =
  | { row: number; action: 'payment'; reference: string; amount: number }
  | { row: number; action: 'refund'; original: string; amount: number | null };

describe('a batch across SIGKILLs in the middle of its run', () => {
  let bed: CrashBed;
  let servers: CrashServer[];
  let database: Database;
  let customers: Array<{ customer: string; token: string }>;

  before(async () => {
    // One process per SQLite folder; two sharing the database on PostgreSQL (the second started by its test).
    bed = await startCrashBed({ label: 'batch-crash', merchantName: 'Batch Crash', startAll: false });
    ({ servers, database } = bed);
    customers = [];
    for (let i = 0; i < CUSTOMERS; i += 1) customers.push(await customerWithToken(servers[0]!.client));
  });
  after(() => bed?.close());

  // ---- what the tests share ----

  const db = () => database.db;

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      assert.ok(Date.now() < deadline, `${what} (waited ${timeoutMs} ms)`);
      await sleep(POLL_MS);
    }
  }

  /** Rows of the batch that have ended (succeeded or failed). */
  async function endedRows(batchId: string): Promise<number> {
    const row = await db()
      .selectFrom('batch_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('batch_id', '=', batchId)
      .where('state', 'in', ['succeeded', 'failed'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Transactions (of this type) recorded pending before their call to the acquirer, whose answer is not recorded. */
  async function unanswered(type?: 'Sales' | 'Refund'): Promise<number> {
    let query = db()
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('progress', '=', 'sending');
    if (type) query = query.where('type', '=', type);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** Of those, the ones the acquirer made (approved) already: only their answers are missing. */
  async function madeUnanswered(type: 'Sales' | 'Refund'): Promise<number> {
    const row = await db()
      .selectFrom('transactions')
      .innerJoin('sandbox_acquirer_operations as op', 'op.reference', 'transactions.id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('transactions.progress', '=', 'sending')
      .where('transactions.type', '=', type)
      .where('op.status', '=', 'approved')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function uploadStatus(batchId: string): Promise<string> {
    return (
      await db().selectFrom('batches').select('upload_status').where('id', '=', batchId).executeTakeFirstOrThrow()
    ).upload_status;
  }

  /** This batch's chunk jobs (`batches.run`), with their leases. */
  async function chunkJobs(batchId: string) {
    const jobs = await db()
      .selectFrom('jobs')
      .select(['state', 'lease_owner', 'due_wall_at', 'attempts', 'payload', 'last_error'])
      .where('kind', '=', 'batches.run')
      .execute();
    return jobs.filter((job) => (JSON.parse(job.payload) as { batchId: string }).batchId === batchId);
  }

  /**
   * Sessions of this process inside a transaction block (it may hold row locks until it goes on). A statement on its
   * own (the scheduler's claims, a read) commits without the process, stopped or not.
   */
  async function openTransactions(server: CrashServer): Promise<number> {
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from pg_stat_activity where application_name = ${server.env.PGAPPNAME!}
      and (state like 'idle in transaction%' or (state = 'active' and xact_start < query_start))`.execute(db());
    return Number(rows[0]!.n);
  }

  /**
   * Holds the process still (SIGSTOP) at a moment it holds no transaction open: stopped inside one, it would keep its
   * row locks and every other process waiting on them. Answers how many tries that took.
   */
  async function stallOutsideTransactions(server: CrashServer): Promise<number> {
    for (let tries = 1; ; tries += 1) {
      server.serve!.child.kill('SIGSTOP');
      // A statement sent just before shows up as it reaches the server: look twice.
      if ((await openTransactions(server)) === 0) {
        await sleep(20);
        if ((await openTransactions(server)) === 0) return tries;
      }
      server.serve!.child.kill('SIGCONT');
      assert.ok(tries < 1000, 'the process was between two transactions at one of 1,000 tries');
      await sleep(randomInt(1, 15));
    }
  }

  /** The owners of the leases on this batch's chunk jobs (running, or claimed and queued in the claiming process). */
  async function chunkOwners(batchId: string): Promise<string[]> {
    return [
      ...new Set((await chunkJobs(batchId)).filter((job) => job.state === 'running').map((job) => job.lease_owner!)),
    ];
  }

  /** The owners of every job's lease (a process killed now leaves these leases behind). */
  async function leaseOwners(): Promise<string[]> {
    const jobs = await db().selectFrom('jobs').select('lease_owner').where('state', '=', 'running').execute();
    return [...new Set(jobs.map((job) => job.lease_owner!))];
  }

  /**
   * Makes these owners' leases run out now (of the batches' chunk jobs, or of every other job): a process that died, or
   * stalled past its leases, loses its jobs.
   */
  async function expireLeases(owners: string[], jobs: 'chunks' | 'others' = 'chunks'): Promise<void> {
    if (owners.length === 0) return;
    await db()
      .updateTable('jobs')
      .set({ lease_expires_at: Date.now() - 1 })
      .where('state', '=', 'running')
      .where('lease_owner', 'in', owners)
      .where('kind', jobs === 'chunks' ? '=' : '!=', 'batches.run')
      .execute();
  }

  /**
   * What a restarted process needs of PostgreSQL, which cannot know that a process died: its job leases (20 s by
   * default) would have to run out first, and by then the periodic recovery (every PAYGATE_RECOVERY_AFTER_MS here) has
   * settled the rail calls it left. Wait for that recovery (the dead process's lease on it, if it held one, run out
   * first), then make its chunk leases run out. SQLite does both at start.
   */
  async function afterPostgresKill(owners: string[]): Promise<void> {
    if (!bed.shared) return;
    await expireLeases(owners, 'others');
    // Recovery settles them one by one, beside the other process running the batch (and, in CI, other test files):
    // hundreds of them take seconds to tens of seconds. A bound, not a speed target: a stuck recovery still fails.
    await until(
      'recovery settles the rail calls the killed process left',
      async () => ((await unanswered()) === 0 ? true : undefined),
      90_000,
    );
    await expireLeases(owners);
  }

  /** Waits until the batch's rows are loaded and its chunk jobs claimed: the run has begun. Answers their owners. */
  function running(batchId: string): Promise<string[]> {
    return until('the batch starts running', async () => {
      const owners = await chunkOwners(batchId);
      return owners.length > 0 ? owners : undefined;
    });
  }

  /**
   * Kills `server` once at least `atLeast` rows ended, and (waiting up to a second for it) while a transaction of
   * `type`
   * is at the acquirer unanswered: the window between a round's commit and the commit of its answers. `made`: only
   * once the acquirer made it (and no one recorded its answer), waiting as long as it takes. Answers the owners of the
   * leases the process held (`owners` when given), and what the kill cut off.
   */
  async function killMidRun(
    server: CrashServer,
    batchId: string,
    atLeast: number,
    type: 'Sales' | 'Refund',
    options: { owners?: string[]; made?: boolean } = {},
  ): Promise<{ owners: string[]; line: string }> {
    let sawAt: number | undefined;
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.equal(
        await uploadStatus(batchId),
        'processing',
        `the batch is still running when the kill is due (${await endedRows(batchId)} rows ended)`,
      );
      assert.ok(Date.now() < deadline, `the kill is due within a minute (${await endedRows(batchId)} rows ended)`);
      if ((await endedRows(batchId)) >= atLeast) {
        sawAt ??= Date.now();
        if (options.made ? (await madeUnanswered(type)) > 0 : Date.now() - sawAt > 1000 || (await unanswered(type)) > 0)
          break;
      }
      await sleep(POLL_MS);
    }
    const held = options.owners ?? (await leaseOwners());
    assert.equal(await server.serve!.stop('SIGKILL'), null);
    server.serve = undefined;
    // A chunk claimed between that look and the kill: its lease is the dead process's too (with no `owners` given,
    // this process is the only one running).
    if (options.owners === undefined) held.push(...(await leaseOwners()).filter((owner) => !held.includes(owner)));
    const line = `killed with ${await endedRows(batchId)} rows ended, ${await unanswered('Sales')} payments and ${await unanswered('Refund')} refunds unanswered`;
    return { owners: held, line };
  }

  /**
   * Waits for the batch to finish, and answers it as the API shows it. `failFast`: a chunk job that failed fails the
   * wait (the runner should never throw). `hurry`: when all that is left is a chunk looked at again later (a payment
   * whose answer another process was waiting for), the sandbox clock is moved to then instead of waiting. If the batch
   * does not finish, says where its rows and jobs stand.
   */
  async function finishedBatch(
    t: TestContext,
    client: PaygateClient,
    batchId: string,
    timeoutMs: number,
    options: { failFast?: boolean; hurry?: boolean } = {},
  ): Promise<BatchInfo> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (FINISHED.includes(await uploadStatus(batchId)))
        return (await client.batches.get(batchId, { limit: 1 })).batch_info;
      const jobs = await chunkJobs(batchId);
      const failed = options.failFast ? jobs.find((job) => job.last_error !== null) : undefined;
      const later = jobs.filter((job) => job.state === 'pending').map((job) => job.due_wall_at - Date.now());
      if (
        options.hurry &&
        jobs.every((job) => job.state !== 'running') &&
        later.length > 0 &&
        Math.min(...later) > 1000
      ) {
        t.diagnostic(`a chunk is looked at again in ${Math.min(...later)} ms: the clock is moved`);
        await client.sandbox.advanceClock(Math.ceil(Math.min(...later) / 1000) + 1);
      }
      if (failed || Date.now() > deadline) {
        const states = await db()
          .selectFrom('batch_rows')
          .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
          .where('batch_id', '=', batchId)
          .groupBy('state')
          .execute();
        t.diagnostic(`rows by state: ${JSON.stringify(states.map((s) => [s.state, Number(s.n)]))}`);
        for (const job of (await chunkJobs(batchId)).filter((job) => job.state !== 'done')) {
          t.diagnostic(`job ${job.payload}: ${job.state}, ${job.attempts} attempts, last error: ${job.last_error}`);
        }
        assert.fail(
          failed
            ? `a chunk job of batch ${batchId} failed: ${failed.last_error}`
            : `batch ${batchId} still ${await uploadStatus(batchId)} after ${timeoutMs} ms`,
        );
      }
      await sleep(50);
    }
  }

  /** A batch of these rows (after the header), finished: its rows' records. */
  async function runBatch(t: TestContext, client: PaygateClient, rows: string[][]) {
    const batch = await finishedBatch(
      t,
      client,
      (await client.batches.upload(csv([HEADER, ...rows]), { kind: 'csv' })).id,
      30_000,
      { failFast: true },
    );
    assert.deepEqual(
      [batch.upload_status, batch.successful_records, batch.failed_records],
      ['success', rows.length, 0],
    );
    return db().selectFrom('batch_rows').selectAll().where('batch_id', '=', batch.id).orderBy('row_number').execute();
  }

  /**
   * Sales of HKD 50.00 (by token, or by this card's number), settled (the clock moved a day): their transaction ids.
   */
  async function settledSales(
    t: TestContext,
    client: PaygateClient,
    run: string,
    count: number,
    card?: string,
  ): Promise<string[]> {
    const made = await runBatch(
      t,
      client,
      Array.from({ length: count }, (_, i) => {
        const { customer, token } = customers[i % CUSTOMERS]!;
        return card
          ? ['payment', `${run}-S${i}`, '', '', '50.00', '', card, '12', '40', '123', 'to refund']
          : ['payment', `${run}-S${i}`, '', customer, '50.00', token, '', '', '', '', 'to refund'];
      }),
    );
    await client.sandbox.advanceClock(86_400);
    const ids = made.map((row) => row.transaction_id!);
    const settled = await db()
      .selectFrom('transactions')
      .select('id')
      .where('id', 'in', ids)
      .where('settled_at', 'is not', null)
      .execute();
    assert.equal(settled.length, count, 'the sales settled: they can be refunded');
    return ids;
  }

  /**
   * A file of `blocks` blocks: `payments` payments (every thirtieth by card number, the rest by token), then `refunds`
   * refunds of the sales (every other one of all of its sale, the rest of HKD 20.00). `slowCardsFrom`: the card
   * payments from that payment on use the slow card (their answers take 3 s).
   */
  function crashFile(
    run: string,
    sales: string[],
    blocks: number,
    payments: number,
    refunds: number,
    slowCardsFrom = Infinity,
  ): { text: string; planned: Planned[] } {
    const planned: Planned[] = [];
    const lines: string[][] = [HEADER];
    let payment = 0;
    for (let block = 0; block < blocks; block += 1) {
      for (let i = 0; i < payments; i += 1) {
        const reference = `${run}-P${payment}`;
        const amount = 1000 + (payment % 97) * 100;
        const { customer, token } = customers[payment % CUSTOMERS]!;
        lines.push(
          i % 30 === 29
            ? [
                'payment',
                reference,
                '',
                '',
                (amount / 100).toFixed(2),
                '',
                payment >= slowCardsFrom ? CARDS.slow : CARDS.visa,
                '12',
                '40',
                '123',
                'card',
              ]
            : ['payment', reference, '', customer, (amount / 100).toFixed(2), token, '', '', '', '', 'token'],
        );
        planned.push({ row: lines.length, action: 'payment', reference, amount });
        payment += 1;
      }
      for (let i = 0; i < refunds; i += 1) {
        const original = sales[block * refunds + i]!;
        const all = i % 2 === 0;
        lines.push([
          'refund',
          '',
          original,
          '',
          all ? '' : (PART / 100).toFixed(2),
          '',
          '',
          '',
          '',
          '',
          all ? 'all' : 'part',
        ]);
        planned.push({ row: lines.length, action: 'refund', original, amount: all ? null : PART });
      }
    }
    return { text: csv(lines), planned };
  }

  /**
   * Every row ended exactly once: from the database (rows, orders, transactions, the sandbox acquirer's operations,
   * events) and through the API. Answers a line on what the rows came to.
   */
  async function checkExactlyOnce(batch: BatchInfo, run: string, planned: Planned[]): Promise<string> {
    const batchId = batch.id;
    assert.equal(batch.upload_status, 'success');
    assert.equal(batch.total_records, planned.length);
    assert.equal(batch.skipped_records, 0);

    const rows = await db()
      .selectFrom('batch_rows')
      .selectAll()
      .where('batch_id', '=', batchId)
      .orderBy('row_number')
      .execute();
    assert.deepEqual(
      rows.map((row) => row.row_number),
      planned.map((p) => p.row),
      'one record per row of the file',
    );
    const byState = (state: string) => rows.filter((row) => row.state === state).length;
    assert.equal(byState('waiting') + byState('running') + byState('skipped'), 0, 'no row left waiting or running');
    assert.ok(
      rows.every((row) => row.card_sealed === null),
      'no card kept',
    );

    // This run's transactions: the payment rows' orders, and the sales refunded with their refunds.
    const transactions = await db()
      .selectFrom('transactions')
      .innerJoin('orders', 'orders.id', 'transactions.order_id')
      .select([
        'transactions.id',
        'transactions.order_id',
        'transactions.type',
        'transactions.status',
        'transactions.amount',
        'transactions.payment_uuid',
        'transactions.original_transaction_id',
        'transactions.idempotency_key',
        'transactions.payment_data',
        'transactions.progress',
      ])
      .where('orders.reference_number', 'like', `${run}-%`)
      .execute();
    assert.ok(
      transactions.every((tr) => tr.progress !== 'sending'),
      'no transaction left at the acquirer unanswered',
    );
    const known = new Set(transactions.map((tr) => tr.id));
    const operations = (
      await db()
        .selectFrom('sandbox_acquirer_operations')
        .select(['reference', 'original_reference', 'kind', 'status', 'amount', 'response_code'])
        .execute()
    ).filter((op) => known.has(op.reference) || known.has(op.original_reference ?? ''));
    const approved = new Map<string, number>();
    for (const op of operations.filter((op) => op.status === 'approved'))
      approved.set(op.reference, (approved.get(op.reference) ?? 0) + 1);
    assert.ok(
      [...approved.values()].every((n) => n === 1),
      'the acquirer approved no operation twice',
    );
    const orders = await db()
      .selectFrom('orders')
      .select(['id', 'reference_number', 'paid_total', 'correspondence_state'])
      .where('reference_number', 'like', `${run}-P%`)
      .execute();
    assert.equal(
      orders.length,
      planned.filter((p) => p.action === 'payment').length,
      'one order per payment row, no other',
    );
    const orderByReference = new Map(orders.map((order) => [order.reference_number, order]));
    const ofOrder = new Map<string, typeof transactions>();
    for (const tr of transactions) ofOrder.set(tr.order_id, [...(ofOrder.get(tr.order_id) ?? []), tr]);
    const refundsOf = new Map<string, typeof transactions>();
    for (const tr of transactions.filter((tr) => tr.type === 'Refund'))
      refundsOf.set(tr.original_transaction_id!, [...(refundsOf.get(tr.original_transaction_id!) ?? []), tr]);
    const saleAmounts = new Map(transactions.map((tr) => [tr.id, tr.amount]));

    const cutOff = { payments: 0, refunds: 0 };
    const made = { payments: 0, refunds: 0 };
    for (const [index, plan] of planned.entries()) {
      const row = rows[index]!;
      const what = `row ${plan.row} (${plan.action}, ${row.state}: ${row.outcome})`;
      if (plan.action === 'payment') {
        const order = orderByReference.get(plan.reference);
        assert.ok(order, `${what}: its order exists`);
        assert.equal(row.order_id, order.id, `${what}: the row names its order`);
        // Paid once, whatever the kills did: every attempt under the row's key (`.1`, `.2`... for one sent again after
        // a kill cut the one before off before the acquirer had it), at most one succeeded.
        const sales = [...(ofOrder.get(order.id) ?? [])].sort((a, b) => a.payment_uuid!.localeCompare(b.payment_uuid!));
        assert.deepEqual(
          sales.map((tr) => [tr.type, tr.amount, tr.payment_uuid]),
          sales.map((_, i) => ['Sales', plan.amount, `batch:${batchId}:${plan.row}${i === 0 ? '' : `.${i}`}`]),
          `${what}: each attempt a Sales transaction under the row's key`,
        );
        const paid = sales.filter((tr) => tr.status === 'succeeded');
        assert.ok(paid.length <= 1, `${what}: paid at most once`);
        for (const cut of sales.filter((tr) => tr.status !== 'succeeded')) {
          // A payment cut off before the acquirer had it: recovery cancelled it there (nothing charged).
          assert.equal(cut.status, 'failed');
          assert.equal(
            (JSON.parse(cut.payment_data) as { resp_code?: string }).resp_code,
            '91',
            `${what}: a failed attempt is one recovery cancelled`,
          );
          assert.equal(approved.get(cut.id) ?? 0, 0, `${what}: a cancelled attempt charged nothing`);
          cutOff.payments += 1;
        }
        const sale = paid[0] ?? sales.at(-1)!;
        assert.equal(row.transaction_id, sale.id, `${what}: the row names its transaction`);
        if (sale.status === 'succeeded') {
          assert.equal(approved.get(sale.id), 1, `${what}: charged once at the acquirer`);
          assert.equal(row.state, 'succeeded', `${what}: the row succeeded as its payment did`);
          assert.deepEqual([order.paid_total, order.correspondence_state], [plan.amount, 'paid']);
          made.payments += 1;
        } else {
          // Cut off every time it was sent: the row failed, having charged nothing.
          assert.equal(row.state, 'failed', `${what}: the row failed as its payment did`);
          assert.equal(order.paid_total, 0);
        }
      } else {
        // Refunded once: one Refund of the sale, under the row's key.
        const refunds = refundsOf.get(plan.original) ?? [];
        const amount = plan.amount ?? saleAmounts.get(plan.original);
        assert.deepEqual(
          refunds.map((tr) => [tr.amount, tr.idempotency_key]),
          [[amount, `batch:${batchId}:${plan.row}`]],
          `${what}: one Refund of ${plan.original}, under the row's key`,
        );
        const refund = refunds[0]!;
        assert.equal(
          approved.get(refund.id) ?? 0,
          refund.status === 'succeeded' ? 1 : 0,
          `${what}: refunded once at the acquirer if it succeeded, else not at all`,
        );
        assert.equal(row.transaction_id, refund.id, `${what}: the row names its refund`);
        if (refund.status === 'succeeded') {
          assert.equal(row.state, 'succeeded', `${what}: the row succeeded as its refund did`);
          made.refunds += 1;
        } else {
          assert.equal(refund.status, 'failed');
          assert.equal(
            (JSON.parse(refund.payment_data) as { resp_code?: string }).resp_code,
            '91',
            `${what}: a failed refund is one recovery cancelled`,
          );
          assert.equal(row.state, 'failed', `${what}: the row failed as its refund did`);
          cutOff.refunds += 1;
        }
      }
    }
    // The acquirer did nothing else with this run's transactions: each operation is a row's, or a sale refunded.
    const ours = new Set([
      ...rows.map((row) => row.transaction_id!),
      ...transactions.map((tr) => tr.id),
      ...planned.flatMap((p) => (p.action === 'refund' ? [p.original] : [])),
    ]);
    assert.deepEqual(
      operations.filter((op) => !ours.has(op.reference)),
      [],
      'no other operation at the acquirer',
    );

    // The counters: each row counted once, as it ended.
    const counters =
      `successful_records ${batch.successful_records} and failed_records ${batch.failed_records}, ` +
      `for ${byState('succeeded')} rows succeeded and ${byState('failed')} failed of ${planned.length}`;
    assert.equal(
      batch.successful_records + batch.failed_records,
      planned.length,
      `successful_records + failed_records = total_records: ${counters}`,
    );
    assert.deepEqual(
      [batch.successful_records, batch.failed_records],
      [byState('succeeded'), byState('failed')],
      `the counters are the rows' states: ${counters}`,
    );
    assert.equal(
      batch.successful_records,
      made.payments + made.refunds,
      'successful_records = payments made + refunds made',
    );

    // One batch.completed event, whichever process finished last.
    const events = await db().selectFrom('events').select('action').where('subject_id', '=', batchId).execute();
    assert.deepEqual(
      events.map((e) => e.action),
      ['batch.completed'],
    );
    return (
      `${made.payments} payments made, ${made.refunds} refunds made; cut off by a kill before the acquirer had them ` +
      `(cancelled by recovery): ${cutOff.payments} payment attempts (sent again under the next key), ${cutOff.refunds} refunds (the rows failed)`
    );
  }

  /** The API tells what the database does: the counters, and the errors are the failed rows. */
  async function checkApi(client: PaygateClient, batch: BatchInfo): Promise<void> {
    const { batch_info: info } = await client.batches.get(batch.id, { limit: 1 });
    assert.deepEqual(
      [info.upload_status, info.successful_records, info.failed_records],
      ['success', batch.successful_records, batch.failed_records],
    );
    assert.equal((await client.batches.errors(batch.id, { limit: 1 })).total, batch.failed_records);
  }

  const rowsAtLeast = async (batchId: string, more: [number, number]) =>
    (await endedRows(batchId)) + randomInt(...more);
  const rowsTotal = BLOCKS * (PAYMENTS_PER_BLOCK + REFUNDS_PER_BLOCK);
  /** How many more rows end between two kills: three kills land well within the batch. */
  const spacing: [number, number] = [Math.round(rowsTotal / 20), Math.round(rowsTotal / 8)];

  test(`one process, killed three times in a batch of ${rowsTotal} rows (with payments, a refund, then payments at the acquirer): every row ran exactly once`, async (t) => {
    const started = Date.now();
    const server = servers[0]!;
    const run = `BC-${randomUUID().slice(0, 8)}`;
    const sales = await settledSales(t, server.client, run, BLOCKS * REFUNDS_PER_BLOCK);
    const { text, planned } = crashFile(run, sales, BLOCKS, PAYMENTS_PER_BLOCK, REFUNDS_PER_BLOCK);
    t.diagnostic(`setup: ${Date.now() - started} ms`);
    const uploaded = Date.now();
    const created = await server.client.batches.upload(text, { kind: 'csv', batchName: 'crash' });
    await running(created.id);

    for (const [round, type] of (['Sales', 'Refund', 'Sales'] as const).entries()) {
      const kill = await killMidRun(server, created.id, await rowsAtLeast(created.id, spacing), type);
      t.diagnostic(`kill ${round + 1}: ${kill.line}`);
      server.serve = await startServe(server.env);
      await afterPostgresKill(kill.owners);
    }
    // About 10 s for the rows left on a quiet machine; a bound, not a speed target (CI's machine, running two other
    // test files beside this one, has been five times slower).
    const batch = await finishedBatch(t, server.client, created.id, 120_000);
    t.diagnostic(await checkExactlyOnce(batch, run, planned));
    await checkApi(server.client, batch);
    t.diagnostic(
      `${planned.length} rows; ${Date.now() - uploaded} ms from the upload to the checks' end; ${Date.now() - started} ms in all`,
    );
  });

  /** A batch that did not finish (a test failed) is given up, so that its chunk jobs do not run on in later tests. */
  async function giveUp(batchId: string): Promise<void> {
    if (FINISHED.includes(await uploadStatus(batchId))) return;
    const jobs = await db()
      .selectFrom('jobs')
      .select(['id', 'payload'])
      .where('kind', '=', 'batches.run')
      .where('state', 'in', ['pending', 'running'])
      .execute();
    const ids = jobs.filter((job) => job.payload.includes(batchId)).map((job) => job.id);
    if (ids.length > 0)
      await db()
        .updateTable('jobs')
        .set({ state: 'dead', lease_owner: null, lease_token: null, lease_expires_at: null })
        .where('id', 'in', ids)
        .execute();
  }

  test('card rows whose payments the acquirer made, killed before their answers were recorded: each paid once, succeeded, its card erased', async (t) => {
    const server = servers[0]!;
    const run = `BCC-${randomUUID().slice(0, 8)}`;
    // The slow card is approved at once and answered 3 s later: the kill lands while the round waits for its answers.
    const cards = [CARDS.slow, CARDS.visa, CARDS.slow];
    const planned: Planned[] = cards.map((_, i) => ({
      row: i + 2,
      action: 'payment',
      reference: `${run}-P${i}`,
      amount: 3000,
    }));
    const created = await server.client.batches.upload(
      csv([
        HEADER,
        ...cards.map((card, i) => ['payment', `${run}-P${i}`, '', '', '30.00', '', card, '12', '40', '123', 'card']),
      ]),
      { kind: 'csv' },
    );
    try {
      await running(created.id);
      const kill = await killMidRun(server, created.id, 0, 'Sales', { made: true });
      t.diagnostic(kill.line);
      // Begun: the card stays sealed (encrypted) in the row until the row ends, in case the acquirer never had it.
      const begun = await db()
        .selectFrom('batch_rows')
        .select(['state', 'card_sealed'])
        .where('batch_id', '=', created.id)
        .execute();
      assert.deepEqual(
        begun.map((row) => [row.state, row.card_sealed?.startsWith('v1.')]),
        cards.map(() => ['running', true]),
        'the rows were begun, their cards sealed',
      );
      server.serve = await startServe(server.env);
      await afterPostgresKill(kill.owners);
      const batch = await finishedBatch(t, server.client, created.id, 20_000, { failFast: true });
      t.diagnostic(await checkExactlyOnce(batch, run, planned));
      assert.deepEqual([batch.successful_records, batch.failed_records], [3, 0], 'the three payments were made');
      const masked = await db()
        .selectFrom('batch_rows')
        .select('card_masked')
        .where('batch_id', '=', created.id)
        .orderBy('row_number')
        .execute();
      assert.deepEqual(
        masked.map((row) => row.card_masked),
        cards.map((card) => `${card.slice(0, 6)}******${card.slice(-4)}`),
      );
      await checkApi(server.client, batch);
    } finally {
      await giveUp(created.id);
    }
  });

  test('a refund of all of a sale that the acquirer made, killed before its answer was recorded: refunded once, succeeded', async (t) => {
    const server = servers[0]!;
    const run = `BCR-${randomUUID().slice(0, 8)}`;
    // Sales by the slow card: their refunds are approved at once and answered 3 s later, the window the kill lands in.
    const sales = await settledSales(t, server.client, run, 2, CARDS.slow);
    const planned: Planned[] = [
      { row: 2, action: 'refund', original: sales[0]!, amount: null },
      { row: 3, action: 'refund', original: sales[1]!, amount: PART },
    ];
    const created = await server.client.batches.upload(
      csv([
        HEADER,
        ['refund', '', sales[0]!, '', '', '', '', '', '', '', 'all'],
        ['refund', '', sales[1]!, '', (PART / 100).toFixed(2), '', '', '', '', '', 'part'],
      ]),
      { kind: 'csv' },
    );
    try {
      await running(created.id);
      const kill = await killMidRun(server, created.id, 0, 'Refund', { made: true });
      t.diagnostic(kill.line);
      server.serve = await startServe(server.env);
      await afterPostgresKill(kill.owners);
      const batch = await finishedBatch(t, server.client, created.id, 20_000, { failFast: true });
      t.diagnostic(await checkExactlyOnce(batch, run, planned));
      assert.deepEqual([batch.successful_records, batch.failed_records], [2, 0], 'both refunds were made');
      await checkApi(server.client, batch);
    } finally {
      await giveUp(created.id);
    }
  });

  test(`two PostgreSQL processes share a batch of ${rowsTotal} rows: each takes it over from the other, killed mid-run`, {
    skip: PG ? false : 'PostgreSQL only (DATABASE_URL)',
  }, async (t) => {
    const started = Date.now();
    const [a, b] = servers as [CrashServer, CrashServer];
    const run = `BC2-${randomUUID().slice(0, 8)}`;
    const sales = await settledSales(t, a.client, run, BLOCKS * REFUNDS_PER_BLOCK);
    // The second half's card payments use the slow card (3 s at the acquirer): B, once it has taken the batch over,
    // cannot finish it before its own kill is due, however fast rows run.
    const { text, planned } = crashFile(
      run,
      sales,
      BLOCKS,
      PAYMENTS_PER_BLOCK,
      REFUNDS_PER_BLOCK,
      (BLOCKS * PAYMENTS_PER_BLOCK) / 2,
    );
    // A takes the batch (its claim leases every chunk job), then B starts beside it.
    const created = await a.client.batches.upload(text, { kind: 'csv', batchName: 'shared' });
    const ownersA = await running(created.id);
    assert.equal(ownersA.length, 1);
    b.serve = await startServe(b.env);

    // A is killed with payments at the acquirer; B recovers them and takes the batch over once A's leases run out.
    const killA = await killMidRun(a, created.id, await rowsAtLeast(created.id, spacing), 'Sales', { owners: ownersA });
    const byA = await endedRows(created.id);
    await afterPostgresKill(killA.owners);
    const ownersB = await until('B takes the batch over', async () => {
      const owners = await chunkOwners(created.id);
      return owners.length > 0 && !owners.includes(ownersA[0]!) ? owners : undefined;
    });
    assert.equal(ownersB.length, 1);
    t.diagnostic(`A ${killA.line}; B took the batch over`);

    // B is killed in turn, with a refund at the acquirer (waiting up to a second for one); A, restarted, recovers what
    // it left and takes the batch over again. A restarts only then: while its start took seconds, B once ran the
    // whole rest of the batch before its kill was due.
    const killB = await killMidRun(b, created.id, await rowsAtLeast(created.id, spacing), 'Refund', {
      owners: ownersB,
    });
    const byB = (await endedRows(created.id)) - byA;
    a.serve = await startServe(a.env);
    await afterPostgresKill(killB.owners);
    await until('the restarted A takes the batch over', async () => {
      const owners = await chunkOwners(created.id);
      return owners.length > 0 && !owners.some((owner) => ownersB.includes(owner)) ? owners : undefined;
    });
    t.diagnostic(`B ${killB.line}; A took the batch over`);
    assert.ok(byA > 0 && byB > 0, `both processes ran rows of the batch: ${byA} by A, then ${byB} by B`);

    const batch = await finishedBatch(t, a.client, created.id, 120_000);
    t.diagnostic(await checkExactlyOnce(batch, run, planned));
    await checkApi(a.client, batch);
    b.serve = await startServe(b.env);
    await checkApi(b.client, batch);
    t.diagnostic(`${planned.length} rows; ${Date.now() - started} ms in all`);
  });

  test('two PostgreSQL processes run the same chunk at once (one lost its lease while running it): each row counted once', {
    skip: PG ? false : 'PostgreSQL only (DATABASE_URL)',
  }, async (t) => {
    const [a, b] = servers as [CrashServer, CrashServer];
    a.serve ??= await startServe(a.env);
    b.serve ??= await startServe(b.env);
    const run = `BC3-${randomUUID().slice(0, 8)}`;
    // One chunk of 480 rows, run 400 at a time (four rounds at once), then 80: the last round's card payments are slow
    // at the acquirer, 3 s with no transaction open, the moment A is held still in.
    const { text, planned } = crashFile(run, [], 1, 480, 0, 400);
    // B is held still while A claims the chunk, so that the process that loses the lease is known.
    b.serve.child.kill('SIGSTOP');
    let created: { id: string };
    let first: string;
    try {
      created = await a.client.batches.upload(text, { kind: 'csv', batchName: 'one chunk, two runners' });
      [first] = (await running(created.id)) as [string];
    } finally {
      b.serve.child.kill('SIGCONT');
    }
    try {
      await until('the last round waits on the acquirer', async () =>
        (await endedRows(created.id)) >= 400 && (await unanswered('Sales')) > 0 ? true : undefined,
      );
      // A stalls past its lease (held still, it cannot finish the chunk meanwhile, however fast this machine is); B
      // takes the chunk; then A wakes and runs on beside it with the token it holds.
      const tries = await stallOutsideTransactions(a);
      try {
        const line = `A held still with ${await endedRows(created.id)} rows ended and ${await unanswered('Sales')} payments at the acquirer (${tries} tries to find it between transactions)`;
        t.diagnostic(line);
        assert.ok((await unanswered('Sales')) > 0, `A is held still before its last round is answered: ${line}`);
        await expireLeases([first]);
        await until('the other process takes the chunk', async () => {
          const owners = await chunkOwners(created.id);
          return owners.length > 0 && !owners.includes(first) ? true : undefined;
        });
        assert.equal(await uploadStatus(created.id), 'processing', 'the chunk is unfinished when B takes it');
      } finally {
        a.serve.child.kill('SIGCONT');
      }
      const batch = await finishedBatch(t, a.client, created.id, 30_000, { hurry: true });
      t.diagnostic(await checkExactlyOnce(batch, run, planned));
    } finally {
      await giveUp(created.id);
    }
  });
});
