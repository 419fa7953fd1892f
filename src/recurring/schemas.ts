import Type from 'typebox';
import { PaymentTokenSchema } from '../customers/index.js';
import { AmountInput, Nullable, StringEnum } from '../platform/schema.js';

export const BILLING_INTERVALS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export const BILLING_TYPES = ['automated', 'customized'] as const;

const text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const requiredText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const optionalText = (maxLength: number, description?: string) => Type.Optional(Nullable(text(maxLength, description)));

// ---- requests ----

export const CreateItemBody = Type.Object({
  item: Type.Object({
    reference_id: optionalText(255, "The merchant's own id for the item; not required to be unique."),
    label: requiredText(255, 'What the customer is charged for, shown on every generated order.'),
    price: AmountInput({
      description: 'Price of one unit, in the currency\'s decimals ("9.90" or 9.9; "100" in JPY). Zero is allowed.',
    }),
    currency: requiredText(3, 'ISO 4217 code. All items of one plan share one currency.'),
    description: optionalText(1000),
  }),
});

export const CreateBillingConfigBody = Type.Object({
  config: Type.Object({
    interval_count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Bills every interval_count intervals; 1 when omitted.' }),
    ),
    billing_interval: StringEnum(BILLING_INTERVALS),
    billing_type: StringEnum(BILLING_TYPES, {
      description:
        '`automated`: billed at the cycle start, then every interval from it (the anchor day is kept). `customized`: billed on billing_day_of_month (and billing_month for yearly); monthly and yearly only.',
    }),
    billing_month: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 12, description: 'Customized yearly configs only.' })),
    ),
    billing_day_of_month: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 31,
          description: 'Customized configs only; clamped to the last day of shorter months.',
        }),
      ),
    ),
    billing_proration_enabled: Type.Optional(
      Type.Boolean({
        description:
          'Customized configs: charge the days before the first billing day at the start (prorated) instead of giving them free. False when omitted.',
      }),
    ),
    description: optionalText(1000),
  }),
});

export const RecordParams = Type.Object({ id: Type.String({ description: 'The id paygate gave the record.' }) });

// ---- replies (the record shapes of interface.md) ----

export const ItemSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  price: Type.Number({ description: "In the currency's units, exact to its decimals." }),
  currency: Type.String(),
  reference_id: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  deleted_at: Nullable(Type.String()),
});

export const BillingConfigSchema = Type.Object({
  id: Type.String(),
  interval_count: Type.Integer(),
  billing_interval: StringEnum(BILLING_INTERVALS),
  billing_type: StringEnum(BILLING_TYPES),
  billing_month: Type.Optional(Type.Integer({ description: 'Present on customized yearly configs.' })),
  billing_day_of_month: Type.Optional(Type.Integer({ description: 'Present on customized configs.' })),
  billing_proration_enabled: Type.Boolean(),
  description: Type.Optional(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  deleted_at: Nullable(Type.String()),
});

export const ItemData = Type.Object({ item: ItemSchema });
export const BillingConfigData = Type.Object({ config: BillingConfigSchema });
export const ItemListData = Type.Object({
  items: Type.Array(ItemSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Items matching the filters, in all.' }),
});
export const BillingConfigListData = Type.Object({
  billing_configs: Type.Array(BillingConfigSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Billing configs matching the filters, in all.' }),
});

// ---- plans ----

export const PLAN_STATES = ['awaiting_token', 'active', 'completed', 'cancelled', 'uncollectible'] as const;
export const CYCLE_STATES = ['pending', 'active', 'completed', 'cancelled', 'uncollectible'] as const;

const Instant = (description: string) =>
  Type.String({
    maxLength: 40,
    description: `${description} An RFC 3339 time with offset, or a date (YYYY-MM-DD: midnight in the merchant's time zone).`,
  });

const CycleInput = Type.Object({
  name: optionalText(255),
  description: optionalText(1000),
  recurring_items: Type.Array(
    Type.Object({
      id: Type.String({ maxLength: 64, description: 'A recurring item (not deleted) of the merchant.' }),
      quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: '1 when omitted.' })),
    }),
    { minItems: 1, maxItems: 50 },
  ),
  recurring_billing_config: Type.String({
    maxLength: 64,
    description: 'A billing config (not deleted) of the merchant.',
  }),
  estimated_start_date: Type.Optional(
    Nullable(Instant('First cycle only: when billing starts; now when omitted or past.')),
  ),
  estimated_end_date: Type.Optional(Nullable(Instant('No billing at or after this time; the next cycle starts then.'))),
  interval_counts: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'How many periods the cycle bills; the next cycle starts after the last.',
      }),
    ),
  ),
  discount_amount: Type.Optional(
    AmountInput({ description: "Taken off every billing of the cycle, in the currency's decimals; 0 when omitted." }),
  ),
});

export const CreatePlanBody = Type.Object({
  plan: Type.Object({
    name: requiredText(255),
    reference_number: requiredText(200, 'Unique per merchant; generated orders are numbered reference_number-1, -2, …'),
    customer_uuid: requiredText(64),
    default_collection_method: Type.Optional(StringEnum(['charge_automatically'] as const)),
    default_payment_token: optionalText(
      128,
      "The token to charge; the customer's default token (as it is at each billing) when omitted.",
    ),
    payment_retry_count: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description: 'Retries of a failed charge before the cycle is uncollectible; 3 when omitted.',
      }),
    ),
    payment_retry_day_period: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 30, description: 'Days between retries; 1 when omitted.' }),
    ),
    note: optionalText(254, 'Copied to every generated order.'),
    redirect_url: optionalText(1000, 'Copied to every generated order.'),
    description: optionalText(1000),
    cycles: Type.Array(CycleInput, { minItems: 1, maxItems: 20 }),
  }),
});

