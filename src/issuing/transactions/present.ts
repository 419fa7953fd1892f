import type { Static } from 'typebox';
import { exponentOf, formatAmount } from '../../platform/money/money.js';
import type { CardTransactionSchema } from './schemas.js';
import type { CardTransactionRow } from './store.js';

export type CardTransactionReply = Static<typeof CardTransactionSchema>;

/**
 * Operation 4's card transaction: every field text. transaction_amount is signed as the cardholder sees it (a
 * purchase or a withdrawal takes money: negative; a refund gives it back: positive); the local amounts are what
 * was (or is to be) debited or credited, unsigned. final_local_amount is 0 until the transaction settles.
 */
export function presentCardTransaction(row: CardTransactionRow): CardTransactionReply {
  const local = exponentOf(row.local_currency);
  const sign = row.type === 'Refund' ? '' : '-';
  return {
    id: row.id,
    p_business_id: row.merchant_id,
    p_user_id: row.user_id,
    card: row.card_id,
    status: (row.status === 'Reversed' || row.status === 'Expired'
      ? 'Authorized'
      : row.status) as CardTransactionReply['status'],
    type: row.type as CardTransactionReply['type'],
    transaction_currency: row.transaction_currency,
    transaction_amount: sign + formatAmount(row.transaction_amount, exponentOf(row.transaction_currency)),
    local_currency: row.local_currency,
    local_amount: formatAmount(row.local_amount, local),
    final_local_amount: formatAmount(row.final_local_amount ?? 0, local),
    calculated_fee: formatAmount(row.calculated_fee, local),
    merchant_id: row.network_merchant_id,
    merchant_country: row.merchant_country,
    merchant_city: row.merchant_city,
    merchant_name: row.merchant_name,
    p_created_at: new Date(row.created_at).toISOString(),
  };
}
