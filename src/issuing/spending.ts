import { sql } from 'kysely';
import type { Db } from '../platform/database/database.js';
import type { CardLimit, LimitPeriod } from './limits.js';

type Accumulating = Exclude<LimitPeriod, 'transaction'>;

/**
 * What a card has spent per limit period, kept as running sums (an authorisation adds what it holds, a reversal or
 * an expiry takes it back, a settlement adds what it settled beyond the hold): checking the limits is three reads,
 * however many transactions the card has. A period is the merchant's local day or month of the authorisation, so
 * it rolls over at local midnight on the merchant's business clock; an authorisation keeps counting in the period
 * it was made in, whatever happens to it later.
 */
export function periodKeys(spendDate: string): Record<Accumulating, string> {
  return { daily: `D:${spendDate}`, monthly: `M:${spendDate.slice(0, 7)}`, lifetime: 'L' };
}

export async function readSpend(db: Db, cardId: string, today: string): Promise<Record<Accumulating, number>> {
  const keys = periodKeys(today);
  const rows = await db
    .selectFrom('issued_card_spend')
    .select(['period_key', 'amount'])
    .where('card_id', '=', cardId)
    .where('period_key', 'in', Object.values(keys))
    .execute();
  const of = (key: string) => Number(rows.find((row) => row.period_key === key)?.amount ?? 0);
  return { daily: of(keys.daily), monthly: of(keys.monthly), lifetime: of(keys.lifetime) };
}

/** Adds `delta` (minor units, may be negative) to the three periods of `spendDate`. */
export async function addSpend(
  db: Db,
  merchantId: string,
  cardId: string,
  spendDate: string,
  delta: number,
): Promise<void> {
  if (delta === 0) return;
  // One statement, its rows always in the same order: concurrent changes of one card lock them in one order.
  const rows = Object.values(periodKeys(spendDate))
    .sort()
    .map((key) => ({ card_id: cardId, period_key: key, merchant_id: merchantId, amount: delta }));
  await db
    .insertInto('issued_card_spend')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['card_id', 'period_key']).doUpdateSet({ amount: sql`issued_card_spend.amount + excluded.amount` }),
    )
    .execute();
}

/** The first limit that `amount` more would pass, if any. */
export function limitExceeded(
  limits: readonly CardLimit[],
  spent: Record<Accumulating, number>,
  amount: number,
): LimitPeriod | undefined {
  for (const limit of limits) {
    const used = limit.period === 'transaction' ? 0 : spent[limit.period];
    if (used + amount > limit.amount) return limit.period;
  }
  return undefined;
}
