import type { Static } from 'typebox';
import { EXAMPLE_CUSTOMER_UUID, EXAMPLE_PROFILE, EXAMPLE_TOKEN, exampleToken } from '../customers/index.js';
import type { BillingConfigSchema, ItemSchema, PlanOrderRecordSchema, PlanSchema } from './schemas.js';

/** The item and billing config of the API reference's examples (/docs): a monthly subscription of HKD 99.90. */
export const EXAMPLE_ITEM_ID = '019ac2f5-7c1e-7000-8a5e-3f0c9b1d2e4a';
export const EXAMPLE_CONFIG_ID = '019ac2f5-9a40-7000-9b2d-6e1f0a3c4b5d';

export const NEW_ITEM = {
  reference_id: 'PLAN-GOLD',
  label: 'Gold membership',
  price: '99.90',
  currency: 'HKD',
  description: 'One month of Gold.',
};
export const NEW_CONFIG = {
  interval_count: 1,
  billing_interval: 'monthly',
  billing_type: 'automated',
  description: 'Monthly, on the day the plan started.',
} as const;

const CREATED = '2026-11-20T02:00:00.000Z';

export function exampleItem(deletedAt: string | null = null): Static<typeof ItemSchema> {
  return {
    id: EXAMPLE_ITEM_ID,
    label: NEW_ITEM.label,
    price: 99.9,
    currency: 'HKD',
    reference_id: NEW_ITEM.reference_id,
    description: NEW_ITEM.description,
    created_at: CREATED,
    updated_at: deletedAt ?? CREATED,
    deleted_at: deletedAt,
  };
}

export function exampleConfig(deletedAt: string | null = null): Static<typeof BillingConfigSchema> {
  return {
    id: EXAMPLE_CONFIG_ID,
    interval_count: 1,
    billing_interval: 'monthly',
    billing_type: 'automated',
    billing_proration_enabled: false,
    description: NEW_CONFIG.description,
    created_at: CREATED,
    updated_at: deletedAt ?? CREATED,
    deleted_at: deletedAt,
  };
}

export const EXAMPLE_PLAN_ID = '019ac2f6-0b13-7000-8c4f-2a7e5d9b1c3e';

export const NEW_PLAN = {
  name: 'Gold membership for Chan Tai Man',
  reference_number: 'GOLD-1001',
  customer_uuid: EXAMPLE_CUSTOMER_UUID,
  payment_retry_count: 3,
  payment_retry_day_period: 3,
  cycles: [
    {
      name: 'Monthly',
      recurring_items: [{ id: EXAMPLE_ITEM_ID, quantity: 1 }],
      recurring_billing_config: EXAMPLE_CONFIG_ID,
      estimated_start_date: '2026-12-01',
      interval_counts: 12,
    },
  ],
};

export const UPDATED = '2026-11-25T02:00:00.000Z';
export const PLAN_CHANGES = { name: 'Gold membership (annual)', payment_retry_count: 2 };
export const CANCEL_NOW = { activate_type: 'immediate', refund_credit: true } as const;
export const NEW_CYCLES = [
  {
    name: 'Loyalty',
    recurring_items: [{ id: EXAMPLE_ITEM_ID, quantity: 1 }],
    recurring_billing_config: EXAMPLE_CONFIG_ID,
    discount_amount: '10.00',
  },
];

/** The example plan cancelled at once: every cycle cancelled, nothing more to run. */
export function cancelledPlan(): Static<typeof PlanSchema> {
  const plan = examplePlan();
  return {
    ...plan,
    state: 'cancelled',
    cycles: plan.cycles.map((cycle) => ({ ...cycle, state: 'cancelled' as const, next_execute_time: null })),
    updated_at: UPDATED,
  };
}

/** The example plan with its settings changed. */
export function changedPlan(): Static<typeof PlanSchema> {
  return { ...examplePlan(), ...PLAN_CHANGES, updated_at: UPDATED };
}

/** The example plan with a cycle added after its first (which ends after 12 periods). */
export function extendedPlan(): Static<typeof PlanSchema> {
  const plan = examplePlan();
  const first = plan.cycles[0]!;
  return {
    ...plan,
    cycles: [
      first,
      {
        ...first,
        id: '019ac2f6-0b13-7002-8e6f-4c9a7f1d3e5a',
        name: 'Loyalty',
        state: 'pending',
        next_execute_time: null,
        estimated_start_date: null,
        interval_counts: null,
        discount_amount: 10,
        amount: 89.9,
      },
    ],
    updated_at: UPDATED,
  };
}

export function examplePlan(): Static<typeof PlanSchema> {
  return {
    id: EXAMPLE_PLAN_ID,
    reference_number: NEW_PLAN.reference_number,
    name: NEW_PLAN.name,
    customer_uuid: EXAMPLE_CUSTOMER_UUID,
    state: 'active',
    currency: 'HKD',
    default_collection_method: 'charge_automatically',
    verify_url: null,
    payment_retry_count: 3,
    payment_retry_day_period: 3,
    cycles: [
      {
        id: '019ac2f6-0b13-7001-9d5e-3b8f6e0c2d4f',
        name: 'Monthly',
        state: 'active',
        billing_count: 0,
        next_execute_time: '2026-11-30T16:00:00.000Z',
        estimated_start_date: '2026-11-30T16:00:00.000Z',
        estimated_end_date: null,
        interval_counts: 12,
        discount_amount: 0,
        amount: 99.9,
        recurring_billing_config: exampleConfig(),
        recurring_items: [{ ...exampleItem(), quantity: 1 }],
      },
    ],
    cancel_at: null,
    created_at: CREATED,
    updated_at: CREATED,
  };
}

/** The plan's first generated order, paid, as operation 3 lists it. */
export function examplePlanOrder(): Static<typeof PlanOrderRecordSchema> {
  return {
    customer: {
      name: EXAMPLE_PROFILE.name,
      email: EXAMPLE_PROFILE.email,
      phone: EXAMPLE_PROFILE.phone,
      reference_number: 'CUSTOMER-1001',
      default_payment_method: 'Credit Card',
      uuid: EXAMPLE_CUSTOMER_UUID,
      default_payment_token: exampleToken('success', true),
    },
    recurring_cycle: {
      recurring_billing_config: exampleConfig(),
      recurring_items: [{ ...exampleItem(), quantity: 1 }],
      discount_amount: 0,
    },
    order: {
      amount: 99.9,
      paid_total: 99.9,
      currency: 'HKD',
      order_number: '202612010000012345',
      reference_number: 'GOLD-1001-1',
      state: 'completed',
      correspondence_state: 'paid',
      auth_code: 'MEQSGC',
      default_payment_token: EXAMPLE_TOKEN.token,
      default_collection_method: 'charge_automatically',
      note: '',
      redirect_url: '',
      timeout: { timer: '', url: '' },
    },
  };
}
