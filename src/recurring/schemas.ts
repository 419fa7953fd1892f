import Type from 'typebox';
import { AmountInput, Nullable, StringEnum } from '../platform/schema.js';

export const BILLING_INTERVALS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export const BILLING_TYPES = ['automated', 'customized'] as const;

const text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });
const requiredText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const optionalText = (maxLength: number, description?: string) => Type.Optional(Nullable(text(maxLength, description)));

// ---- requests ----

export const CreateItemBody = Type.Object({
  item: Type.Object({
    reference_id: optionalText(255, "The merchant's own id for the item; not required to be unique."),
    label: requiredText(255, 'What the customer is charged for, shown on every generated order.'),
    price: AmountInput({ description: "Price of one unit, in the currency's decimals (\"9.90\" or 9.9; \"100\" in JPY). Zero is allowed." }),
    currency: requiredText(3, 'ISO 4217 code. All items of one plan share one currency.'),
    description: optionalText(1000),
  }),
});

export const CreateBillingConfigBody = Type.Object({
  config: Type.Object({
    interval_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Bills every interval_count intervals; 1 when omitted.' })),
    billing_interval: StringEnum(BILLING_INTERVALS),
    billing_type: StringEnum(BILLING_TYPES, {
      description: '`automated`: billed at the cycle start, then every interval from it (the anchor day is kept). `customized`: billed on billing_day_of_month (and billing_month for yearly); monthly and yearly only.',
    }),
    billing_month: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 12, description: 'Customized yearly configs only.' }))),
    billing_day_of_month: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 31, description: 'Customized configs only; clamped to the last day of shorter months.' }))),
    billing_proration_enabled: Type.Optional(Type.Boolean({ description: 'Customized configs: charge the days before the first billing day at the start (prorated) instead of giving them free. False when omitted.' })),
    description: optionalText(1000),
  }),
});

export const RecordParams = Type.Object({ id: Type.String({ description: 'The id paygate gave the record.' }) });

export const ListQuery = Type.Object({
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
});

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
