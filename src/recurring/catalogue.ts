import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { readCurrency, readMoney } from '../platform/money/money.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { assertBillingRule, type BillingInterval, type BillingType, billingRuleOf } from './calendar.js';
import { RECURRING_ERRORS } from './errors.js';
import type { CreateBillingConfigBody, CreateItemBody } from './schemas.js';
import {
  BILLING_CONFIG_FILTERS,
  type BillingConfigRow,
  findBillingConfig,
  findItem,
  ITEM_FILTERS,
  type ItemRow,
  insertBillingConfig,
  insertItem,
  listBillingConfigs,
  listItems,
  markBillingConfigDeleted,
  markItemDeleted,
} from './store.js';

export type { BillingConfigRow, ItemRow };
export type ItemInput = Static<typeof CreateItemBody>['item'];
export type BillingConfigInput = Static<typeof CreateBillingConfigBody>['config'];

// Items and billing configs: the reusable parts of plans. Neither changes once made (a plan bills what it was
// made of); DELETE only stops new plans from using one.

export async function createItem(ctx: Context, input: ItemInput): Promise<ItemRow> {
  const currency = readCurrency(input.currency, 'item.currency');
  const price = readMoney(input.price, currency, 'item.price', { allowZero: true });
  return inTransaction(
    ctx,
    async (tx) => {
      const now = tx.clock.now().getTime();
      return insertItem(tx.db, {
        id: ctx.ids.sortable(now),
        merchant_id: tx.merchant.id,
        reference_id: input.reference_id ?? null,
        label: input.label,
        price: price.minor,
        currency: currency.code,
        currency_exponent: currency.exponent,
        description: input.description ?? null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
    },
    { completesRequest: true },
  );
}

export async function createBillingConfig(ctx: Context, input: BillingConfigInput): Promise<BillingConfigRow> {
  const config = checkedBillingConfig(input);
  return inTransaction(
    ctx,
    async (tx) => {
      const now = tx.clock.now().getTime();
      return insertBillingConfig(tx.db, {
        id: ctx.ids.sortable(now),
        merchant_id: tx.merchant.id,
        interval_count: config.interval_count,
        billing_interval: config.billing_interval,
        billing_type: config.billing_type,
        billing_month: config.billing_month,
        billing_day_of_month: config.billing_day_of_month,
        billing_proration_enabled: config.billing_proration_enabled ? 1 : 0,
        description: input.description ?? null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
    },
    { completesRequest: true },
  );
}

interface CheckedConfig {
  interval_count: number;
  billing_interval: BillingInterval;
  billing_type: BillingType;
  billing_month: number | null;
  billing_day_of_month: number | null;
  billing_proration_enabled: boolean;
}

/** The rules of a billing config that tie its fields together, each refused naming the field it is about. */
function checkedBillingConfig(input: BillingConfigInput): CheckedConfig {
  const refuse = (message: string): never => {
    throw new AppError(PLATFORM_ERRORS.validationFailed, message);
  };
  const config: CheckedConfig = {
    interval_count: input.interval_count ?? 1,
    billing_interval: input.billing_interval,
    billing_type: input.billing_type,
    billing_month: input.billing_month ?? null,
    billing_day_of_month: input.billing_day_of_month ?? null,
    billing_proration_enabled: input.billing_proration_enabled ?? false,
  };
  if (config.billing_type === 'customized') {
    if (config.billing_interval !== 'monthly' && config.billing_interval !== 'yearly') {
      refuse(`config.billing_type customized bills monthly or yearly, not ${config.billing_interval}.`);
    }
    if (config.billing_day_of_month === null)
      refuse('config.billing_day_of_month is required for a customized config.');
    if (config.billing_interval === 'yearly' && config.billing_month === null)
      refuse('config.billing_month is required for a customized yearly config.');
    if (config.billing_interval === 'monthly' && config.billing_month !== null)
      refuse('config.billing_month applies to customized yearly configs only.');
  } else {
    if (config.billing_day_of_month !== null)
      refuse(
        'config.billing_day_of_month applies to customized configs only: an automated config bills on its cycle start date.',
      );
    if (config.billing_month !== null) refuse('config.billing_month applies to customized yearly configs only.');
  }
  // The calendar's own check: what passed the rules above must be a rule it can bill by.
  assertBillingRule(billingRuleOf(config));
  return config;
}

export async function getItem(ctx: Context, id: string): Promise<ItemRow> {
  const row = isUuid(id) ? await findItem(ctx.db, ctx.merchant.id, id) : undefined;
  if (!row) throw new AppError(RECURRING_ERRORS.recurringItemNotFound);
  return row;
}

export async function getBillingConfig(ctx: Context, id: string): Promise<BillingConfigRow> {
  const row = isUuid(id) ? await findBillingConfig(ctx.db, ctx.merchant.id, id) : undefined;
  if (!row) throw new AppError(RECURRING_ERRORS.billingConfigNotFound);
  return row;
}

export async function deleteItem(ctx: Context, id: string): Promise<ItemRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const row = isUuid(id) ? await markItemDeleted(tx.db, tx.merchant.id, id, tx.clock.now().getTime()) : undefined;
      if (!row) throw new AppError(RECURRING_ERRORS.recurringItemNotFound);
      return row;
    },
    { completesRequest: true },
  );
}

export async function deleteBillingConfig(ctx: Context, id: string): Promise<BillingConfigRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const row = isUuid(id)
        ? await markBillingConfigDeleted(tx.db, tx.merchant.id, id, tx.clock.now().getTime())
        : undefined;
      if (!row) throw new AppError(RECURRING_ERRORS.billingConfigNotFound);
      return row;
    },
    { completesRequest: true },
  );
}

export async function listMerchantItems(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ rows: ItemRow[]; total: number }> {
  return listItems(ctx.db, ctx.merchant.id, parseFilters(query, ITEM_FILTERS), page);
}

export async function listMerchantBillingConfigs(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ rows: BillingConfigRow[]; total: number }> {
  return listBillingConfigs(ctx.db, ctx.merchant.id, parseFilters(query, BILLING_CONFIG_FILTERS), page);
}
