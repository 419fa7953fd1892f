/**
 * Row types of every table, as the migrations create them. Timestamps are integer milliseconds since the
 * epoch (UTC); money is integer minor units; flags are 0/1 integers, so one schema serves both engines.
 *
 * Here are the tables of the platform and the shared mechanisms; each capability adds its own to this interface
 * from its `tables.ts` (declaration merging), so that the types of a capability's rows sit beside its module and
 * the platform names no capability.
 */
export interface Schema {
  settings: SettingsTable;
  merchants: MerchantsTable;
  apps: AppsTable;
  idempotency_keys: IdempotencyKeysTable;
  nonces: NoncesTable;
  jobs: JobsTable;
  sandbox_acquirer_operations: SandboxAcquirerOperationsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  hosted_links: HostedLinksTable;
  card_attempts: CardAttemptsTable;
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
  /**
   * Business time when the clock stands still (a deterministic sandbox merchant): it reads this until moved. The
   * offset then keeps the distance from wall time at the last move, which places the due work (scheduler/lease.ts).
   */
  clock_frozen_at: number | null;
  /** The seed of the merchant's identifiers when they are deterministic (platform/ids.ts); null: random. */
  id_seed: string | null;
  /** How many identifiers of the seeded sequence have been used. */
  ids_drawn: number;
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
  /** JSON `{rule_id, effect}`: the fault the sandbox lab injected into this attempt, if any. */
  fault: string | null;
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

/** Card attempts on a hosted page that did not pay or save the card (or are being tried), per order or binding link. */
export interface CardAttemptsTable {
  /** `order:<id>` (a payment page, whichever link) or `link:<token hash>` (a card-binding page). */
  subject: string;
  merchant_id: string;
  declines: number;
}
