import type { Static } from 'typebox';
import { iso } from '../platform/clock.js';
import { amountAsNumber } from '../platform/money/money.js';
import type { BillingConfigRow, ItemRow } from './catalogue.js';
import { cycleAmount, cycleState, nextExecuteTime } from './schedule.js';
import type { BillingConfigSchema, CycleSchema, ItemSchema, PlanSchema } from './schemas.js';
import type { BillingRow, PlanRow } from './store.js';
import type { PlanView } from './view.js';

/** An item as interface.md's `recurring_items` element: optional text left out when unset, `deleted_at` always sent. */
export function presentItem(row: ItemRow): Static<typeof ItemSchema> {
  return {
    id: row.id,
    label: row.label,
    price: amountAsNumber(row.price, row.currency_exponent),
    currency: row.currency,
    ...(row.reference_id !== null && { reference_id: row.reference_id }),
    ...(row.description !== null && { description: row.description }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: row.deleted_at === null ? null : iso(row.deleted_at),
  };
}

/** A config as interface.md's `recurring_billing_config`: the month and day only where they apply. */
export function presentBillingConfig(row: BillingConfigRow): Static<typeof BillingConfigSchema> {
  return {
    id: row.id,
    interval_count: row.interval_count,
    billing_interval: row.billing_interval as Static<typeof BillingConfigSchema>['billing_interval'],
    billing_type: row.billing_type as Static<typeof BillingConfigSchema>['billing_type'],
    ...(row.billing_month !== null && { billing_month: row.billing_month }),
    ...(row.billing_day_of_month !== null && { billing_day_of_month: row.billing_day_of_month }),
    billing_proration_enabled: row.billing_proration_enabled === 1,
    ...(row.description !== null && { description: row.description }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: row.deleted_at === null ? null : iso(row.deleted_at),
  };
}

const isoOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : iso(ms));

/** A plan with its cycles: each with its state, billings so far, next execution time, amounts, config and items. */
export function presentPlan(view: PlanView): Static<typeof PlanSchema> {
  const { plan } = view;
  const money = (minor: number) => amountAsNumber(minor, plan.currency_exponent);
  return {
    id: plan.id,
    reference_number: plan.reference_number,
    name: plan.name,
    customer_uuid: view.customerUuid,
    state: plan.state as Static<typeof PlanSchema>['state'],
    currency: plan.currency,
    default_collection_method: plan.default_collection_method,
    ...(plan.payment_token !== null && { default_payment_token: plan.payment_token }),
    verify_url: plan.verify_url,
    payment_retry_count: plan.payment_retry_count,
    payment_retry_day_period: plan.payment_retry_day_period,
    ...(plan.note !== null && { note: plan.note }),
    ...(plan.redirect_url !== null && { redirect_url: plan.redirect_url }),
    ...(plan.description !== null && { description: plan.description }),
    cycles: view.cycles.map((entry): Static<typeof CycleSchema> => {
      const { cycle } = entry;
      return {
        id: cycle.id,
        ...(cycle.name !== null && { name: cycle.name }),
        ...(cycle.description !== null && { description: cycle.description }),
        state: cycleState(view, cycle) as Static<typeof CycleSchema>['state'],
        billing_count: cycle.billing_count,
        next_execute_time: isoOrNull(nextExecuteTime(view, cycle.id, view.zone)),
        estimated_start_date: isoOrNull(cycle.start_at ?? cycle.estimated_start_at),
        estimated_end_date: isoOrNull(cycle.estimated_end_at),
        interval_counts: cycle.interval_counts,
        discount_amount: money(cycle.discount_amount),
        amount: money(cycleAmount(entry)),
        recurring_billing_config: presentBillingConfig(entry.config),
        recurring_items: entry.items.map(({ item, quantity }) => ({ ...presentItem(item), quantity })),
      };
    }),
    cancel_at: isoOrNull(plan.cancel_at),
    created_at: iso(plan.created_at),
    updated_at: iso(plan.updated_at),
  };
}

/** A billing, as the plan events carry it. */
export function presentBilling(billing: BillingRow, plan: PlanRow) {
  return {
    cycle_id: billing.cycle_id,
    sequence: billing.sequence,
    billing_time: iso(billing.billing_at),
    period_start: iso(billing.period_start),
    period_end: iso(billing.period_end),
    amount: amountAsNumber(billing.amount, plan.currency_exponent),
    state: billing.state,
    attempt: billing.attempt,
    order_number: billing.order_number,
    retry_at: isoOrNull(billing.retry_at),
    failure: billing.last_error,
  };
}
