import type { Selectable } from 'kysely';
import { RUNNING, wallTimeOf } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import type { JobsTable } from '../platform/database/schema.js';
import { readClockSetting } from '../platform/tenants.js';

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
 * Adds a job; with a dedupe key, a second job under the same key is silently not added. A merchant job is claimed
 * by the wall time at which the merchant's clock, as it stands, reaches its due time.
 */
export async function insertJob(db: Db, job: NewJob, now: number): Promise<boolean> {
  let clock = RUNNING;
  if (job.merchantId !== null) {
    const merchantClock = await readClockSetting(db, job.merchantId);
    if (merchantClock === undefined) throw new Error(`merchant ${job.merchantId} not found`);
    clock = merchantClock;
  }
  const result = await db
    .insertInto('jobs')
    .values({
      id: job.id,
      kind: job.kind,
      merchant_id: job.merchantId,
      due_at: job.dueAt,
      due_wall_at: wallTimeOf(job.dueAt, clock),
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

/**
 * Marks a merchant's job that no claim holds yet as done without running it: work that became unnecessary (its
 * dedupe key names it). False when there was none, or a claim holds it (it then runs, and must find nothing to do).
 */
export async function dropPendingJob(db: Db, merchantId: string, dedupeKey: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'done', updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('dedupe_key', '=', dedupeKey)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
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
