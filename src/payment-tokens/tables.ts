/**
 * The tables of payment-tokens/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    payment_tokens: PaymentTokensTable;
  }
}

export type PaymentTokenType = 'CreditCard' | 'AlipayAutoDebit' | 'WechatPayAutoDebit';
export type PaymentTokenState = 'pending' | 'success' | 'failed';

/**
 * A customer's card (or wallet agreement) bound for later charges. No card number is kept here: the acquirer
 * keeps the card, named by `bind_reference` (the verification authorisation); only the masked parts are ours.
 */
export interface PaymentTokensTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  /** The token value clients use. */
  token: string;
  token_type: PaymentTokenType;
  state: PaymentTokenState;
  /** `sending` while the acquirer is asked, `awaiting_payer` during 3-D Secure, `done` once settled. */
  progress: 'sending' | 'awaiting_payer' | 'done';
  verify_uuid: string;
  verify_url: string | null;
  /** The acquirer operation that verified the card; charges name the stored card by it. */
  bind_reference: string;
  card_first6: string | null;
  card_last4: string | null;
  card_brand: string | null;
  exp_month: string | null;
  exp_year: string | null;
  holder_name: string | null;
  billing_currency: string;
  /** JSON of billing_address as sent. */
  billing_address: string | null;
  success_return_url: string | null;
  fail_return_url: string | null;
  error_code: string | null;
  error_msg: string | null;
  app_id: string | null;
  /** The bind request's Idempotency-Key, until its record expires (wall time): a retry finds this binding. */
  /** Wall time the binding's rail call began; with progress `sending`, recovery looks for what it missed. */
  rail_started_at: number | null;
  idempotency_key: string | null;
  idempotency_expires_at: number | null;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}
