/**
 * Row types of every table, as the migrations create them. Timestamps are integer milliseconds since the
 * epoch (UTC); money is integer minor units; flags are 0/1 integers, so one schema serves both engines.
 */
export interface Schema {
  settings: SettingsTable;
  merchants: MerchantsTable;
  apps: AppsTable;
  customers: CustomersTable;
  idempotency_keys: IdempotencyKeysTable;
  nonces: NoncesTable;
  jobs: JobsTable;
  orders: OrdersTable;
  order_line_items: OrderLineItemsTable;
  transactions: TransactionsTable;
  sandbox_acquirer_operations: SandboxAcquirerOperationsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  hosted_links: HostedLinksTable;
  card_attempts: CardAttemptsTable;
  payment_tokens: PaymentTokensTable;
  recurring_items: RecurringItemsTable;
  recurring_billing_configs: RecurringBillingConfigsTable;
  recurring_plans: RecurringPlansTable;
  recurring_cycles: RecurringCyclesTable;
  recurring_cycle_items: RecurringCycleItemsTable;
  recurring_billings: RecurringBillingsTable;
  batches: BatchesTable;
  batch_file_parts: BatchFilePartsTable;
  batch_rows: BatchRowsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_top_ups: LedgerTopUpsTable;
  issuing_users: IssuingUsersTable;
  issued_cards: IssuedCardsTable;
  issued_card_limit_changes: IssuedCardLimitChangesTable;
  issued_card_number_reads: IssuedCardNumberReadsTable;
  issued_card_transactions: IssuedCardTransactionsTable;
  issued_card_transaction_steps: IssuedCardTransactionStepsTable;
  issued_card_spend: IssuedCardSpendTable;
  issuing_authorization_endpoints: IssuingAuthorizationEndpointsTable;
  payees: PayeesTable;
  payout_requests: PayoutRequestsTable;
  payout_thresholds: PayoutThresholdsTable;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface MerchantsTable {
  id: string;
  name: string;
  /** IANA time zone of the merchant's business day (settlement, due dates). */
  timezone: string;
  /** Business time minus wall time; moved forward by the sandbox clock. */
  clock_offset_ms: number;
  /** Local hour (0-23, merchant's time zone) at which the day's card transactions settle. */
  settlement_hour: number;
  created_at: number;
  updated_at: number;
}

export interface AppsTable {
  id: string;
  merchant_id: string;
  public_key_pem: string;
  webhook_public_key_pem: string;
  /** The platform's webhook signing key for this app, encrypted with the platform secret. */
  webhook_private_key_enc: string;
  /** JSON array of CIDR texts; empty means any address. */
  allowed_ips: string;
  disabled_at: number | null;
  /** Where every event of the app's merchant is also sent (`paygate app webhook`); none when null. */
  webhook_url: string | null;
  created_at: number;
}

export interface CustomersTable {
  id: string;
  merchant_id: string;
  reference_number: string;
  name: string;
  phone: string;
  email: string | null;
  dial_code: string | null;
  company_name: string | null;
  default_payment_method: string | null;
  default_payment_token_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  idempotency_key: string;
  /** HMAC of method, request-target and body under the platform secret: no request data is kept. */
  fingerprint: string;
  /** Who holds the claim: set on insert and on retake; only its holder may complete or release it. */
  claim_token: string;
  state: 'processing' | 'completed';
  status_code: number | null;
  response_body: string | null;
  /** While processing: after this wall time the claim is considered abandoned (a crash) and may be retaken. */
  locked_until: number;
  expires_at: number;
  created_at: number;
}

export interface NoncesTable {
  app_id: string;
  nonce: string;
  expires_at: number;
}

export interface JobsTable {
  id: string;
  kind: string;
  /** Set for merchant work: `due_at` is then on that merchant's business clock; otherwise on the wall clock. */
  merchant_id: string | null;
  due_at: number;
  /** `due_at` on the wall clock (due_at minus the merchant's clock offset), kept current when the clock moves. */
  due_wall_at: number;
  payload: string;
  state: 'pending' | 'running' | 'done' | 'dead';
  attempts: number;
  /** The process holding the lease, for operators. */
  lease_owner: string | null;
  /** The claim holding the lease: finishing, rescheduling and renewing need it, so a lost lease is fenced off. */
  lease_token: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  /** At most one job per key: periodic jobs and jobs that must not be scheduled twice. */
  dedupe_key: string | null;
  created_at: number;
  updated_at: number;
}

/** An order's states (compatibility.md sections 3 to 5): the stored values, the API's enums and the list filters' values. */
export const ORDER_STATES = ['invoiced', 'in_completed', 'completed', 'voided'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
export const CORRESPONDENCE_STATES = ['unpaid', 'partial_paid', 'paid', 'over_paid', 'refunded', 'voided', 'authorized'] as const;
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

export interface SandboxAcquirerOperationsTable {
  reference: string;
  merchant_id: string;
  /** `agreement`: a wallet auto-debit agreement (a payment token), which later sales are charged to. */
  kind: 'authorize' | 'sale' | 'capture' | 'void' | 'refund' | 'agreement';
  /** `failed` with code 91 is also how a cancelled (never completed) operation is recorded. */
  status: 'approved' | 'declined' | 'failed' | 'awaiting_payer';
  /** credit_card, or the wallet paid with (alipay, wechatpay, fps). */
  payment_method: string;
  amount: number;
  currency: string;
  original_reference: string | null;
  card_first6: string | null;
  card_last4: string | null;
  card_brand: string | null;
  response_code: string;
  response_message: string;
  auth_code: string | null;
  rrn: string;
  /** Names the payer's page (3-D Secure challenge, wallet QR code) while the payer has something to do. */
  payer_token: string | null;
  created_at: number;
  updated_at: number;
}

/** The outbox: one row per event, written in the transaction of the change it reports. */
export interface EventsTable {
  /** Sent as X-Event-ID: receivers deduplicate on it. */
  id: string;
  merchant_id: string;
  /** What the event is about (an order), for its event history. */
  subject_id: string | null;
  /** Sent as X-Action, such as `order.paid`. */
  action: string;
  /** The exact body sent, rendered when the event happened (the order as it was then). */
  payload: string;
  /** Where the subject asked to be told of its events (an order's callback_url), signed by `app_id`'s key. */
  notify_url: string | null;
  app_id: string | null;
  /** Business time. */
  created_at: number;
  wall_created_at: number;
}

/** One event to one destination: retried on its own schedule until delivered or failed for good. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  merchant_id: string;
  /** The app whose webhook key signs it. */
  app_id: string;
  /** `notify_url` (the order's) or `app:{app_id}` (an app's endpoint). */
  destination: string;
  url: string;
  state: 'pending' | 'sending' | 'delivered' | 'failed';
  attempts: number;
  /** Attempts made before the last redelivery: the retry schedule starts again from there. */
  attempts_before_redelivery: number;
  /** The next attempt, on the merchant's business clock, and the same instant on the wall clock. */
  due_at: number;
  due_wall_at: number;
  lease_owner: string | null;
  /** Fences a claim: only the holder of the current token may record the attempt's result. */
  lease_token: string | null;
  lease_expires_at: number | null;
  last_status: number | null;
  last_error: string | null;
  /** Business time. */
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  merchant_id: string;
  /** 1 for the first attempt of the delivery, and so on. */
  attempt: number;
  url: string;
  /** Wall time the request began. */
  started_at: number;
  business_at: number;
  duration_ms: number;
  /** The receiver's HTTP status, when it answered. */
  status_code: number | null;
  /** What went wrong: a timeout, a network error, or the status's meaning. */
  error: string | null;
  outcome: 'delivered' | 'retry' | 'failed';
}

/** A link handed to a person: an order's payment page or receipt, a customer's card-binding page. */
export interface HostedLinksTable {
  /** SHA-256 of the link's token, hex: the token itself is only ever in the link. */
  token_hash: string;
  /** Which page the link opens, as the capability that declared it names it (`payment`, `binding`). */
  kind: string;
  merchant_id: string;
  /** What the page is about: the order of a payment or receipt link, the customer of a binding link. */
  subject_id: string;
  /** Wall time: link expiry is a matter of security, not of the merchant's business clock. */
  created_at: number;
  expires_at: number;
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

/** Card attempts on a hosted page that did not pay or save the card (or are being tried), per order or binding link. */
export interface CardAttemptsTable {
  /** `order:<id>` (a payment page, whichever link) or `link:<token hash>` (a card-binding page). */
  subject: string;
  merchant_id: string;
  declines: number;
}

export interface RecurringItemsTable {
  id: string;
  merchant_id: string;
  reference_id: string | null;
  label: string;
  /** Minor units of `currency`. */
  price: number;
  currency: string;
  currency_exponent: number;
  description: string | null;
  created_at: number;
  updated_at: number;
  /** Set once by DELETE: the item stays readable, and no new plan may use it. */
  deleted_at: number | null;
}

export interface RecurringBillingConfigsTable {
  id: string;
  merchant_id: string;
  interval_count: number;
  billing_interval: string;
  billing_type: string;
  /** Customized yearly configs only: 1-12. */
  billing_month: number | null;
  /** Customized configs only: 1-31, clamped to shorter months. */
  billing_day_of_month: number | null;
  billing_proration_enabled: number;
  description: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface RecurringPlansTable {
  id: string;
  merchant_id: string;
  reference_number: string;
  /** Of the create request's content: the same reference with the same content is the same plan. */
  content_hash: string;
  name: string;
  customer_id: string;
  currency: string;
  currency_exponent: number;
  default_collection_method: string;
  /** The plan's own token; when null, each billing charges the customer's default token. */
  payment_token: string | null;
  payment_retry_count: number;
  payment_retry_day_period: number;
  note: string | null;
  redirect_url: string | null;
  description: string | null;
  /** awaiting_token, active, completed, cancelled, uncollectible. */
  state: string;
  /** While awaiting a token: the hosted page where the customer binds a card. */
  verify_url: string | null;
  /** The suffix of the next generated order's reference number. */
  next_order_seq: number;
  /** Business time of the plan's next billing, retry or cycle change; null once it has none. */
  next_due_at: number | null;
  /** A pending `next_billing_date` cancellation: the business time at which the plan is cancelled instead of billed. */
  cancel_at: number | null;
  app_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface RecurringCyclesTable {
  id: string;
  merchant_id: string;
  plan_id: string;
  position: number;
  name: string | null;
  description: string | null;
  billing_config_id: string;
  /** Minor units, taken off every billing of the cycle. */
  discount_amount: number;
  estimated_start_at: number | null;
  estimated_end_at: number | null;
  interval_counts: number | null;
  /** When the cycle started (null while pending): its calendar's anchor. */
  start_at: number | null;
  end_at: number | null;
  /** pending, active, completed, cancelled, uncollectible. */
  state: string;
  billing_count: number;
  created_at: number;
  updated_at: number;
}

export interface RecurringCycleItemsTable {
  cycle_id: string;
  merchant_id: string;
  position: number;
  item_id: string;
  quantity: number;
}

export interface RecurringBillingsTable {
  id: string;
  merchant_id: string;
  plan_id: string;
  cycle_id: string;
  /** The calendar's sequence within the cycle: with plan and cycle, the key that bills each billing time once. */
  sequence: number;
  billing_at: number;
  period_start: number;
  period_end: number;
  /** Minor units charged (after discount and proration); 0 is a free billing, which makes no order. */
  amount: number;
  /** charging, retry, paid, free, uncollectible. */
  state: string;
  attempt: number;
  retry_at: number | null;
  order_id: string | null;
  order_number: string | null;
  /** The payment.uuid of the current attempt: a retried step charges under the same one, never twice. */
  payment_uuid: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface BatchesTable {
  id: string;
  merchant_id: string;
  batch_name: string;
  /** pending, processing, success, failed, cancelled. */
  upload_status: string;
  /** Where the file is fetched from; null for a file sent as the request's body. */
  file_url: string | null;
  /** csv or xlsx, once the file has been read. */
  file_kind: string | null;
  file_bytes: number | null;
  total_records: number;
  successful_records: number;
  failed_records: number;
  /** Rows a cancellation kept from running. */
  skipped_records: number;
  /** Why the file as a whole failed (status failed). */
  failure_reason: string | null;
  /** The app that created the batch: its events are signed with that app's key. */
  app_id: string | null;
  created_by: string;
  started_at: number | null;
  finished_at: number | null;
  /** When the batch was cancelled. */
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A file sent as a request's body, in parts of base64 text, until its batch has read it. */
export interface BatchFilePartsTable {
  batch_id: string;
  part: number;
  merchant_id: string;
  content: string;
}

export interface BatchRowsTable {
  batch_id: string;
  /** As a spreadsheet numbers it: the header is row 1. */
  row_number: number;
  merchant_id: string;
  /** waiting, running, succeeded, failed, skipped. */
  state: string;
  /** The action as the file wrote it (lower case); null when the cell held none. */
  action: string | null;
  /** JSON: what the row asks for, checked (never a card number). */
  instruction: string | null;
  /** A card row's card as first 6 and last 4 digits. */
  card_masked: string | null;
  /** A card row's card, encrypted, until its row has run: then erased. */
  card_sealed: string | null;
  remark: string | null;
  order_id: string | null;
  transaction_id: string | null;
  /** The file's column at fault, as the file names it, for a row that failed. */
  error_column: string | null;
  error_reason: string | null;
  /** What happened, in words, for the result file. */
  outcome: string | null;
  updated_at: number;
}

/** One account of a merchant in one currency: its balance is the sum of its lines, kept in the lines' transaction. */
export interface LedgerAccountsTable {
  merchant_id: string;
  currency: string;
  /** available, incoming, reserved, on_hold (the merchant's); acquirer_clearing, fees, bank, card_network (the platform's side). */
  account: string;
  balance: number;
  updated_at: number;
}

/** A journal entry: never updated, never deleted. Its lines sum to zero. */
export interface LedgerEntriesTable {
  id: string;
  merchant_id: string;
  currency: string;
  currency_exponent: number;
  /** payment, capture, void, settlement, refund, top_up. */
  type: string;
  /** What the entry changes the merchant's funds by, before its fee. */
  amount: number;
  /** The fee the entry takes (net = amount - fee). */
  fee: number;
  /** transaction or top_up (later: payout, card_transaction). */
  source_type: string;
  source_id: string;
  /** Business time the funds become available: the settlement a payment waits for, fixed when posted. */
  available_on: number | null;
  /** JSON: each account the entry moves, and what it adds to it (signed minor units); the amounts sum to zero. */
  lines: string;
  /** Business time. */
  created_at: number;
}

/** Sandbox funding: what a top-up credited to `available`. */
export interface LedgerTopUpsTable {
  id: string;
  merchant_id: string;
  currency: string;
  amount: number;
  created_by: string;
  created_at: number;
}

/** An identity-verified user of a merchant (operation 2): a cardholder. */
export interface IssuingUsersTable {
  id: string;
  merchant_id: string;
  reference_id: string;
  calling_code: string;
  phone_number: string;
  /** PASSPORT, DRIVER_LICENSE, ID_CARD. */
  document_type: string;
  document_number: string;
  first_name: string | null;
  last_name: string | null;
  /** YYYY-MM-DD. */
  date_of_birth: string;
  /** ISO 3166 alpha-3. */
  issuing_country: string;
  /** pending, approved, rejected. */
  verification_status: string;
  rejection_reason: string | null;
  /** The identity rail's reference of the latest verification (a new one each time the identity changes). */
  verification_reference: string;
  /** Wall time the latest verification was sent, until the rail's answer is recorded (then null). */
  verification_started_at: number | null;
  app_id: string | null;
  created_at: number;
  updated_at: number;
}

/** A card issued to a user. The number and CVV only sealed; first 6 and last 4 in clear. */
export interface IssuedCardsTable {
  id: string;
  merchant_id: string;
  user_id: string;
  reference_id: string;
  title: string;
  /** Expense (the default) or what the merchant names. */
  type: string;
  settlement_currency: string;
  number_sealed: string;
  cvv_sealed: string;
  /** Keyed HMAC of the number: what keeps numbers unique without keeping them in clear. */
  number_fingerprint: string;
  first6: string;
  last4: string;
  exp_month: number;
  /** Four digits. */
  exp_year: number;
  /** Active, Locked, Terminated. */
  status: string;
  /** JSON: [{period, limit_amount (minor units)}], one per period at most. */
  limits: string;
  app_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Every set of limits a card has had, from its first: who set it and when. */
export interface IssuedCardLimitChangesTable {
  id: string;
  merchant_id: string;
  card_id: string;
  limits: string;
  changed_by: string;
  created_at: number;
}

/** The audit log of full card numbers given out. */
export interface IssuedCardNumberReadsTable {
  id: string;
  merchant_id: string;
  card_id: string;
  read_by: string;
  request_id: string;
  created_at: number;
}

/** What a card did (operation 4): an authorisation (held, then settled, reversed, expired or declined), a refund, a withdrawal. */
export interface IssuedCardTransactionsTable {
  id: string;
  merchant_id: string;
  card_id: string;
  user_id: string;
  /** Sales, Refund, Withdrawal. */
  type: string;
  /** Authorized, Declined, Settled; Reversed and Expired (all of it released) are kept but not listed. */
  status: string;
  decline_reason: string | null;
  transaction_currency: string;
  /** Minor units of transaction_currency, positive: what is authorised now, or what settled. */
  transaction_amount: number;
  /** The card's settlement currency. */
  local_currency: string;
  /** transaction_amount at the authorisation's rate, minor units of local_currency. */
  local_amount: number;
  /** What the authorisation holds now (on_hold), minor units of local_currency. */
  held_amount: number;
  /** The foreign-exchange fee, minor units of local_currency. */
  calculated_fee: number;
  /** What was debited in the end: the settled amount at the settlement's rate plus the fee; null until settled. */
  final_local_amount: number | null;
  /** Decimal text: local units per transaction unit. */
  auth_rate: string;
  settle_rate: string | null;
  network_merchant_id: string;
  merchant_name: string;
  merchant_city: string;
  merchant_country: string;
  merchant_category: string;
  /** The merchant's local date of the authorisation: the daily and monthly limit periods it counts in. */
  spend_date: string;
  /** rules, or the merchant's endpoint: endpoint, endpoint_partial, endpoint_timeout (default applied). */
  decided_by: string;
  /** Business time an unsettled authorisation expires. */
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One thing that happened to a card transaction; the ledger entry it posted is named by its id. */
export interface IssuedCardTransactionStepsTable {
  id: string;
  merchant_id: string;
  card_transaction_id: string;
  /** authorization, increment, reversal, expiry, settlement, refund, withdrawal, decline. */
  kind: string;
  /** Minor units of the transaction currency the step was about. */
  transaction_amount: number;
  /** What it moved in the card's currency (held, released or settled). */
  local_amount: number;
  created_at: number;
}

/** What a card has spent in one limit period: D:YYYY-MM-DD, M:YYYY-MM, or L (lifetime). */
export interface IssuedCardSpendTable {
  card_id: string;
  period_key: string;
  merchant_id: string;
  amount: number;
}

/** A merchant's real-time authorisation endpoint. */
export interface IssuingAuthorizationEndpointsTable {
  merchant_id: string;
  url: string;
  /** approve or decline: what applies when the endpoint does not answer in time. */
  default_decision: string;
  /** The app that registered it: its webhook key signs the requests. */
  app_id: string;
  updated_at: number;
}

/** Someone a merchant pays out to, with one Hong Kong FPS account (docs/payouts.md). */
export interface PayeesTable {
  id: string;
  merchant_id: string;
  /** Company or People. */
  type: string;
  nickname: string;
  email: string | null;
  phone_country_code: string | null;
  phone_number: string | null;
  /** ISO 3166 alpha-2 of the account: HK. */
  country: string;
  currency: string;
  /** HK FPS - Account Number, HK FPS - Mobile, HK FPS - Email, HK FPS- FPS ID. */
  transfer_method: string;
  bank_code: string | null;
  account_name: string | null;
  account_number: string | null;
  fps_email: string | null;
  fps_mobile: string | null;
  fps_id: string | null;
  app_id: string | null;
  created_at: number;
  /** Deleted payees are kept for the payouts that name them, and are found by no read. */
  deleted_at: number | null;
}

/** A payout request (operation 9): its schedule state (approval, running) and its transfer state (the bank's). */
export interface PayoutRequestsTable {
  id: string;
  merchant_id: string;
  payee_id: string;
  reference_id: string | null;
  currency: string;
  currency_exponent: number;
  /** Minor units. */
  amount: number;
  callback_url: string;
  remark: string | null;
  /** When it runs (business time), if not at once. */
  schedule_at: number | null;
  /** Pending Approval, Approved, Rejected, Cancelled, Failed. */
  schedule_status: string;
  /** Initiated, Processing Transfer, Settled, Terminated, Reversed, Refunded. */
  transfer_status: string;
  /** Why it failed, was rejected, cancelled, terminated or reversed. */
  status_reason: string | null;
  /** Who approved, rejected or cancelled it (app:<AppID> or operator). */
  decided_by: string | null;
  decided_at: number | null;
  /** When it ran: its amount was reserved and its transfer sent to the bank. */
  executed_at: number | null;
  bank_reference: string | null;
  /** Wall time a call to the bank began and has no answer recorded yet: what recovery looks for. */
  bank_started_at: number | null;
  app_id: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/** From which amount a merchant's payouts in a currency wait for approval. */
export interface PayoutThresholdsTable {
  merchant_id: string;
  currency: string;
  /** Minor units. */
  amount: number;
  updated_at: number;
}
