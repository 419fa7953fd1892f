import type { NonceStore } from '../http/auth/nonce-store.js';
import { purgeExpiredClaims } from '../http/idempotency/store.js';
import type { Scheduler } from './scheduler.js';
import { purgeFinishedJobs } from './store.js';
import { purgeExpiredLinks } from '../links/links.js';
import { purgeSettledEvents } from '../events/store.js';

const MINUTE = 60_000;
const FINISHED_JOBS_KEPT_MS = 7 * 24 * 60 * MINUTE;

/**
 * The platform's own upkeep: forget nonces and idempotency records past their window, long-expired page links,
 * webhook events past their retention (once delivered or given up), and old finished jobs.
 */
export function registerMaintenanceJobs(scheduler: Scheduler, deps: { nonces: NonceStore }): void {
  scheduler.registerPlatformJob('purge-nonces', async (ctx) => {
    await deps.nonces.purgeExpired(ctx.wallClock.now().getTime());
  }, { everyMs: MINUTE });
  scheduler.registerPlatformJob('purge-idempotency-keys', async (ctx) => {
    await purgeExpiredClaims(ctx.db, ctx.wallClock.now().getTime());
  }, { everyMs: 10 * MINUTE });
  scheduler.registerPlatformJob('purge-page-links', async (ctx) => {
    await purgeExpiredLinks(ctx);
  }, { everyMs: 60 * MINUTE });
  scheduler.registerPlatformJob('purge-webhook-events', async (ctx) => {
    await purgeSettledEvents(ctx.db, ctx.wallClock.now().getTime() - ctx.config.eventRetentionMs);
  }, { everyMs: 60 * MINUTE });
  scheduler.registerPlatformJob('purge-finished-jobs', async (ctx) => {
    await purgeFinishedJobs(ctx.db, ctx.wallClock.now().getTime() - FINISHED_JOBS_KEPT_MS);
  }, { everyMs: 60 * MINUTE });
}
