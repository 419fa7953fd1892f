import type { Context } from '../context/context.js';
import { scheduleJob } from '../scheduler/scheduler.js';

export const EXPIRE_AUTHORIZATIONS_JOB = 'issuing.expire_authorizations';
const MINUTE_MS = 60_000;

/** Buckets this process has scheduled (after commit), by merchant and minute: no statement to schedule one again. */
const scheduled = new Set<string>();

/**
 * Makes sure a job runs at the end of the business minute in which an authorisation expires. Authorisations share
 * the job of their minute (one per merchant and minute: its dedupe key names both), so that holding a purchase costs no
 * job of its own; the job expires every authorisation of the merchant due by then (clearing.ts).
 */
export async function scheduleExpiry(ctx: Context, expiresAt: number): Promise<void> {
  const bucket = Math.ceil(expiresAt / MINUTE_MS) * MINUTE_MS;
  const key = `${ctx.merchant.id}:${bucket}`;
  if (scheduled.has(key)) return;
  await scheduleJob(ctx, {
    kind: EXPIRE_AUTHORIZATIONS_JOB,
    merchantId: ctx.merchant.id,
    dueAt: bucket,
    payload: null,
    dedupeKey: `${EXPIRE_AUTHORIZATIONS_JOB}:${key}`,
  });
  ctx.afterCommit?.(() => {
    if (scheduled.size > 100_000) scheduled.clear();
    scheduled.add(key);
  });
}

/** The sweep given up on: the authorisations it could not expire stay due, and are swept again an hour later. */
export async function expireAgainLater(ctx: Context): Promise<void> {
  await scheduleExpiry(ctx, ctx.clock.now().getTime() + 60 * MINUTE_MS);
}
