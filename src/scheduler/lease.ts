import { sql, type Updateable } from 'kysely';
import { type ClockSetting, STANDING_STILL_MS } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { lockRowsSkippingLocked } from '../platform/database/locking.js';
import type { JobsTable, WebhookDeliveriesTable } from '../platform/database/schema.js';

/**
 * Due work, leased. A queue is a table of rows due at a business time (`due_at`, on the merchant's clock) and
 * claimed by its wall-clock equivalent (`due_wall_at`, indexed), each leased to one claim at a time: the claim's
 * token fences the row, so a process that outlived its lease can no longer finish, renew or record it, and a row
 * whose process died is claimable again once its lease runs out. On PostgreSQL candidate rows are locked with
 * SKIP LOCKED, so processes claiming together get disjoint sets. The scheduler's jobs and the outbox's webhook
 * deliveries are two such queues.
 */
export interface WorkQueue {
  readonly table: 'jobs' | 'webhook_deliveries';
  /** The state of a row waiting for its time, and of one being worked under a lease. */
  readonly waiting: string;
  readonly working: string;
}

export const JOB_QUEUE: WorkQueue = { table: 'jobs', waiting: 'pending', working: 'running' };
export const DELIVERY_QUEUE: WorkQueue = { table: 'webhook_deliveries', waiting: 'pending', working: 'sending' };

/** What every queue row has; the columns this mechanism reads and writes. */
export interface Leased {
  id: string;
  lease_token: string | null;
  attempts: number;
  due_wall_at: number;
}

export interface Claim {
  owner: string;
  /** Fences this claim: finishing, rescheduling and renewing need it. */
  token: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** Only this merchant's rows (the sandbox clock runs one merchant's due work). */
  merchantId?: string;
  /** Jobs only: the kinds this process can run (an older process in a rolling upgrade leaves newer kinds alone). */
  kinds?: string[];
  /**
   * Not these merchants' rows (they hold their share of the lanes), nor the platform's own when `platform` is among
   * them.
   */
  excluding?: ReadonlySet<string>;
}

/** How {@link Claim.excluding} names the platform's own work, which belongs to no merchant. */
export const PLATFORM_WORK = 'platform';

// The two queue tables share every column used here; typing the builder as one of them is what Kysely needs.
const tableOf = (queue: WorkQueue) => queue.table as 'jobs';
const stateOf = (state: string) => state as JobsTable['state'];

/** Leases due rows to one claim, earliest first, counting the attempt about to be made. */
export async function claimDue<Row extends Leased>(db: Db, queue: WorkQueue, claim: Claim): Promise<Row[]> {
  if (claim.kinds?.length === 0) return [];
  const table = tableOf(queue);
  let due = db
    .selectFrom(table)
    .select('id')
    // Implied by what follows, but it lets a merchant's claim (the sandbox clock) use the (merchant_id, state) index
    // instead of reading every row the merchant ever had: a clock moved for years left thousands of done jobs.
    .where('state', 'in', [stateOf(queue.waiting), stateOf(queue.working)])
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', stateOf(queue.waiting)), eb('due_wall_at', '<=', claim.now)]),
        eb.and([eb('state', '=', stateOf(queue.working)), eb('lease_expires_at', '<', claim.now)]),
      ]),
    )
    .orderBy('due_wall_at')
    .orderBy('id')
    .limit(claim.limit);
  if (claim.kinds !== undefined) due = due.where('kind', 'in', claim.kinds);
  if (claim.merchantId !== undefined) due = due.where('merchant_id', '=', claim.merchantId);
  if (claim.excluding !== undefined && claim.excluding.size > 0) {
    const merchants = [...claim.excluding].filter((key) => key !== PLATFORM_WORK);
    const platform = claim.excluding.has(PLATFORM_WORK);
    due = due.where((eb) => {
      const notThem = merchants.length > 0 ? eb('merchant_id', 'not in', merchants) : undefined;
      if (platform)
        return notThem ? eb.and([eb('merchant_id', 'is not', null), notThem]) : eb('merchant_id', 'is not', null);
      return eb.or([eb('merchant_id', 'is', null), notThem!]);
    });
  }
  const claimed = await db
    .updateTable(table)
    .set((eb) => ({
      state: stateOf(queue.working),
      lease_owner: claim.owner,
      lease_token: claim.token,
      lease_expires_at: claim.now + claim.leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: claim.now,
    }))
    .where('id', 'in', lockRowsSkippingLocked(db, due))
    .returningAll()
    .execute();
  return (claimed as unknown as Row[]).sort((a, b) => a.due_wall_at - b.due_wall_at || a.id.localeCompare(b.id));
}

