import { findMerchant } from '../merchants/store.js';
import { inTransaction, type Context } from '../platform/context.js';
import { forUpdate } from '../platform/database/locking.js';
import { AppError } from '../platform/errors.js';
import { localDate } from '../platform/time-zone.js';
import type { JobRunner } from '../scheduler/scheduler.js';
import { realignMerchantJobs } from '../scheduler/store.js';

export interface ClockReading {
  now: string;
  business_date: string;
  timezone: string;
  offset_seconds: number;
}

export const MAX_ADVANCE_SECONDS = 400 * 24 * 60 * 60;

export async function readClock(ctx: Context): Promise<ClockReading> {
  const merchant = await findMerchant(ctx.db, ctx.merchant.id);
  const offset = merchant!.clockOffsetMs;
  const now = ctx.wallClock.now().getTime() + offset;
  return {
    now: new Date(now).toISOString(),
    business_date: localDate(now, ctx.merchant.timezone),
    timezone: ctx.merchant.timezone,
    offset_seconds: Math.round(offset / 1000),
  };
}

const advancing = new Map<string, Promise<unknown>>();

/**
 * Moves the merchant's business clock forward, and returns once everything that fell due on the way has run and
 * committed, in time order: the clock stops at each job's due time, runs what is due, and goes on. Only this
 * merchant's clock moves. Advances of one merchant are taken one at a time (in this process).
 */
export async function advanceClock(ctx: Context, seconds: number): Promise<ClockReading> {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_ADVANCE_SECONDS) {
    throw new AppError('validationFailed', `advance_seconds must be a whole number from 1 to ${MAX_ADVANCE_SECONDS}.`);
  }
  const jobs = ctx.jobs;
  if (!jobs) throw new AppError('unavailable', 'The scheduler is not running.');
  const previous = advancing.get(ctx.merchant.id) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(async () => {
    const target = await businessNow(ctx) + seconds * 1000;
    // Each step runs what is due or reaches the target; the bound only guards against a job that never leaves.
    for (let step = 0; ; step += 1) {
      if (step === 100_000) throw new AppError('unavailable', 'The clock could not get past a job that keeps falling due.');
      const next = await nextJobWhenFree(ctx, jobs);
      const stop = next !== undefined && next <= target ? next : target;
      await moveTo(ctx, stop);
      await jobs.runDue({ merchantId: ctx.merchant.id });
      if (stop === target && (next === undefined || next > target)) break;
    }
    return readClock(ctx);
  });
  advancing.set(ctx.merchant.id, run);
  try {
    return await run;
  } finally {
    if (advancing.get(ctx.merchant.id) === run) advancing.delete(ctx.merchant.id);
  }
}

/** How long a clock move waits for a job of its merchant that another process (or tick) is running: 10 s. */
const HELD_JOB_POLLS = 200;
const HELD_JOB_POLL_MS = 50;

/**
 * When the merchant's next job is due. One running elsewhere must finish first (the clock cannot pass it, and
 * this process cannot run it): wait for it a while, then give up rather than spin.
 */
async function nextJobWhenFree(ctx: Context, jobs: JobRunner): Promise<number | undefined> {
  for (let poll = 0; poll < HELD_JOB_POLLS; poll += 1) {
    const next = await jobs.nextDue(ctx.merchant.id);
    if (next?.heldUntil === undefined) return next?.dueAt;
    await new Promise((resolve) => setTimeout(resolve, HELD_JOB_POLL_MS));
  }
  throw new AppError('unavailable', 'A job of this merchant is running in another process; move the clock again shortly.');
}

async function businessNow(ctx: Context): Promise<number> {
  const merchant = await findMerchant(ctx.db, ctx.merchant.id);
  return ctx.wallClock.now().getTime() + merchant!.clockOffsetMs;
}

/** Sets the clock so that business time reads `at` (never backwards), and keeps the jobs' wall due times in step. */
async function moveTo(ctx: Context, at: number): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await forUpdate(tx.db, tx.db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', tx.merchant.id))
      .executeTakeFirstOrThrow();
    const offset = Math.max(row.clock_offset_ms, at - tx.wallClock.now().getTime());
    if (offset === row.clock_offset_ms) return;
    await tx.db.updateTable('merchants').set({ clock_offset_ms: offset, updated_at: tx.wallClock.now().getTime() })
      .where('id', '=', tx.merchant.id).execute();
    await realignMerchantJobs(tx.db, tx.merchant.id, offset);
  });
}
