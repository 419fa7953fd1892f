import type { Static } from 'typebox';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import { maskNumber } from './card-numbers.js';
import type { CardLimit } from './limits.js';
import type { CardSchema } from './schemas.js';
import type { CardRow } from './store.js';

export type CardReply = Static<typeof CardSchema>;

/** A card as every reply shows it: masked, with its limits and what the current periods have used of them. */
export function presentCard(
  row: CardRow,
  view: { businessName: string; limits: readonly CardLimit[]; spent: Record<'daily' | 'monthly' | 'lifetime', number> },
): CardReply {
  const exponent = exponentOf(row.settlement_currency);
  return {
    id: row.id,
    p_user_id: row.user_id,
    reference_id: row.reference_id,
    type: row.type,
    title: row.title,
    expiration_date: expirationDate(row),
    settlement_currency: row.settlement_currency,
    first_6_digits: row.first6,
    last_4_digits: row.last4,
    status: row.status as CardReply['status'],
    pan: maskNumber(row.first6, row.last4),
    issuer_brand: 'JCB',
    is_encrypt: false,
    business_name: view.businessName,
    limits: view.limits.map((limit) => ({
      period: limit.period,
      limit_amount: formatAmount(limit.amount, exponent),
      used_amount: formatAmount(limit.period === 'transaction' ? 0 : view.spent[limit.period], exponent),
    })),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function expirationDate(row: Pick<CardRow, 'exp_month' | 'exp_year'>): string {
  return `${String(row.exp_month).padStart(2, '0')}/${String(row.exp_year % 100).padStart(2, '0')}`;
}

export function presentLimits(
  limits: readonly CardLimit[],
  currency: string,
): Array<{ period: CardLimit['period']; limit_amount: string }> {
  return limits.map((limit) => ({
    period: limit.period,
    limit_amount: formatAmount(limit.amount, exponentOf(currency)),
  }));
}
