import type { Static } from 'typebox';
import type { BillingConfigSchema, ItemSchema } from './schemas.js';

/** The item and billing config of the API reference's examples (/docs): a monthly subscription of HKD 99.90. */
export const EXAMPLE_ITEM_ID = '019ac2f5-7c1e-7000-8a5e-3f0c9b1d2e4a';
export const EXAMPLE_CONFIG_ID = '019ac2f5-9a40-7000-9b2d-6e1f0a3c4b5d';

export const NEW_ITEM = { reference_id: 'PLAN-GOLD', label: 'Gold membership', price: '99.90', currency: 'HKD', description: 'One month of Gold.' };
export const NEW_CONFIG = { interval_count: 1, billing_interval: 'monthly', billing_type: 'automated', description: 'Monthly, on the day the plan started.' } as const;

const CREATED = '2026-11-20T02:00:00.000Z';

export function exampleItem(deletedAt: string | null = null): Static<typeof ItemSchema> {
  return {
    id: EXAMPLE_ITEM_ID, label: NEW_ITEM.label, price: 99.9, currency: 'HKD', reference_id: NEW_ITEM.reference_id,
    description: NEW_ITEM.description, created_at: CREATED, updated_at: deletedAt ?? CREATED, deleted_at: deletedAt,
  };
}

export function exampleConfig(deletedAt: string | null = null): Static<typeof BillingConfigSchema> {
  return {
    id: EXAMPLE_CONFIG_ID, interval_count: 1, billing_interval: 'monthly', billing_type: 'automated',
    billing_proration_enabled: false, description: NEW_CONFIG.description, created_at: CREATED, updated_at: deletedAt ?? CREATED, deleted_at: deletedAt,
  };
}
