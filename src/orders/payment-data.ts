import type { Static } from 'typebox';
import { brandOf, type CheckedCard, maskedParts } from '../cards/card.js';
import type { AcquirerResult, CardAcquirer, PayerAction } from '../rails/acquirer.js';
import type { PaymentDataSchema } from './schemas.js';

/** The interface's payment_data of a transaction: the acquirer's facts about it, and for a card the card's. */
export type PaymentData = Static<typeof PaymentDataSchema>;

/** What is kept of a card: enough to show and to refund, never the full number or the CVV. */
export interface CardFacts {
  first_6_digits: string;
  last_4_digits: string;
  card_number_len: number;
  credit_card_type: string;
  holder_name?: string;
  exp_month: string;
  exp_year: string;
}

export function cardFacts(card: CheckedCard): CardFacts {
  const parts = maskedParts(card.number);
  return {
    first_6_digits: parts.first6,
    last_4_digits: parts.last4,
    card_number_len: parts.length,
    credit_card_type: brandOf(card.number),
    ...(card.holderName !== undefined && { holder_name: card.holderName }),
    exp_month: String(card.expMonth).padStart(2, '0'),
    exp_year: String(card.expYear),
  };
}

const STATE: Record<AcquirerResult['status'], string> = {
  approved: 'APPROVED',
  declined: 'DECLINED',
  failed: 'FAILED',
  awaiting_payer: 'PENDING',
};

/**
 * The interface's payment_data: the acquirer's facts about a transaction, and for a card the card's. Before the
 * acquirer has answered (`result` absent) it holds what is known already, in state PENDING.
 */
export function buildPaymentData(args: {
  transactionId: string;
  merchantId: string;
  acquirer: Pick<CardAcquirer, 'name' | 'type'>;
  /** credit_card or the wallet. */
  method: string;
  card: CardFacts | Partial<CardFacts>;
  result?: AcquirerResult;
}): PaymentData {
  const compact = args.transactionId.replace(/-/g, '');
  const acquirerMerchant = args.merchantId.replace(/-/g, '').slice(0, 10).toUpperCase();
  const data: PaymentData = {
    acquirer_name: args.acquirer.name,
    acquirer_type: args.acquirer.type,
    brn: `BRN${acquirerMerchant}`,
    merchant_id: `MID${acquirerMerchant}`,
    new_gateway_txn_id: compact,
    payment_method: args.method,
    receipt_id: compact.slice(0, 12).toUpperCase(),
    ...(args.method === 'credit_card' && { card_read_mode: 'ecommerce' }),
    transaction_state: args.result ? STATE[args.result.status] : 'PENDING',
    ...args.card,
  };
  if (args.result) {
    data.rrn = args.result.rrn;
    data.resp_code = args.result.responseCode;
    data.resp_msg = args.result.responseMessage;
    if (args.result.authCode !== undefined) data.auth_code = args.result.authCode;
    if (args.result.status === 'declined' || args.result.status === 'failed') {
      data.error_code = args.result.responseCode;
      data.error_desc = args.result.responseMessage;
    }
  }
  return data;
}

/** The card facts (and payment token) a capture, void, refund or recorded answer inherits from its transaction. */
export function inheritedCard(paymentData: string): Partial<CardFacts> & { token?: string } {
  const data = JSON.parse(paymentData) as Partial<CardFacts> & { token?: string };
  const { first_6_digits, last_4_digits, card_number_len, credit_card_type, holder_name, exp_month, exp_year, token } =
    data;
  return Object.fromEntries(
    Object.entries({
      first_6_digits,
      last_4_digits,
      card_number_len,
      credit_card_type,
      holder_name,
      exp_month,
      exp_year,
      token,
    }).filter(([, value]) => value !== undefined),
  );
}

/**
 * The acquirer's answer as payment_data keeps it: the authorisation code, its message, whether the card itself refused.
 */
export function acquirerAnswer(paymentData: string): {
  authCode: string | undefined;
  message: string | undefined;
  declinedByCard: boolean;
} {
  const data = JSON.parse(paymentData) as { auth_code?: string; resp_msg?: string; transaction_state?: string };
  return {
    authCode: data.auth_code,
    message: data.resp_msg,
    declinedByCard: data.transaction_state === STATE.declined,
  };
}

/** The authorisation code the acquirer gave a transaction, if any. */
export function authCodeOf(transaction: { payment_data: string }): string | undefined {
  return acquirerAnswer(transaction.payment_data).authCode;
}

/** What the payer must do, as kept on the transaction (the interface's field names). */
export type StoredPayerAction =
  | { kind: '3ds'; redirect_url: string }
  | { kind: 'wallet'; qr_code?: string; redirect_url?: string };

export function storedPayerAction(action: PayerAction): StoredPayerAction {
  if (action.kind === '3ds') return { kind: '3ds', redirect_url: action.url };
  return {
    kind: 'wallet',
    ...(action.qrCode !== undefined && { qr_code: action.qrCode }),
    ...(action.redirectUrl !== undefined && { redirect_url: action.redirectUrl }),
  };
}