export const CANCEL_ACTIVATE_TYPES = ['immediate', 'next_billing_date'] as const;

export const CancelPlanBody = Type.Object({
  activate_type: StringEnum(CANCEL_ACTIVATE_TYPES, {
    description:
      '`immediate`: the plan stops now. `next_billing_date`: it stops at its next billing time, which generates no order; undone by recover until then.',
  }),
  refund_credit: Type.Optional(
    Type.Boolean({
      description:
        'Immediate only: refund the unused whole days of the current paid period from its order (docs/recurring.md). False when omitted.',
    }),
  ),
});

export const UpdatePlanBody = Type.Object({
  plan: Type.Object({
    name: Type.Optional(requiredText(255)),
    note: optionalText(254, 'Copied to the orders generated from now on; null clears it.'),
    default_payment_token: optionalText(
      128,
      "A chargeable token of the plan's customer; null clears it, so each billing charges the customer's default token.",
    ),
    payment_retry_count: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10, description: 'For charges that fail from now on.' }),
    ),
    payment_retry_day_period: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 30, description: 'For charges that fail from now on.' }),
    ),
  }),
});

export const AddCyclesBody = Type.Object({
  cycles: Type.Array(Type.Omit(CycleInput, ['estimated_start_date']), {
    minItems: 1,
    maxItems: 20,
    description: 'Appended after the last cycle, in order; each starts when the one before ends.',
  }),
});

const PlanItemSchema = Type.Object({ ...ItemSchema.properties, quantity: Type.Integer() });

export const CycleSchema = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  state: StringEnum(CYCLE_STATES),
  billing_count: Type.Integer({ description: 'Billings of the cycle paid so far (free ones included).' }),
  next_execute_time: Nullable(Type.String({ description: 'The next billing of the cycle; null when none is coming.' })),
  estimated_start_date: Nullable(
    Type.String({ description: 'When the cycle starts (or started); a later cycle reads the end of the one before.' }),
  ),
  estimated_end_date: Nullable(Type.String()),
  interval_counts: Nullable(Type.Integer()),
  discount_amount: Type.Number(),
  amount: Type.Number({ description: 'What one full period of the cycle costs: its items less its discount.' }),
  recurring_billing_config: BillingConfigSchema,
  recurring_items: Type.Array(PlanItemSchema),
});

export const PlanSchema = Type.Object({
  id: Type.String(),
  reference_number: Type.String(),
  name: Type.String(),
  customer_uuid: Type.String(),
  state: StringEnum(PLAN_STATES),
  currency: Type.String(),
  default_collection_method: Type.String(),
  default_payment_token: Type.Optional(Type.String()),
  verify_url: Nullable(
    Type.String({
      description:
        'While the plan awaits a token: the hosted page where the customer binds a card; billing starts when one binds.',
    }),
  ),
  payment_retry_count: Type.Integer(),
  payment_retry_day_period: Type.Integer(),
  note: Type.Optional(Type.String()),
  redirect_url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  cycles: Type.Array(CycleSchema),
  cancel_at: Nullable(
    Type.String({
      description: 'A pending next_billing_date cancellation: when the plan stops; null when none is pending.',
    }),
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const PlanData = Type.Object({ plan: PlanSchema });
export const PlanListData = Type.Object({
  plans: Type.Array(PlanSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Plans matching the filters, in all.' }),
});

// ---- the orders plans generated (operation 3) ----

export const PlanOrderRecordSchema = Type.Object({
  customer: Type.Object({
    name: Type.String(),
    email: Type.String({ description: 'Empty when unknown.' }),
    phone: Type.String(),
    reference_number: Type.String(),
    default_payment_method: Type.String({ description: 'Empty when the customer has none.' }),
    uuid: Type.String(),
    default_payment_token: Type.Optional(PaymentTokenSchema),
  }),
  recurring_cycle: Type.Object({
    recurring_billing_config: BillingConfigSchema,
    recurring_items: Type.Array(PlanItemSchema),
    discount_amount: Type.Number(),
  }),
  order: Type.Object({
    amount: Type.Number(),
    paid_total: Type.Number(),
    currency: Type.String(),
    order_number: Type.String(),
    reference_number: Type.String(),
    state: Type.String(),
    correspondence_state: Type.String(),
    auth_code: Type.String({ description: 'Of the successful charge; empty while unpaid.' }),
    default_payment_token: Type.String({
      description: "The token the plan charges: its own, or the customer's default token now; empty when none.",
    }),
    default_collection_method: Type.String(),
    note: Type.String(),
    redirect_url: Type.String(),
    timeout: Type.Object({
      timer: Type.String({
        description: 'When a failed charge of this order is retried (RFC 3339); empty when none is coming.',
      }),
      url: Type.String({ description: 'Where the customer can bind a card for the plan; empty when none is needed.' }),
    }),
  }),
});

export const PlanOrderListData = Type.Array(PlanOrderRecordSchema);

export const CheckPlanOrderBody = Type.Object({
  customer_uuid: Type.Optional(
    Type.String({ maxLength: 64, description: 'When given, the order must be of this customer.' }),
  ),
  order: Type.Object({ number: Type.String({ minLength: 1, maxLength: 64 }) }),
});
