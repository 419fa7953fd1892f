import type { Context } from '../context/context.js';
import { balanceIn, lockAvailable } from '../ledger/index.js';
import { localDate, localTime } from '../platform/time-zone.js';
import { convert, fxFee, rateOn, takesCurrency } from './fx.js';
import { parseLimits } from './limits.js';
import type { SettlementCurrency } from './program.js';
import { limitExceeded, readSpend } from './spending.js';
import type { CardRow } from './store.js';

/** Why a spend is declined (docs/issuing.md), in the order they are checked. */
export const DECLINE_REASONS = [
  'card_terminated',
  'card_locked',
  'card_expired',
  'currency_not_supported',
  'transaction_limit_exceeded',
  'daily_limit_exceeded',
  'monthly_limit_exceeded',
  'lifetime_limit_exceeded',
  'insufficient_funds',
  'declined_by_authorization_endpoint',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** What approving a spend means, in the card's currency. */
export interface SpendTerms {
  rate: string;
  /** The amount converted at `rate`. */
  local: number;
  /** The foreign-exchange fee on it. */
  fee: number;
}

export function termsOf(card: CardRow, amount: number, currency: string): SpendTerms {
  const local = card.settlement_currency as SettlementCurrency;
  const rate = rateOn(currency, local);
  const converted = convert(amount, currency, local, rate);
  return { rate, local: converted, fee: fxFee(converted, currency === local) };
}

/**
 * The rules a real issuer applies, in order: the card usable (not terminated, locked or expired), the currency
 * taken, each limit with `extraLocal` more spent in its current period, then the merchant's available funds for
 * `extraHold` more on hold. With `lockFunds`, the available account stays locked to the end of the transaction
 * (the check that decides, in the transaction that holds).
 */
export async function declineReason(
  ctx: Context,
  card: CardRow,
  currency: string,
  extraLocal: number,
  extraHold: number,
  lockFunds: boolean,
): Promise<DeclineReason | undefined> {
  if (card.status === 'Terminated') return 'card_terminated';
  if (card.status === 'Locked') return 'card_locked';
  const now = ctx.clock.now().getTime();
  const today = localTime(now, ctx.merchant.timezone);
  if (today.year > card.exp_year || (today.year === card.exp_year && today.month > card.exp_month))
    return 'card_expired';
  if (!takesCurrency(currency)) return 'currency_not_supported';
  const passed = limitExceeded(
    parseLimits(card.limits),
    await readSpend(ctx.db, card.id, localDate(now, ctx.merchant.timezone)),
    extraLocal,
  );
  if (passed) return `${passed}_limit_exceeded`;
  if (extraHold > 0) {
    const available = lockFunds
      ? await lockAvailable(ctx, card.settlement_currency)
      : (await balanceIn(ctx, card.settlement_currency)).available;
    if (available < extraHold) return 'insufficient_funds';
  }
  return undefined;
}
