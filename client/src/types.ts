/** Shapes of what paygate returns and accepts, as the OpenAPI document at `/openapi.json` declares them. */

export const DEFAULT_PAYMENT_METHODS = ['Credit Card', 'Alipay', 'Wechat Pay'] as const;
export type DefaultPaymentMethod = (typeof DEFAULT_PAYMENT_METHODS)[number];

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export interface ErrorEnvelope {
  code: number;
  error_code: string;
  message: string;
  data: null;
}

export interface Customer {
  uuid: string;
  reference_number: string;
  name: string;
  phone: string;
  /** Always present; `""` when unknown. */
  dial_code: string;
  email?: string;
  company_name?: string;
  default_payment_method?: DefaultPaymentMethod;
  default_payment_token?: PaymentToken;
}

/** A card to bind as a payment token (`customers.bindCard`). */
export interface BindCardInput {
  number: string;
  exp_month: string | number;
  exp_year: string | number;
  cvv?: string;
  holder_name: string;
  /** HKD when absent. */
  billing_currency?: string;
  billing_address?: Record<string, unknown>;
  '3ds'?: { success_return_url?: string; fail_return_url?: string };
}

export interface PaymentToken {
  token_type: 'CreditCard' | 'WechatPayAutoDebit' | 'AlipayAutoDebit';
  token: string;
  state: 'pending' | 'success' | 'failed';
  default: boolean;
  verify_url?: string | null;
  verify_uuid?: string;
  error_code?: string;
  error_msg?: string;
  credit_card?: {
    number: string;
    exp_month: string;
    exp_year: string;
    holder_name: string;
    brand: string;
    billing_currency: string;
  };
}

/** Optional fields: omit to keep the stored value, send `null` to clear it. */
export interface CustomerFields {
  name: string;
  phone: string;
  email?: string | null;
  dial_code?: string | null;
  company_name?: string | null;
  default_payment_method?: DefaultPaymentMethod | null;
  default_payment_token?: string | null;
}

export interface CustomerInput extends CustomerFields {
  reference_number: string;
}

export type OrderState = 'invoiced' | 'in_completed' | 'completed' | 'voided';
export type CorrespondenceState = 'unpaid' | 'partial_paid' | 'paid' | 'over_paid' | 'refunded' | 'voided' | 'authorized';
export type TransactionType = 'Sales' | 'Authorization' | 'Refund' | 'Capture';
export type PurchasableType = 'RearTips' | 'Charge' | 'Listing' | 'Rounding' | 'SurchargeFee';

/** Amounts go in as decimal text ("12.50") or JSON numbers (12.5). */
export type AmountInput = string | number;

export interface LineItemInput {
  purchasable_type: PurchasableType;
  purchase_id?: number | null;
  price: AmountInput;
  quantity: number;
  total?: AmountInput;
  label?: string | null;
}

export interface OrderInput {
  reference_number: string;
  currency: string;
  charge_fee: AmountInput;
  tips?: AmountInput;
  subtotal?: AmountInput;
  due_date?: string | null;
  note?: string | null;
  line_items?: LineItemInput[] | null;
  callback_url?: string | null;
  redirect_url?: string | null;
}

export interface LineItem {
  uuid: string;
  purchasable_type: PurchasableType;
  purchase_id?: number;
  price: number;
  quantity: number;
  total: number;
  label?: string;
}

export interface PaymentData {
  acquirer_name: string;
  acquirer_type: string;
  auth_code?: string;
  brn: string;
  card_number_len?: number;
  card_read_mode?: string;
  credit_card_type?: string;
  first_6_digits?: string;
  last_4_digits?: string;
  merchant_id?: string;
  new_gateway_txn_id: string;
  payment_method: string;
  receipt_id: string;
  rrn?: string;
  transaction_state: string;
  token?: string;
  holder_name?: string;
  exp_month?: string;
  exp_year?: string;
  resp_code?: string;
  resp_msg?: string;
  error_code?: string;
  error_desc?: string;
  consumer_country_code?: string;
}

