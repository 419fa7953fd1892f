/**
 * The tables of ledger/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    ledger_accounts: LedgerAccountsTable;
    ledger_entries: LedgerEntriesTable;
    ledger_top_ups: LedgerTopUpsTable;
  }
}

/** One account of a merchant in one currency: its balance is the sum of its lines, kept in the lines' transaction. */
export interface LedgerAccountsTable {
  merchant_id: string;
  currency: string;
  /**
   * available, incoming, reserved, on_hold (the merchant's); acquirer_clearing, fees, bank, card_network (the
   * platform's side).
   */
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