/** Extends the lease of a row still being worked; false when the lease was lost to another claim. */
export async function renewLease(db: Db, queue: WorkQueue, row: Leased, until: number): Promise<boolean> {
  const result = await db
    .updateTable(tableOf(queue))
    .set({ lease_expires_at: until })
    .where('id', '=', row.id)
    .where('lease_token', '=', row.lease_token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends a claim on a row, fenced by its token: the row moves to `state` with `change`, unleased. False when the
 * claim was lost meanwhile (another process took the row over), and nothing was written.
 */
export async function settleLeased(
  db: Db,
  queue: WorkQueue,
  row: Leased,
  state: string,
  change: Updateable<JobsTable> | Updateable<WebhookDeliveriesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable(tableOf(queue))
    .set({
      ...(change as Updateable<JobsTable>),
      state: stateOf(state),
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
    })
    .where('id', '=', row.id)
    .where('lease_token', '=', row.lease_token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees every lease of the queue: only when the processes that held them are known to be gone (SQLite start). */
export async function freeAllLeases(db: Db, queue: WorkQueue): Promise<number> {
  const result = await db
    .updateTable(tableOf(queue))
    .set({ state: stateOf(queue.waiting), lease_owner: null, lease_token: null, lease_expires_at: null })
    .where('state', '=', stateOf(queue.working))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Frees every lease of one merchant's rows of the queue, their work waiting again: rows put back as a snapshot had
 * them (a sandbox restore), whose claims belong to no process now. A process still working one of them finds its
 * claim fenced off, and records nothing.
 */
export async function freeMerchantLeases(db: Db, queue: WorkQueue, merchantId: string): Promise<void> {
  await db
    .updateTable(tableOf(queue))
    .set({ state: stateOf(queue.waiting), lease_owner: null, lease_token: null, lease_expires_at: null })
    .where('merchant_id', '=', merchantId)
    .where('state', '=', stateOf(queue.working))
    .execute();
}

/**
 * Keeps a merchant's rows due at the same business time after its clock changed: due_wall_at is due_at on the wall
 * clock (platform/clock.ts wallTimeOf), written here in SQL for all of them at once, or only for those due by `dueBy`
 * (business time). A row left out keeps a wall time later than its due time now means, so it is claimed late, never
 * early, until the whole set is realigned.
 */
export async function realignDue(
  db: Db,
  queue: WorkQueue,
  merchantId: string,
  clock: ClockSetting,
  dueBy?: number,
): Promise<void> {
  const inStep =
    clock.frozenAt === null
      ? sql<number>`due_at - ${clock.offsetMs}`
      : sql<number>`due_at - ${clock.offsetMs} + (case when due_at > ${clock.frozenAt} then cast(${STANDING_STILL_MS} as bigint) else 0 end)`;
  let update = db
    .updateTable(tableOf(queue))
    .set({ due_wall_at: inStep })
    .where('merchant_id', '=', merchantId)
    .where('state', 'in', [stateOf(queue.waiting), stateOf(queue.working)])
    // Rows in step already are not rewritten: the move's last stop, and a start, mostly find none out of step.
    .where(sql<boolean>`due_wall_at <> ${inStep}`);
  if (dueBy !== undefined) update = update.where('due_at', '<=', dueBy);
  await update.execute();
}

/**
 * Realigns every merchant's rows of the queue with the merchant's clock as it stands: at start, after a process
 * that was moving a sandbox clock stopped before its last realign.
 */
export async function realignAllDue(db: Db, queue: WorkQueue): Promise<void> {
  const merchant = (column: string) =>
    sql`(select ${sql.ref(column)} from merchants where merchants.id = ${sql.ref(`${queue.table}.merchant_id`)})`;
  const frozenAt = merchant('clock_frozen_at');
  const inStep = sql<number>`due_at - ${merchant('clock_offset_ms')} + (case when ${frozenAt} is not null and due_at > ${frozenAt} then cast(${STANDING_STILL_MS} as bigint) else 0 end)`;
  await db
    .updateTable(tableOf(queue))
    .set({ due_wall_at: inStep })
    .where('merchant_id', 'is not', null)
    .where('state', 'in', [stateOf(queue.waiting), stateOf(queue.working)])
    // Only what a stopped move left out: a start after a clean stop writes nothing.
    .where(sql<boolean>`due_wall_at <> ${inStep}`)
    .execute();
}

/** A merchant's next row not yet done: when it is due (business time), and until when a claim holds it. */
export async function nextDueOf(
  db: Db,
  queue: WorkQueue,
  merchantId: string,
  now: number,
  kinds?: string[],
): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined> {
  if (kinds?.length === 0) return undefined;
  let query = db
    .selectFrom(tableOf(queue))
    .select(['due_at', 'state', 'lease_expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('state', 'in', [stateOf(queue.waiting), stateOf(queue.working)])
    .orderBy('due_at')
    .limit(1);
  if (kinds !== undefined) query = query.where('kind', 'in', kinds);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const held = row.state === queue.working && row.lease_expires_at !== null && row.lease_expires_at >= now;
  return { dueAt: row.due_at, heldUntil: held ? row.lease_expires_at! : undefined };
}
