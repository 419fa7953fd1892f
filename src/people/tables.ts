/**
 * The tables of people/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    dashboard_people: DashboardPeopleTable;
    dashboard_sessions: DashboardSessionsTable;
    dashboard_audit: DashboardAuditTable;
    dashboard_sign_in_failures: DashboardSignInFailuresTable;
  }
}

/** Someone who signs in to one merchant's dashboard. */
export interface DashboardPeopleTable {
  id: string;
  merchant_id: string;
  /** Lower case: the address signs in whatever its case. One person per address on the platform. */
  email: string;
  role: string;
  /** `scrypt$N$r$p$salt$hash` (base64url): passwords.ts. */
  password_hash: string;
  created_at: number;
  updated_at: number;
}

/** A signed-in browser. The cookie holds the id; the table only its SHA-256, so a copy of the database signs no one in. */
export interface DashboardSessionsTable {
  id_hash: string;
  person_id: string;
  /** The token every form of this session carries (CSRF). */
  form_token: string;
  /** The address it signed in from. */
  address: string;
  created_at: number;
  /** Wall time of its last request (written at most once a minute): an idle session ends. */
  last_seen_at: number;
}

/** What a person did in the dashboard: who, what, when (wall time), from which address. */
export interface DashboardAuditTable {
  /** Sortable (UUIDv7): the log reads newest first. */
  id: string;
  merchant_id: string;
  /** Null for the operator at the command line; a removed person's lines keep their id (and address). */
  person_id: string | null;
  email: string;
  action: string;
  /** What the action was about (a person's address, an order number), when it was about something. */
  subject: string | null;
  address: string;
  at: number;
}

/** Failed sign-ins of one address (`address:…`) or one account (`email:…`) in the current window. */
export interface DashboardSignInFailuresTable {
  key: string;
  window_started_at: number;
  failures: number;
}
