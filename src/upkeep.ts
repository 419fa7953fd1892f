import { type Context, merchantContext, type PlatformContext } from './context/context.js';
import { purgeSettledEvents } from './events/store.js';
import type { NonceStore } from './http/auth/nonce-store.js';
import { purgeExpiredClaims } from './http/idempotency/store.js';
import { purgeExpiredLinks } from './links/links.js';
import { findMerchant } from './platform/tenants.js';
import { type RailOperationKind, recoverInterrupted } from './rails/operation.js';
import { type JobDefinition, platformJob } from './scheduler/scheduler.js';
import { purgeFinishedJobs } from './scheduler/store.js';

const MINUTE = 60_000;
const FINISHED_JOBS_KEPT_MS = 7 * 24 * 60 * MINUTE;
export const RECOVER_JOB = 'rails.recover_interrupted';

/**
 * The platform's own upkeep: forget nonces and idempotency records past their window, long-expired hosted links,
 * webhook events past their retention (once delivered or given up), and old finished jobs.
 */
export function upkeepJobs(deps: { nonces: NonceStore }): JobDefinition[] {
  return [
    platformJob(
      'purge-nonces',
      async (ctx) => {
        await deps.nonces.purgeExpired(ctx.wallClock.now().getTime());
      },
      { everyMs: MINUTE },
    ),
    platformJob(
      'purge-idempotency-keys',
      async (ctx) => {
        await purgeExpiredClaims(ctx.db, ctx.wallClock.now().getTime());
      },
      { everyMs: 10 * MINUTE },
    ),
    platformJob('purge-page-links', purgeExpiredLinks, { everyMs: 60 * MINUTE }),
    platformJob(
      'purge-webhook-events',
      async (ctx) => {
        await purgeSettledEvents(ctx.db, ctx.wallClock.now().getTime() - ctx.config.eventRetentionMs);
      },
      { everyMs: 60 * MINUTE },
    ),
    platformJob(
      'purge-finished-jobs',
      async (ctx) => {
        await purgeFinishedJobs(ctx.db, ctx.wallClock.now().getTime() - FINISHED_JOBS_KEPT_MS);
      },
      { everyMs: 60 * MINUTE },
    ),
  ];
}

/**
 * Recovery of what a stopped or stalled process left between the two phases of a rail operation, of every kind
 * the modules declare: periodically, for calls older than `recoveryAfterMs` (other processes may be mid-call).
 */
export function recoveryJob(kinds: ReadonlyArray<RailOperationKind<Context>>, recoveryAfterMs: number): JobDefinition {
  return platformJob(
    RECOVER_JOB,
    async (ctx) => {
      await recoverOperations(ctx, kinds, ctx.wallClock.now().getTime() - recoveryAfterMs);
    },
    { everyMs: recoveryAfterMs },
  );
}

/** Recovers the operations of these kinds whose rail call began before `startedBefore` (wall time). */
export function recoverOperations(
  platform: PlatformContext,
  kinds: ReadonlyArray<RailOperationKind<Context>>,
  startedBefore: number,
): Promise<number> {
  return recoverInterrupted(platform, kinds, startedBefore, async (merchantId, reference) => {
    const merchant = await findMerchant(platform.db, merchantId);
    return (
      merchant && merchantContext(platform, merchant, { kind: 'system', job: RECOVER_JOB }, `recovery:${reference}`)
    );
  });
}
