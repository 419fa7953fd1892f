import { type Context, inTransaction, type PlatformContext } from '../context/context.js';
import { businessTimeOf } from '../platform/clock.js';
import type { Merchant } from '../platform/tenants.js';
import { nextLocalHour } from '../platform/time-zone.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { postSettled } from './ledger-postings.js';
import { settleTransactions } from './transactions-store.js';

export const SETTLE_JOB = 'orders.settle';

/**
 * Settlement is daily, at the merchant's settlement hour in its time zone, on its business clock: one job per
 * settlement, each scheduling the next. The dedupe key names the day, so scheduling twice is harmless.
 */
export async function scheduleNextSettlement(
  ctx: PlatformContext,
  merchant: Pick<Merchant, 'id' | 'timezone' | 'settlementHour' | 'clock'>,
  after = businessTimeOf(ctx.wallClock.now().getTime(), merchant.clock),
): Promise<void> {
  const at = nextLocalHour(after, merchant.settlementHour, merchant.timezone);
  await scheduleJob(ctx, {
    kind: SETTLE_JOB,
    merchantId: merchant.id,
    dueAt: at,
    payload: { at },
    dedupeKey: `${SETTLE_JOB}:${merchant.id}:${at}`,
  });
}

/**
 * The sandbox acquirer's daily settlement: every successful, unvoided sale, capture and refund made up to the
 * settlement time is settled. From then on it can be refunded and no longer voided. The sales and captures it
 * settles move to the merchant's available balance, less their fees, in the same transaction.
 */
export async function settle(ctx: Context, { at }: { at: number }): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await postSettled(tx, await settleTransactions(tx.db, tx.merchant.id, at));
    await scheduleNextSettlement(tx, tx.merchant, at);
  });
}
