/**
 * The tables of lab/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    lab_captures: LabCapturesTable;
    lab_taps: LabTapsTable;
    lab_fault_rules: LabFaultRulesTable;
    lab_transfer_fates: LabTransferFatesTable;
    lab_snapshots: LabSnapshotsTable;
    lab_snapshot_parts: LabSnapshotPartsTable;
  }
}

/** One delivery attempt as the inbox caught it: what was sent, what came back, and the fault injected, if any. */
export interface LabCapturesTable {
  /** Sortable (UUIDv7): captures list in the order they were made. */
  id: string;
  merchant_id: string;
  event_id: string;
  event_type: string;
  subject_id: string | null;
  /** The identifiers of the objects in the body (an order's number and reference...), space-separated and space-padded. */
  objects: string;
  delivery_id: string;
  url: string;
  /** JSON: the request's headers, by lower-case name. */
  headers: string;
  body: string;
  /** 1 when the signature verifies with the webhook public key of the app in its Credential. */
  signature_verified: number;
  answer_status: number | null;
  answer_body_excerpt: string | null;
  /** Why no status came back (a timeout, a reset), when none did. */
  answer_error: string | null;
  /** Wall time the answer (or its absence) was known. */
  answer_at: number;
  /** JSON `{rule_id, effect}` of the fault injected into this attempt. */
  fault: string | null;
  /** Business time. */
  created_at: number;
  /** Wall time: what retention counts from. */
  wall_created_at: number;
}

/** An endpoint of the merchant's whose deliveries are also captured. */
export interface LabTapsTable {
  merchant_id: string;
  url: string;
  created_at: number;
}

/** A fault rule: on deliveries to one endpoint, or on one rail. */
export interface LabFaultRulesTable {
  id: string;
  merchant_id: string;
  /** `delivery`, `card-payment`, `card-authorisation` or `payout`. */
  target: string;
  /** The endpoint's URL, for a delivery rule. */
  endpoint: string | null;
  /** Event types it applies to (a comma-separated list of patterns, `order.*`), all when null. */
  events: string | null;
  /** JSON: the effect (`{kind: 'status', status: 503}`...). */
  effect: string;
  /** Applies to the next K matching attempts. */
  next_count: number | null;
  /** Or to P percent of them, drawn from `seed`. */
  percent: number | null;
  seed: string | null;
  /** How many times it applied. */
  uses: number;
  /** Wall time after which it no longer applies (and is no longer listed). */
  expires_at: number | null;
  created_at: number;
}

/**
 * A payout's transfer a `--rail payout` rule gave its fate: rejected, or paid and then returned. Kept, so that the
 * bank answers the same about it however often it is asked (a transfer sent again by recovery, its next report).
 */
export interface LabTransferFatesTable {
  merchant_id: string;
  reference: string;
  /** `reject` or `return`. */
  fate: string;
  rule_id: string;
  created_at: number;
}

/** A named snapshot of one merchant's sandbox world. */
export interface LabSnapshotsTable {
  id: string;
  merchant_id: string;
  name: string;
  /** The merchant's business time when it was saved: a restore sets the clock back to it. */
  business_at: number;
  /** 1 when the clock stood still at the save (a restore leaves it standing at `business_at`). */
  clock_frozen: number | null;
  /** The merchant's seeded identifiers at the save: a restore goes on drawing from there. */
  id_seed: string | null;
  ids_drawn: number | null;
  row_count: number;
  byte_count: number;
  created_at: number;
}

/** A page of one table's rows of a snapshot, as JSON. */
export interface LabSnapshotPartsTable {
  snapshot_id: string;
  seq: number;
  table_name: string;
  data: string;
}
