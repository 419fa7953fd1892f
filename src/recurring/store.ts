import type { Insertable, Selectable } from 'kysely';
import { isPostgres, type Db } from '../platform/database/database.js';
import type { RecurringBillingConfigsTable, RecurringItemsTable } from '../platform/database/schema.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { BILLING_INTERVALS, BILLING_TYPES } from './schemas.js';

export type ItemRow = Selectable<RecurringItemsTable>;
export type BillingConfigRow = Selectable<RecurringBillingConfigsTable>;

type CatalogueTable = 'recurring_items' | 'recurring_billing_configs';

/** The fields `GET recurring_payments/items` filters on. */
export const ITEM_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'recurring_items.id' },
  reference_id: { type: 'text', column: 'recurring_items.reference_id' },
  label: { type: 'text', column: 'recurring_items.label' },
  price: { type: 'money', column: 'recurring_items.price', exponentColumn: 'recurring_items.currency_exponent' },
  currency: { type: 'text', column: 'recurring_items.currency' },
  description: { type: 'text', column: 'recurring_items.description' },
  created_at: { type: 'time', column: 'recurring_items.created_at' },
  updated_at: { type: 'time', column: 'recurring_items.updated_at' },
  deleted_at: { type: 'time', column: 'recurring_items.deleted_at' },
};

/** The fields `GET recurring_payments/billing_configs` filters on. */
export const BILLING_CONFIG_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'recurring_billing_configs.id' },
  interval_count: { type: 'integer', column: 'recurring_billing_configs.interval_count' },
  billing_interval: { type: 'text', column: 'recurring_billing_configs.billing_interval', values: BILLING_INTERVALS },
  billing_type: { type: 'text', column: 'recurring_billing_configs.billing_type', values: BILLING_TYPES },
  billing_month: { type: 'integer', column: 'recurring_billing_configs.billing_month' },
  billing_day_of_month: { type: 'integer', column: 'recurring_billing_configs.billing_day_of_month' },
  billing_proration_enabled: { type: 'boolean', column: 'recurring_billing_configs.billing_proration_enabled' },
  description: { type: 'text', column: 'recurring_billing_configs.description' },
  created_at: { type: 'time', column: 'recurring_billing_configs.created_at' },
  updated_at: { type: 'time', column: 'recurring_billing_configs.updated_at' },
  deleted_at: { type: 'time', column: 'recurring_billing_configs.deleted_at' },
};

export async function insertItem(db: Db, row: Insertable<RecurringItemsTable>): Promise<ItemRow> {
  return db.insertInto('recurring_items').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertBillingConfig(db: Db, row: Insertable<RecurringBillingConfigsTable>): Promise<BillingConfigRow> {
  return db.insertInto('recurring_billing_configs').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findItem(db: Db, merchantId: string, id: string): Promise<ItemRow | undefined> {
  return db.selectFrom('recurring_items').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

export async function findBillingConfig(db: Db, merchantId: string, id: string): Promise<BillingConfigRow | undefined> {
  return db.selectFrom('recurring_billing_configs').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** Sets `deleted_at` once: deleting again keeps the first time. */
export async function markItemDeleted(db: Db, merchantId: string, id: string, now: number): Promise<ItemRow | undefined> {
  return markDeleted(db, 'recurring_items', merchantId, id, now) as Promise<ItemRow | undefined>;
}

export async function markBillingConfigDeleted(db: Db, merchantId: string, id: string, now: number): Promise<BillingConfigRow | undefined> {
  return markDeleted(db, 'recurring_billing_configs', merchantId, id, now) as Promise<BillingConfigRow | undefined>;
}

async function markDeleted(db: Db, table: CatalogueTable, merchantId: string, id: string, now: number): Promise<ItemRow | BillingConfigRow | undefined> {
  await db.updateTable(table).set({ deleted_at: now, updated_at: now })
    .where('merchant_id', '=', merchantId).where('id', '=', id).where('deleted_at', 'is', null).execute();
  return db.selectFrom(table).selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** A page of the merchant's items, newest first, and how many match in all. */
export async function listItems(db: Db, merchantId: string, conditions: Condition[], page: Page): Promise<{ rows: ItemRow[]; total: number }> {
  return listOf(db, 'recurring_items', ITEM_FILTERS, merchantId, conditions, page) as Promise<{ rows: ItemRow[]; total: number }>;
}

/** A page of the merchant's billing configs, newest first, and how many match in all. */
export async function listBillingConfigs(db: Db, merchantId: string, conditions: Condition[], page: Page): Promise<{ rows: BillingConfigRow[]; total: number }> {
  return listOf(db, 'recurring_billing_configs', BILLING_CONFIG_FILTERS, merchantId, conditions, page) as Promise<{ rows: BillingConfigRow[]; total: number }>;
}

async function listOf(
  db: Db, table: CatalogueTable, catalogue: FilterCatalogue, merchantId: string, conditions: Condition[], page: Page,
): Promise<{ rows: Array<ItemRow | BillingConfigRow>; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom(table).where(`${table}.merchant_id`, '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, catalogue, postgres));
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy(`${table}.created_at`, 'desc').orderBy(`${table}.id`, 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
