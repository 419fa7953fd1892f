import type { Context, PlatformContext } from '../context/context.js';
import { currencyOf } from '../platform/money/money.js';
import { setThreshold, thresholdOf } from './store.js';

/**
 * Without a rule of its own, a merchant's payouts of 10,000 or more (in major units of their currency) wait for
 * approval.
 */
export const DEFAULT_APPROVAL_THRESHOLD_MAJOR = 10_000;

/** From which amount (minor units) the merchant's payouts in `currency` wait for approval. */
export async function approvalThreshold(ctx: Context, currency: string): Promise<number> {
  return (
    (await thresholdOf(ctx.db, ctx.merchant.id, currency)) ??
    DEFAULT_APPROVAL_THRESHOLD_MAJOR * 10 ** currencyOf(currency).exponent
  );
}

/** Sets the merchant's threshold in `currency` (minor units; 0: every payout waits for approval). */
export async function setApprovalThreshold(
  platform: PlatformContext,
  merchantId: string,
  currency: string,
  amount: number,
): Promise<void> {
  await setThreshold(platform.db, merchantId, currency, amount, platform.wallClock.now().getTime());
}
