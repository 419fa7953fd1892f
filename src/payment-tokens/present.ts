import type { Static } from 'typebox';
import type { PaymentTokenSchema } from '../customers/index.js';
import type { TokenRow } from './store.js';

export type TokenReply = Static<typeof PaymentTokenSchema>;

/** The interface's payment token object; the card only in its masked form. */
export function presentToken(row: TokenRow, defaultTokenId: string | null): TokenReply {
  const reply: TokenReply = {
    token_type: row.token_type,
    token: row.token,
    state: row.state,
    default: row.id === defaultTokenId,
    verify_url: row.state === 'pending' ? row.verify_url : null,
    verify_uuid: row.verify_uuid,
  };
  if (row.error_code !== null) reply.error_code = row.error_code;
  if (row.error_msg !== null) reply.error_msg = row.error_msg;
  if (row.token_type === 'CreditCard') {
    reply.credit_card = {
      number: maskedNumber(row.card_first6, row.card_last4),
      exp_month: row.exp_month ?? '',
      exp_year: row.exp_year ?? '',
      holder_name: row.holder_name ?? '',
      brand: row.card_brand ?? '',
      billing_currency: row.billing_currency,
    };
  }
  return reply;
}

/** First six and last four digits, the middle starred (the usual PCI masking). */
function maskedNumber(first6: string | null, last4: string | null): string {
  return `${first6 ?? ''}******${last4 ?? ''}`;
}
