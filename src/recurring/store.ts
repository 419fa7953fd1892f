import type { Insertable, Selectable } from 'kysely';
import { CORRESPONDENCE_STATES, ORDER_STATES } from '../orders/index.js';
import { type Db, isPostgres } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import { merchantOfKeyed } from '../platform/database/planner.js';
import type { Schema } from '../platform/database/schema.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { BILLING_INTERVALS, BILLING_TYPES, CYCLE_STATES, PLAN_STATES } from './schemas.js';
import type {
  RecurringBillingConfigsTable,
  RecurringBillingsTable,
  RecurringCycleItemsTable,
  RecurringCyclesTable,
  RecurringItemsTable,
  RecurringPlansTable,
} from './tables.js';

export type ItemRow = Selectable<RecurringItemsTable>;
export type BillingConfigRow = Selectable<RecurringBillingConfigsTable>;
export type PlanRow = Selectable<RecurringPlansTable>;
export type CycleRow = Selectable<RecurringCyclesTable>;
export type CycleItemRow = Selectable<RecurringCycleItemsTable>;
export type BillingRow = Selectable<RecurringBillingsTable>;

/** The tables listed newest first with the query language. */
type ListedTable = 'recurring_items' | 'recurring_billing_configs' | 'recurring_plans';

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

