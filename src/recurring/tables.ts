/**
 * The tables of recurring/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    recurring_items: RecurringItemsTable;
    recurring_billing_configs: RecurringBillingConfigsTable;
    recurring_plans: RecurringPlansTable;
    recurring_cycles: RecurringCyclesTable;
    recurring_cycle_items: RecurringCycleItemsTable;
    recurring_billings: RecurringBillingsTable;
  }
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