export interface Transaction {
  type: TransactionType;
  uuid: string;
  currency: string;
  amount: number;
  success: boolean;
  is_pending: boolean;
  captured: boolean;
  allow_void: boolean;
  allow_refund: boolean;
  void_is_pending: boolean;
  voided: boolean;
  payment_method: string;
  note: string | null;
  payment_data: PaymentData;
  original_transaction_uuid: string | null;
  /** While a 3-D Secure challenge is open: where the cardholder passes it. */
  '3ds'?: { enrolled: string; redirect_url: string };
  /** While a wallet payment waits for the payer: what the payer scans or is sent to, and until when. */
  wallet?: { qr_code?: string; redirect_url?: string; expires_at: string };
  created_at: string;
  updated_at: string;
}

export interface Order {
  source: string;
  type: string;
  number: string;
  reference_number: string;
  due_date: string | null;
  initial_total: number;
  initial_tips: number;
  subtotal: number;
  /** Decimal text with the currency's decimals. */
  paid_total: string;
  unpaid_total: string;
  state: OrderState;
  correspondence_state: CorrespondenceState;
  currency: string;
  note: string | null;
  return_url?: string;
  notify_url?: string;
  customer_uuid?: string;
  business: { id: string; business_name: string };
  created_at: string;
  updated_at: string;
  line_items: LineItem[] | null;
  transactions: Transaction[];
}

/** Names an order: by number, by reference number, or both. */
export interface OrderReference {
  number?: string;
  reference_number?: string;
}

export interface CardInput {
  number: string;
  exp_month: string | number;
  exp_year: string | number;
  cvv?: string;
  holder_name?: string;
  /** `sales` (default) charges at once; `pre_authorize` holds the amount for a later capture. */
  consume_mode?: 'sales' | 'pre_authorize' | 'preauth';
}

export interface PaymentInput {
  /** The payment's idempotency key: the same uuid again returns this payment instead of charging twice. */
  uuid?: string;
  /** Part of the order to pay; the unpaid total when absent. */
  amount?: AmountInput;
  note?: string | null;
  credit_card?: CardInput;
  /** Charge a bound payment token instead: no card details, no new 3-D Secure challenge. */
  payment_token?: { token: string; amount?: AmountInput; consume_mode?: 'sales' | 'pre_authorize'; entry_type?: 'cit' | 'mit' };
  /** Pay with a wallet instead (name one method): the payment stays pending until the payer pays. */
  alipay?: Record<string, never>;
  wechatpay?: Record<string, never>;
  fps?: Record<string, never>;
}

/** An order with a link to its hosted payment page (`with_payment_link=true`); the link expires (docs/hosted-pages.md). */
export interface OrderWithPaymentLink {
  order: Order;
  payment_link: string;
}

/** An order with an expiring link to its PDF receipt (`with_download_link=true`). */
export interface OrderWithDownloadLink {
  order: Order;
  download_link: string;
}

export interface OrderWithTransaction {
  order: Order;
  transaction: Transaction;
}

export interface OrderPage {
  orders: Order[];
  offset: number;
  limit: number;
  total: number;
}

export interface SandboxClock {
  now: string;
  business_date: string;
  timezone: string;
  offset_seconds: number;
}

export type WebhookAction =
  | 'order.created' | 'order.authorized' | 'order.paid' | 'order.payment_failure' | 'order.voided' | 'order.refunded' | 'transaction.voided';

export interface WebhookAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: 'delivered' | 'retry' | 'failed';
}

export interface WebhookDelivery {
  /** `notify_url` (the order's) or `app:{AppID}` (an app's webhook endpoint). */
  destination: string;
  url: string;
  state: 'pending' | 'sending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_status: number | null;
  last_error: string | null;
  attempts: WebhookAttempt[];
}

export interface WebhookEvent {
  /** X-Event-ID: receivers deduplicate on it. */
  event_id: string;
  action: WebhookAction | string;
  created_at: string;
  /** The body sent: `{code, message, data: {order}}`, the order as it was at the event. */
  body: { code: number; message: string; data: { order: Order } };
  deliveries: WebhookDelivery[];
}