export async function insertBillingConfig(
  db: Db,
  row: Insertable<RecurringBillingConfigsTable>,
): Promise<BillingConfigRow> {
  return db.insertInto('recurring_billing_configs').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findItem(db: Db, merchantId: string, id: string): Promise<ItemRow | undefined> {
  return db
    .selectFrom('recurring_items')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findBillingConfig(db: Db, merchantId: string, id: string): Promise<BillingConfigRow | undefined> {
  return db
    .selectFrom('recurring_billing_configs')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Sets `deleted_at` once: deleting again keeps the first time. */
export async function markItemDeleted(
  db: Db,
  merchantId: string,
  id: string,
  now: number,
): Promise<ItemRow | undefined> {
  return markDeleted(db, 'recurring_items', merchantId, id, now) as Promise<ItemRow | undefined>;
}

export async function markBillingConfigDeleted(
  db: Db,
  merchantId: string,
  id: string,
  now: number,
): Promise<BillingConfigRow | undefined> {
  return markDeleted(db, 'recurring_billing_configs', merchantId, id, now) as Promise<BillingConfigRow | undefined>;
}

async function markDeleted(
  db: Db,
  table: 'recurring_items' | 'recurring_billing_configs',
  merchantId: string,
  id: string,
  now: number,
): Promise<ItemRow | BillingConfigRow | undefined> {
  await db
    .updateTable(table)
    .set({ deleted_at: now, updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
  return db.selectFrom(table).selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** A page of the merchant's items, newest first, and how many match in all. */
export async function listItems(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: ItemRow[]; total: number }> {
  return listOf(db, 'recurring_items', ITEM_FILTERS, merchantId, conditions, page) as Promise<{
    rows: ItemRow[];
    total: number;
  }>;
}

/** A page of the merchant's billing configs, newest first, and how many match in all. */
export async function listBillingConfigs(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: BillingConfigRow[]; total: number }> {
  return listOf(db, 'recurring_billing_configs', BILLING_CONFIG_FILTERS, merchantId, conditions, page) as Promise<{
    rows: BillingConfigRow[];
    total: number;
  }>;
}

async function listOf(
  db: Db,
  table: ListedTable,
  catalogue: FilterCatalogue,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: Array<ItemRow | BillingConfigRow | PlanRow>; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom(table).where(`${table}.merchant_id`, '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, catalogue, postgres));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(`${table}.created_at`, 'desc')
      .orderBy(`${table}.id`, 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

// ---- plans ----

/** The fields `GET recurring_payments/plan` filters on. */
export const PLAN_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'recurring_plans.id' },
  reference_number: { type: 'text', column: 'recurring_plans.reference_number' },
  name: { type: 'text', column: 'recurring_plans.name' },
  state: { type: 'text', column: 'recurring_plans.state', values: PLAN_STATES },
  currency: { type: 'text', column: 'recurring_plans.currency' },
  customer_uuid: { type: 'text', column: 'recurring_plans.customer_id' },
  created_at: { type: 'time', column: 'recurring_plans.created_at' },
  updated_at: { type: 'time', column: 'recurring_plans.updated_at' },
};

export async function findItems(db: Db, merchantId: string, ids: string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('recurring_items')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
}

export async function findBillingConfigs(db: Db, merchantId: string, ids: string[]): Promise<BillingConfigRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('recurring_billing_configs')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
}

export async function findPlanByReference(
  db: Db,
  merchantId: string,
  referenceNumber: string,
): Promise<PlanRow | undefined> {
  return db
    .selectFrom('recurring_plans')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference_number', '=', referenceNumber)
    .executeTakeFirst();
}

export async function findPlan(db: Db, merchantId: string, id: string, lock = false): Promise<PlanRow | undefined> {
  const query = db.selectFrom('recurring_plans').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** Plans by id, in id order; locked, they are locked in that order (two processes locking sets never deadlock). */
export async function findPlans(db: Db, merchantId: string, ids: string[], lock = false): Promise<PlanRow[]> {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom('recurring_plans')
    .selectAll()
    .where(merchantOfKeyed(db), '=', merchantId)
    .where('id', 'in', ids)
    .orderBy('id');
  return (lock ? forUpdate(db, query) : query).execute();
}

export async function insertPlan(db: Db, plan: PlanRow, cycles: CycleRow[], items: CycleItemRow[]): Promise<void> {
  await db.insertInto('recurring_plans').values(plan).execute();
  await db.insertInto('recurring_cycles').values(cycles).execute();
  await db.insertInto('recurring_cycle_items').values(items).execute();
}

/** Cycles added to a plan after it was made. */
export async function insertCycles(db: Db, cycles: CycleRow[], items: CycleItemRow[]): Promise<void> {
  await db.insertInto('recurring_cycles').values(cycles).execute();
  await db.insertInto('recurring_cycle_items').values(items).execute();
}

export async function updatePlan(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Omit<PlanRow, 'id' | 'merchant_id'>>,
): Promise<void> {
  await db
    .updateTable('recurring_plans')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

export async function updateCycle(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Omit<CycleRow, 'id' | 'merchant_id' | 'plan_id'>>,
): Promise<void> {
  await db
    .updateTable('recurring_cycles')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

export async function cyclesOfPlans(db: Db, merchantId: string, planIds: string[]): Promise<CycleRow[]> {
  if (planIds.length === 0) return [];
  return db
    .selectFrom('recurring_cycles')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('plan_id', 'in', planIds)
    .orderBy('plan_id')
    .orderBy('position')
    .execute();
}

export async function itemsOfCycles(db: Db, merchantId: string, cycleIds: string[]): Promise<CycleItemRow[]> {
  if (cycleIds.length === 0) return [];
  return db
    .selectFrom('recurring_cycle_items')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('cycle_id', 'in', cycleIds)
    .orderBy('cycle_id')
    .orderBy('position')
    .execute();
}

/** A page of the merchant's plans, newest first, and how many match in all. */
export async function listPlans(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: PlanRow[]; total: number }> {
  return listOf(db, 'recurring_plans', PLAN_FILTERS, merchantId, conditions, page) as Promise<{
    rows: PlanRow[];
    total: number;
  }>;
}

/** The customer's plans waiting for a token, locked: a binding starts each once. */
export async function plansAwaitingToken(db: Db, merchantId: string, customerId: string): Promise<PlanRow[]> {
  return forUpdate(
    db,
    db
      .selectFrom('recurring_plans')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('customer_id', '=', customerId)
      .where('state', '=', 'awaiting_token')
      .orderBy('created_at'),
  ).execute();
}

/** Plans of the merchant with work due by `now`, the most overdue first. */
export async function duePlanIds(db: Db, merchantId: string, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('recurring_plans')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('next_due_at', 'is not', null)
    .where('next_due_at', '<=', now)
    .orderBy('next_due_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

// ---- billings ----

export async function billingsOfPlans(db: Db, merchantId: string, planIds: string[]): Promise<BillingRow[]> {
  if (planIds.length === 0) return [];
  return db
    .selectFrom('recurring_billings')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('plan_id', 'in', planIds)
    .orderBy('billing_at')
    .orderBy('sequence')
    .execute();
}

export async function insertBilling(db: Db, row: BillingRow): Promise<void> {
  await db.insertInto('recurring_billings').values(row).execute();
}

export async function updateBilling(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Omit<BillingRow, 'id' | 'merchant_id'>>,
): Promise<void> {
  await db
    .updateTable('recurring_billings')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

// ---- the orders plans generated (operation 3) ----
// The one place recurring reads the orders and customers tables: a page of generated orders is filtered on the
// order's, the customer's and the plan's fields together, which only one query over the three can do and page.

/** The fields `GET recurring_payments/orders/list` filters on, with dots as the interface writes them. */
export const PLAN_ORDER_FILTERS: FilterCatalogue = {
  'order.number': { type: 'text', column: 'orders.number' },
  'order.order_number': { type: 'text', column: 'orders.number' },
  'order.reference_number': { type: 'text', column: 'orders.reference_number' },
  'order.state': { type: 'text', column: 'orders.state', values: ORDER_STATES },
  'order.correspondence_state': { type: 'text', column: 'orders.correspondence_state', values: CORRESPONDENCE_STATES },
  'order.currency': { type: 'text', column: 'orders.currency' },
  'order.amount': { type: 'money', column: 'orders.initial_total', exponentColumn: 'orders.currency_exponent' },
  'order.paid_total': { type: 'money', column: 'orders.paid_total', exponentColumn: 'orders.currency_exponent' },
  'order.created_at': { type: 'time', column: 'orders.created_at' },
  'customer.uuid': { type: 'text', column: 'customers.id' },
  'customer.reference_number': { type: 'text', column: 'customers.reference_number' },
  'customer.name': { type: 'text', column: 'customers.name' },
  'customer.email': { type: 'text', column: 'customers.email' },
  'customer.phone': { type: 'text', column: 'customers.phone' },
  'plan.id': { type: 'text', column: 'recurring_plans.id' },
  'plan.reference_number': { type: 'text', column: 'recurring_plans.reference_number' },
  'plan.name': { type: 'text', column: 'recurring_plans.name' },
  'plan.state': { type: 'text', column: 'recurring_plans.state', values: PLAN_STATES },
  'cycle.id': { type: 'text', column: 'recurring_billings.cycle_id' },
  'cycle.state': { type: 'text', column: 'recurring_cycles.state', values: CYCLE_STATES },
};

export interface PlanOrderRow {
  billing: BillingRow;
  order: Selectable<Schema['orders']>;
}

/** A page of the orders the merchant's plans generated, newest first, and how many match in all. */
export async function listPlanOrders(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: PlanOrderRow[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db
    .selectFrom('recurring_billings')
    .innerJoin('orders', (join) =>
      join
        .onRef('orders.id', '=', 'recurring_billings.order_id')
        .onRef('orders.merchant_id', '=', 'recurring_billings.merchant_id'),
    )
    .innerJoin('recurring_plans', 'recurring_plans.id', 'recurring_billings.plan_id')
    .innerJoin('recurring_cycles', 'recurring_cycles.id', 'recurring_billings.cycle_id')
    .innerJoin('customers', 'customers.id', 'recurring_plans.customer_id')
    .where('recurring_billings.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, PLAN_ORDER_FILTERS, postgres));
  const [billingIds, count] = await Promise.all([
    query
      .select(['recurring_billings.id as id'])
      .orderBy('orders.created_at', 'desc')
      .orderBy('orders.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const ids = billingIds.map((row) => row.id);
  if (ids.length === 0) return { rows: [], total: Number(count.total) };
  const billings = await db
    .selectFrom('recurring_billings')
    .selectAll()
    .where(merchantOfKeyed(db), '=', merchantId)
    .where('id', 'in', ids)
    .execute();
  const orders = await db
    .selectFrom('orders')
    .selectAll()
    .where(merchantOfKeyed(db), '=', merchantId)
    .where(
      'id',
      'in',
      billings.map((row) => row.order_id!),
    )
    .execute();
  const billingOf = new Map(billings.map((row) => [row.id, row]));
  const orderOf = new Map(orders.map((row) => [row.id, row]));
  const rows = ids.map((id) => ({ billing: billingOf.get(id)!, order: orderOf.get(billingOf.get(id)!.order_id!)! }));
  return { rows, total: Number(count.total) };
}
