/**
 * The tables of payouts/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    payees: PayeesTable;
    payout_requests: PayoutRequestsTable;
    payout_thresholds: PayoutThresholdsTable;
  }
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
