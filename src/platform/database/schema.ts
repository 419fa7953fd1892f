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
