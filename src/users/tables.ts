/**
 * The tables of users/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    issuing_users: IssuingUsersTable;
  }
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
