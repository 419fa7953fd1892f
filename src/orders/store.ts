import type { QueryResult, Selectable } from 'kysely';
import { type Db, isPostgres, preparedInsert, preparedPatch, preparedQuery } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import {
  CORRESPONDENCE_STATES,
  type CorrespondenceState,
  ORDER_STATES,
  type OrderLineItemsTable,
  type OrderState,
  type OrdersTable,
} from './tables.js';

export type OrderRow = Selectable<OrdersTable>;
export type LineItemRow = Selectable<OrderLineItemsTable>;

const insertOrderRow = preparedInsert('orders', {
  id: true,
  merchant_id: true,
  number: true,
  reference_number: true,
  source: true,
  type: true,
  currency: true,
  currency_exponent: true,
  initial_total: true,
  initial_tips: true,
  subtotal: true,
  paid_total: true,
  state: true,
  correspondence_state: true,
  due_date: true,
  note: true,
  notify_url: true,
  return_url: true,
  customer_id: true,
  content_hash: true,
  app_id: true,
  voided_at: true,
  created_at: true,
  updated_at: true,
});

export async function insertOrder(db: Db, order: OrderRow, items: LineItemRow[]): Promise<void> {
  await insertOrderRow(db, order);
  if (items.length > 0) await db.insertInto('order_line_items').values(items).execute();
}

/** An order by its number and/or reference: both, when given, must name it. */
export async function findOrder(
  db: Db,
  merchantId: string,
  by: { id?: string; number?: string; referenceNumber?: string },
  lock = false,
): Promise<OrderRow | undefined> {
  if (by.id === undefined && by.number === undefined && by.referenceNumber === undefined) {
    // Without a criterion this would be "any order of the merchant": never what a caller means.
    throw new Error('findOrder needs an id, a number or a reference number');
  }
  const criteria = {
    id: by.id !== undefined,
    number: by.number !== undefined,
    referenceNumber: by.referenceNumber !== undefined,
  };
  const shape = `${criteria.id}:${criteria.number}:${criteria.referenceNumber}:${lock}`;
  let query = orderQueries.get(shape);
  if (!query) {
    query = preparedQuery((db, p: OrderCriteria) => {
      let found = db.selectFrom('orders').selectAll().where('merchant_id', '=', p.merchantId);
      if (criteria.id) found = found.where('id', '=', p.id!);
      if (criteria.number) found = found.where('number', '=', p.number!);
      if (criteria.referenceNumber) found = found.where('reference_number', '=', p.referenceNumber!);
      return lock ? forUpdate(db, found) : found;
    });
    orderQueries.set(shape, query);
  }
  return (await query(db, { merchantId, ...by })).rows[0];
}

type OrderCriteria = { merchantId: string; id?: string; number?: string; referenceNumber?: string };
/** One prepared query per combination of criteria and locking (at most sixteen). */
const orderQueries = new Map<string, (db: Db, params: OrderCriteria) => Promise<QueryResult<OrderRow>>>();

/** The order a transaction belongs to, locked: read the transaction after this, so it cannot change meanwhile. */
export async function lockOrderOfTransaction(
  db: Db,
  merchantId: string,
  transactionId: string,
): Promise<OrderRow | undefined> {
  return (await lockedOrderOfTransaction(db, { merchantId, transactionId })).rows[0];
}

/** The order a transaction belongs to, for reading. */
export async function orderOfTransaction(
  db: Db,
  merchantId: string,
  transactionId: string,
): Promise<OrderRow | undefined> {
  return (await readOrderOfTransaction(db, { merchantId, transactionId })).rows[0];
}

function orderOfTransactionQuery(db: Db, p: { merchantId: string; transactionId: string }) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('id', '=', (eb) =>
      eb
        .selectFrom('transactions')
        .select('order_id')
        .where('merchant_id', '=', p.merchantId)
        .where('id', '=', p.transactionId),
    );
}

const readOrderOfTransaction = preparedQuery(orderOfTransactionQuery);
const lockedOrderOfTransaction = preparedQuery((db, p: { merchantId: string; transactionId: string }) =>
  forUpdate(db, orderOfTransactionQuery(db, p)),
);

/**
 * Stores an order's totals and states, recomputed from its transactions: the only columns of an order that change
 * after it is made. Answers the order as it now stands, from the row given (read in the same transaction).
 */
export async function updateOrder(
  db: Db,
  merchantId: string,
  order: OrderRow,
  patch: {
    paid_total: number;
    state: OrderState;
    correspondence_state: CorrespondenceState;
    updated_at: number;
    voided_at?: number;
  },
): Promise<OrderRow> {
  const { numAffectedRows } = await patchOrder(db, patch, { merchantId, id: order.id });
  if (Number(numAffectedRows ?? 0) !== 1) throw new Error(`no order ${order.id} to update`);
  return { ...order, ...patch };
}

const patchOrder = preparedPatch((db, set: Partial<OrderRow>, p: { merchantId: string; id: string }) =>
  db.updateTable('orders').set(set).where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);

/** One order's line items, in order: compiled once, for every change of an order that ends in its view. */
export async function lineItemsOfOrder(db: Db, merchantId: string, orderId: string): Promise<LineItemRow[]> {
  return (await itemsOfOrder(db, { merchantId, orderId })).rows;
}

const itemsOfOrder = preparedQuery((db, p: { merchantId: string; orderId: string }) =>
  db
    .selectFrom('order_line_items')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('order_id', '=', p.orderId)
    .orderBy('position'),
);

export async function lineItemsOfOrders(db: Db, merchantId: string, orderIds: string[]): Promise<LineItemRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_line_items')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

/** How many line items each order has (orders without any are absent). */
export async function lineItemCounts(db: Db, merchantId: string, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('order_line_items')
    .select((eb) => ['order_id', eb.fn.countAll<number | string>().as('count')])
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', orderIds)
    .groupBy('order_id')
    .execute();
  return new Map(rows.map((row) => [row.order_id, Number(row.count)]));
}

/** The fields `GET orders/list` filters on, and where they live. */
export const ORDER_FILTERS: FilterCatalogue = {
  number: { type: 'text', column: 'orders.number' },
  reference_number: { type: 'text', column: 'orders.reference_number' },
  state: { type: 'text', column: 'orders.state', values: ORDER_STATES },
  correspondence_state: { type: 'text', column: 'orders.correspondence_state', values: CORRESPONDENCE_STATES },
  currency: { type: 'text', column: 'orders.currency' },
  initial_total: { type: 'money', column: 'orders.initial_total', exponentColumn: 'orders.currency_exponent' },
  paid_total: { type: 'money', column: 'orders.paid_total', exponentColumn: 'orders.currency_exponent' },
  due_date: { type: 'date', column: 'orders.due_date' },
  note: { type: 'text', column: 'orders.note' },
  'customer.uuid': { type: 'text', column: 'orders.customer_id' },
  created_at: { type: 'time', column: 'orders.created_at' },
  updated_at: { type: 'time', column: 'orders.updated_at' },
};

/** A page of a merchant's orders, newest first, and how many match in all. */
export async function listOrders(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: OrderRow[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom('orders').where('orders.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, ORDER_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('orders.created_at', 'desc')
      .orderBy('orders.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
