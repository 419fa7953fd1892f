/**
 * The tables of orders/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    orders: OrdersTable;
    order_line_items: OrderLineItemsTable;
    transactions: TransactionsTable;
  }
}

/**
 * An order's states (compatibility.md sections 3 to 5): the stored values, the API's enums and the list filters'
 * values.
 */
export const ORDER_STATES = ['invoiced', 'in_completed', 'completed', 'voided'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
export const CORRESPONDENCE_STATES = [
  'unpaid',
  'partial_paid',
  'paid',
  'over_paid',
  'refunded',
  'voided',
  'authorized',
] as const;
export type CorrespondenceState = (typeof CORRESPONDENCE_STATES)[number];

export interface OrdersTable {
  id: string;
  merchant_id: string;
  /** Service-side unique number, shown to clients. */
  number: string;
  reference_number: string;
  source: string;
  type: string;
  currency: string;
  currency_exponent: number;
  initial_total: number;
  initial_tips: number;
  subtotal: number;
  /** Derived from the transactions, kept for lists and filters; recomputed in every change's transaction. */
  paid_total: number;
  state: OrderState;
  correspondence_state: CorrespondenceState;
  due_date: string | null;
  note: string | null;
  notify_url: string | null;
  return_url: string | null;
  customer_id: string | null;
  /** Fingerprint of the order as created: a create with the same reference and content returns this order. */
  content_hash: string;
  /** The app that created the order: its webhook key signs the deliveries to `notify_url`. */
  app_id: string | null;
  voided_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface OrderLineItemsTable {
  id: string;
  order_id: string;
  merchant_id: string;
  position: number;
  purchasable_type: string;
  purchase_id: number | null;
  price: number;
  quantity: number;
  total: number;
  label: string | null;
}

export const TRANSACTION_TYPES = ['Sales', 'Authorization', 'Refund', 'Capture'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type TransactionStatus = 'pending' | 'succeeded' | 'failed';
/**
 * Where a transaction is with its rail: `sending` from the first commit until the rail's answer is recorded
 * (a crash in between leaves it for recovery), `awaiting_payer` while the payer acts (3-D Secure, a wallet),
 * `done` after.
 */
export type TransactionProgress = 'sending' | 'awaiting_payer' | 'done';

export interface TransactionsTable {
  id: string;
  merchant_id: string;
  order_id: string;
  type: TransactionType;
  payment_method: string;
  currency: string;
  amount: number;
  status: TransactionStatus;
  progress: TransactionProgress;
  /** Authorization: a capture succeeded. Sales and Capture: 1 once successful. */
  captured: number;
  voided: number;
  /** Why it was voided; set when the void begins (so recovery knows it), cleared if the void is refused. */
  void_reason: 'merchant' | 'expired' | null;
  voided_at: number | null;
  void_is_pending: number;
  settled_at: number | null;
  /** Authorization: when an uncaptured authorisation lapses. */
  expires_at: number | null;
  /** Refund and Capture: the transaction they act on. */
  original_transaction_id: string | null;
  /** The client's payment.uuid: a natural key for the payment. */
  payment_uuid: string | null;
  /** The Idempotency-Key of the request that created it: a natural key too, until `idempotency_expires_at`. */
  idempotency_key: string | null;
  /** Wall time after which the Idempotency-Key no longer names this transaction (its record has expired). */
  idempotency_expires_at: number | null;
  /** The Idempotency-Key of the request voiding it: a retry of that void is answered with the void. */
  void_idempotency_key: string | null;
  /** The Idempotency-Key of the request that answered its payer action: a retry of it is answered as it stands. */
  payer_action_idempotency_key: string | null;
  note: string | null;
  /** JSON: what the acquirer reported, in the interface's payment_data shape (never the full number or CVV). */
  payment_data: string;
  /**
   * JSON, while the payer has something to do: `{kind: '3ds', redirect_url}` for a 3-D Secure challenge,
   * `{kind: 'wallet', qr_code?, redirect_url?}` for a wallet payment.
   */
  payer_action: string | null;
  /** Wall time the rail call began: recovery waits this long before asking the rail what became of it. */
  rail_started_at: number | null;
  created_at: number;
  updated_at: number;
}
