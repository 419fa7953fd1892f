import { type Context, type DueWork, inTransaction } from '../context/context.js';
import { businessTimeOf } from '../platform/clock.js';
import { forUpdate } from '../platform/database/locking.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { clockSettingOf, findMerchant, setClock } from '../platform/tenants.js';
import { localDate } from '../platform/time-zone.js';

export interface ClockReading {
  now: string;
  business_date: string;
  timezone: string;
  offset_seconds: number;
  stands_still: boolean;
}

export const MAX_ADVANCE_SECONDS = 400 * 24 * 60 * 60;

export async function readClock(ctx: Context): Promise<ClockReading> {
  const clock = (await findMerchant(ctx.db, ctx.merchant.id))!.clock;
  const now = businessTimeOf(ctx.wallClock.now().getTime(), clock);
  return {
    now: new Date(now).toISOString(),
    business_date: localDate(now, ctx.merchant.timezone),
    timezone: ctx.merchant.timezone,
    offset_seconds: clock.frozenAt === null ? Math.round(clock.offsetMs / 1000) : 0,
    stands_still: clock.frozenAt !== null,
  };
}

const holding = new Map<string, Promise<unknown>>();

/**
 * Moves the merchant's business clock forward, and returns once everything that fell due on the way has run and
 * committed, in time order: the clock stops at each job's due time, runs what is due, and goes on. Only this
 * merchant's clock moves. Advances of one merchant are taken one at a time (in this process: {@link withMerchantClock}).
 */
export async function advanceClock(ctx: Context, seconds: number): Promise<ClockReading> {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_ADVANCE_SECONDS) {
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      `advance_seconds must be a whole number from 1 to ${MAX_ADVANCE_SECONDS}.`,
    );
  }
  const jobs = ctx.dueWork;
  if (!jobs) throw new AppError(PLATFORM_ERRORS.unavailable, 'The scheduler is not running.');
  return withMerchantClock(ctx.merchant.id, async () => {
    // The clock ends `seconds` ahead of where it stood, however long the jobs on the way take: the target is
    // business time with the offset moved by exactly that much, so it goes on with the wall clock meanwhile.
    const before = (await findMerchant(ctx.db, ctx.merchant.id))!.clock;
    const targetNow = () => businessTimeOf(ctx.wallClock.now().getTime(), before) + seconds * 1000;
    // Each step runs what is due or reaches the target. Work may be due many times on the way (a webhook's 16
    // attempts); the bound only guards against work that stays due at the same instant however often it runs.
    let stuck = 0;
    let lastStop: number | undefined;
    try {
      for (;;) {
        const target = targetNow();
        const next = await nextJobWhenFree(ctx, jobs);
        const last = next === undefined || next > target;
        const stop = last ? target : next;
        // On the way, only the work due by the stop is realigned: realigning every waiting row at every stop made
        // a move past n jobs cost n². The rest keeps a later wall time (claimed late, never early) until the last.
        await moveTo(ctx, jobs, stop, last ? undefined : stop);
        await jobs.runDue({ merchantId: ctx.merchant.id });
        // A year of due work is many steps: other requests and merchants are served between them.
        await yieldToEventLoop();
        if (last) break;
        stuck = stop === lastStop ? stuck + 1 : 0;
        if (stuck === 1_000)
          throw new AppError(PLATFORM_ERRORS.unavailable, 'The clock could not get past a job that keeps falling due.');
        lastStop = stop;
      }
    } catch (error) {
      // Stopped on the way: every row back in step with the clock as it now stands.
      await moveTo(ctx, jobs, -Infinity, undefined).catch(() => undefined);
      throw error;
    }
    return readClock(ctx);
  });
}

/**
 * Runs `work` alone on the merchant's clock in this process: after every advance (or other such work) of the
 * merchant's begun before it, and before any begun after. Advances of the clock take it, and so do a sandbox restore
 * and reset, which set the clock back: an advance never runs on across them.
 */
export async function withMerchantClock<T>(merchantId: string, work: () => Promise<T>): Promise<T> {
  const previous = holding.get(merchantId) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(work);
  holding.set(merchantId, run);
  try {
    return await run;
  } finally {
    if (holding.get(merchantId) === run) holding.delete(merchantId);
  }
}

const HELD_WORK_POLL_MS = 50;

/**
 * When the merchant's next job or webhook delivery is due. One running elsewhere must finish first (the clock
 * cannot pass it, and this process cannot run it): wait for it a while (10 s, or longer than a webhook
 * receiver may take to answer), then give up rather than spin.
 */
async function nextJobWhenFree(ctx: Context, jobs: DueWork): Promise<number | undefined> {
  const giveUpAt = performance.now() + Math.max(10_000, ctx.config.webhookTimeoutMs + 5_000);
  while (performance.now() < giveUpAt) {
    const next = await jobs.nextDue(ctx.merchant.id);
    if (next?.heldUntil === undefined) return next?.dueAt;
    await new Promise((resolve) => setTimeout(resolve, HELD_WORK_POLL_MS));
  }
  throw new AppError(
    PLATFORM_ERRORS.unavailable,
    'A job or webhook delivery of this merchant is still running; move the clock again shortly.',
  );
}

/**
 * Sets the clock so that business time reads `at` (never backwards), and keeps the wall due times of the work due by
 * `dueBy` in step; without `dueBy`, of all the merchant's work, whether the clock moved now or at earlier stops. A
 * clock that stands still stays still, at `at`.
 */
async function moveTo(ctx: Context, jobs: DueWork, at: number, dueBy: number | undefined): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await forUpdate(
      tx.db,
      tx.db.selectFrom('merchants').select(['clock_offset_ms', 'clock_frozen_at']).where('id', '=', tx.merchant.id),
    ).executeTakeFirstOrThrow();
    const before = clockSettingOf(row);
    const wallNow = tx.wallClock.now().getTime();
    const clock =
      before.frozenAt === null
        ? { offsetMs: Math.max(before.offsetMs, at - wallNow), frozenAt: null }
        : at > before.frozenAt
          ? { offsetMs: at - wallNow, frozenAt: at }
          : before;
    // Realigned even when the clock does not move: work that fell due on its own, as wall time went by, may have
    // been left out at an earlier stop.
    if (clock !== before && (clock.offsetMs !== before.offsetMs || clock.frozenAt !== before.frozenAt))
      await setClock(tx.db, tx.merchant.id, clock, wallNow);
    await jobs.realign(tx.db, tx.merchant.id, clock, dueBy);
  });
}
