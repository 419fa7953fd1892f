/**
 * The tables of issuing/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    issued_cards: IssuedCardsTable;
    issued_card_limit_changes: IssuedCardLimitChangesTable;
    issued_card_number_reads: IssuedCardNumberReadsTable;
    issued_card_transactions: IssuedCardTransactionsTable;
    issued_card_transaction_steps: IssuedCardTransactionStepsTable;
    issued_card_spend: IssuedCardSpendTable;
    issuing_authorization_endpoints: IssuingAuthorizationEndpointsTable;
  }
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

/**
 * What a card did (operation 4): an authorisation (held, then settled, reversed, expired or declined), a refund, a
 * withdrawal.
 */
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
