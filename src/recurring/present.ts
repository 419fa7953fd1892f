import type { Static } from 'typebox';
import { amountAsNumber } from '../platform/money/money.js';
import type { BillingConfigRow, ItemRow } from './catalogue.js';
import type { BillingConfigSchema, ItemSchema } from './schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

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
