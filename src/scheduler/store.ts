import { sql, type Selectable } from 'kysely';
import { isPostgres, type Db } from '../platform/database/database.js';
import type { JobsTable } from '../platform/database/schema.js';

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  id: string;
  kind: string;
  merchantId: string | null;
  dueAt: number;
  payload: unknown;
  dedupeKey?: string;
}

/** Adds a job; with a dedupe key, a second job under the same key is silently not added. */
export async function insertJob(db: Db, job: NewJob, now: number): Promise<boolean> {
  const result = await db
    .insertInto('jobs')
    .values({
      id: job.id,
      kind: job.kind,
      merchant_id: job.merchantId,
      due_at: job.dueAt,
      payload: JSON.stringify(job.payload ?? null),
      state: 'pending',
      attempts: 0,
      lease_owner: null,
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

/** Wall time at which a job falls due: merchant jobs are due on that merchant's business clock. */
const wallDue = sql<number>`j.due_at - coalesce(m.clock_offset_ms, 0)`;

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** The kinds this process can run: an older process in a rolling upgrade leaves newer kinds alone. */
  kinds: string[];
  /** Only this merchant's jobs (the sandbox clock runs one merchant's due work). */
  merchantId?: string;
}

/**
 * Leases due jobs to one owner. On PostgreSQL the candidate rows are locked with SKIP LOCKED, so processes
 * claiming at the same time get disjoint sets; a job whose lease ran out (its process died) is claimable again.
 */
export async function claimDueJobs(db: Db, options: ClaimOptions): Promise<JobRow[]> {
  if (options.kinds.length === 0) return [];
  let due = db
    .selectFrom('jobs as j')
    .leftJoin('merchants as m', 'm.id', 'j.merchant_id')
    .select('j.id')
    .where((eb) =>
      eb.or([
        eb('j.state', '=', 'pending'),
        eb.and([eb('j.state', '=', 'running'), eb('j.lease_expires_at', '<=', options.now)]),
      ]),
    )
    .where('j.kind', 'in', options.kinds)
    .where(wallDue, '<=', options.now)
    .orderBy(wallDue)
    .orderBy('j.id')
    .limit(options.limit);
  if (options.merchantId !== undefined) due = due.where('j.merchant_id', '=', options.merchantId);
  if (isPostgres(db)) due = due.forUpdate('j').skipLocked();

  const claimed = await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      lease_owner: options.owner,
      lease_expires_at: options.now + options.leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: options.now,
    }))
    .where('id', 'in', due)
    .returningAll()
    .execute();
  return claimed;
}

/** Finishes a job only if this owner still holds its lease; a lost lease means someone else has it now. */
export async function finishJob(db: Db, job: JobRow, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ state: 'done', lease_owner: null, lease_expires_at: null, last_error: null, updated_at: now })
    .where('id', '=', job.id)
    .where('lease_owner', '=', job.lease_owner)
    .execute();
}

export async function rescheduleJob(
  db: Db,
  job: JobRow,
  change: { dueAt: number; state: 'pending' | 'dead'; error: string | null; resetAttempts: boolean },
  now: number,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      state: change.state,
      due_at: change.dueAt,
      lease_owner: null,
      lease_expires_at: null,
      last_error: change.error,
      attempts: change.resetAttempts ? 0 : eb.ref('attempts'),
      updated_at: now,
    }))
    .where('id', '=', job.id)
    .where('lease_owner', '=', job.lease_owner)
    .execute();
}

export async function purgeFinishedJobs(db: Db, olderThan: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('state', '=', 'done')
    .where('dedupe_key', 'is', null)
    .where('updated_at', '<', olderThan)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
