import { sql, type Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { lockRowsSkippingLocked, lockToRead } from '../platform/database/locking.js';
import type { JobsTable } from '../platform/database/schema.js';

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  id: string;
  kind: string;
  merchantId: string | null;
  /** On the merchant's business clock for a merchant job, on the wall clock otherwise. */
  dueAt: number;
  payload: unknown;
  dedupeKey?: string;
}

/**
 * Adds a job; with a dedupe key, a second job under the same key is silently not added. A merchant job also
 * gets its wall-clock due time from the merchant's current clock offset, read under a share lock so that a
 * sandbox clock move (which updates the offset and its merchant's jobs together) cannot slip in between.
 */
export async function insertJob(db: Db, job: NewJob, now: number): Promise<boolean> {
  let offset = 0;
  if (job.merchantId !== null) {
    const merchant = await lockToRead(db, db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', job.merchantId))
      .executeTakeFirst();
    if (!merchant) throw new Error(`merchant ${job.merchantId} not found`);
    offset = merchant.clock_offset_ms;
  }
  const result = await db
    .insertInto('jobs')
    .values({
      id: job.id,
      kind: job.kind,
      merchant_id: job.merchantId,
      due_at: job.dueAt,
      due_wall_at: job.dueAt - offset,
      payload: JSON.stringify(job.payload ?? null),
      state: 'pending',
      attempts: 0,
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      last_error: null,
      dedupe_key: job.dedupeKey ?? null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Keeps a merchant's jobs due at the same business time after its clock offset changed. */
export async function realignMerchantJobs(db: Db, merchantId: string, offsetMs: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ due_wall_at: sql<number>`due_at - ${offsetMs}` })
    .where('merchant_id', '=', merchantId)
    .where('state', 'in', ['pending', 'running'])
    .execute();
}

export interface ClaimOptions {
  owner: string;
  /** Fences this claim: finishing, rescheduling and renewing need it. */
  token: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** The kinds this process can run: an older process in a rolling upgrade leaves newer kinds alone. */
  kinds: string[];
  /** Only this merchant's jobs (the sandbox clock runs one merchant's due work). */
  merchantId?: string;
}

/**
 * Leases due jobs to one claim, earliest first. On PostgreSQL the candidate rows are locked with SKIP LOCKED,
 * so processes claiming at the same time get disjoint sets; a job whose lease ran out (its process died) is
 * claimable again, and the old holder, fenced by the token, can no longer finish it.
 */
export async function claimDueJobs(db: Db, options: ClaimOptions): Promise<JobRow[]> {
  if (options.kinds.length === 0) return [];
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('state', '=', 'pending'),
        eb.and([eb('state', '=', 'running'), eb('lease_expires_at', '<', options.now)]),
      ]),
    )
    .where('kind', 'in', options.kinds)
    .where('due_wall_at', '<=', options.now)
    .orderBy('due_wall_at')
    .orderBy('id')
    .limit(options.limit);
  if (options.merchantId !== undefined) due = due.where('merchant_id', '=', options.merchantId);
  const claimed = await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      lease_owner: options.owner,
      lease_token: options.token,
      lease_expires_at: options.now + options.leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: options.now,
    }))
    .where('id', 'in', lockRowsSkippingLocked(db, due))
    .returningAll()
    .execute();
  return claimed.sort((a, b) => a.due_wall_at - b.due_wall_at || a.id.localeCompare(b.id));
}

/** Frees every job lease: only when the processes that held them are known to be gone (SQLite start). */
export async function freeRunningJobs(db: Db): Promise<number> {
  const result = await db.updateTable('jobs')
    .set({ state: 'pending', lease_owner: null, lease_token: null, lease_expires_at: null })
    .where('state', '=', 'running').executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Extends the lease of a job still running; false when the lease was lost to another claim. */
export async function renewLease(db: Db, job: JobRow, until: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ lease_expires_at: until })
    .where('id', '=', job.id)
    .where('lease_token', '=', job.lease_token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function finishJob(db: Db, job: JobRow, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ state: 'done', lease_owner: null, lease_token: null, lease_expires_at: null, last_error: null, updated_at: now })
    .where('id', '=', job.id)
    .where('lease_token', '=', job.lease_token)
    .execute();
}

export async function rescheduleJob(
  db: Db,
  job: JobRow,
  change: { dueAt: number; dueWallAt: number; state: 'pending' | 'dead'; error: string | null; resetAttempts: boolean },
  now: number,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      state: change.state,
      due_at: change.dueAt,
      due_wall_at: change.dueWallAt,
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      last_error: change.error,
      attempts: change.resetAttempts ? 0 : eb.ref('attempts'),
      updated_at: now,
    }))
    .where('id', '=', job.id)
    .where('lease_token', '=', job.lease_token)
    .execute();
}

/** Deletes finished one-off jobs; periodic jobs keep their single row. */
export async function purgeFinishedJobs(db: Db, olderThan: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('state', '=', 'done')
    .where('updated_at', '<', olderThan)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A merchant's next job not yet run, of the kinds this process runs: when it is due on the business clock, and
 * until when another claim holds it (a job running elsewhere right now), if one does.
 */
export async function nextMerchantJob(
  db: Db,
  merchantId: string,
  kinds: string[],
  now: number,
): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined> {
  if (kinds.length === 0) return undefined;
  const row = await db.selectFrom('jobs').select(['due_at', 'state', 'lease_expires_at'])
    .where('merchant_id', '=', merchantId).where('state', 'in', ['pending', 'running']).where('kind', 'in', kinds)
    .orderBy('due_at').limit(1).executeTakeFirst();
  if (!row) return undefined;
  const held = row.state === 'running' && row.lease_expires_at !== null && row.lease_expires_at >= now;
  return { dueAt: row.due_at, heldUntil: held ? row.lease_expires_at! : undefined };
}
