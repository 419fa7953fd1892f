import type { Context } from '../context/context.js';
import { type EventHistory, subjectEvents } from '../events/history.js';
import { groupBy } from '../platform/collections.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { isUuid } from '../platform/ids.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { ORDER_ERRORS } from './errors.js';
import { withLinks } from './links.js';
import { hasOrderReference, loadOrderView, type OrderReference, resolveOrder, resolveTransaction } from './lookup.js';
import type { OrderView } from './present.js';
import {
  type LineItemRow,
  lineItemCounts,
  lineItemsOfOrders,
  listOrders,
  ORDER_FILTERS,
  type OrderRow,
  orderOfTransaction,
} from './store.js';
import { type TransactionRow, transactionCounts, transactionsOfOrders } from './transactions-store.js';

/**
 * An order by number and/or reference number, or by a transaction's uuid, or both (the official PHP SDK sends
 * both before a void): whatever is sent must name the same order.
 */
export async function checkOrder(
  ctx: Context,
  by: { order?: OrderReference; transaction?: { uuid: string } },
  links: { paymentLink?: boolean; receiptLink?: boolean } = {},
): Promise<OrderView> {
  const view = await (async () => {
    if (by.transaction) {
      const { order } = await resolveTransaction(
        ctx,
        { order: by.order, transactionId: by.transaction.uuid },
        { lock: false },
      );
      return loadOrderView(ctx, order);
    }
    if (!hasOrderReference(by.order)) throw new AppError(ORDER_ERRORS.orderReferenceMissing);
    return loadOrderView(ctx, await resolveOrder(ctx, by.order));
  })();
  return withLinks(ctx, view, { payment: links.paymentLink, receipt: links.receiptLink });
}

export async function checkTransaction(
  ctx: Context,
  by: { order?: OrderReference; transaction: { uuid: string } },
): Promise<{ view: OrderView; transaction: TransactionRow }> {
  const { order, transaction } = await resolveTransaction(
    ctx,
    { order: by.order, transactionId: by.transaction.uuid },
    { lock: false },
  );
  const view = await loadOrderView(ctx, order);
  return { view, transaction: view.transactions.find((t) => t.id === transaction.id) ?? transaction };
}

/** The order a transaction belongs to, if the transaction is the merchant's. */
export async function findOrderOfTransaction(ctx: Context, transactionId: string): Promise<OrderRow | undefined> {
  return isUuid(transactionId) ? orderOfTransaction(ctx.db, ctx.merchant.id, transactionId) : undefined;
}

/** An order's webhook events, oldest first, each with its deliveries and every attempt made. */
export async function orderEvents(
  ctx: Context,
  by: { order?: OrderReference; transaction?: { uuid: string } },
): Promise<EventHistory[]> {
  return subjectEvents(ctx, (await checkOrder(ctx, by)).order.id);
}

/**
 * What one page of the list may hold: line items and transactions together. A page is sent in one piece, and a
 * thousand orders of 500 long lines would hold the process for seconds: the interface's `limit` of 1000 stays,
 * and a page past this bound is refused, naming the limit that would fit. The rows are read a slice at a time.
 */
export const MAX_LIST_PAGE_ROWS = 5_000;
const ROWS_PER_READ = 1_000;

/** A page of the merchant's orders, newest first, filtered with the list query language. */
export async function listMerchantOrders(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page & { customerUuid?: string },
): Promise<{ views: OrderView[]; total: number }> {
  const conditions = parseFilters(query, ORDER_FILTERS);
  if (page.customerUuid !== undefined) conditions.push({ field: 'customer.uuid', op: '_eq', value: page.customerUuid });
  const { rows, total } = await listOrders(ctx.db, ctx.merchant.id, conditions, page);
  const itemsOf = new Map<string, LineItemRow[]>();
  const transactionsOf = new Map<string, TransactionRow[]>();
  for (const ids of await readingSlices(
    ctx,
    rows.map((row) => row.id),
  )) {
    const [items, transactions] = await Promise.all([
      lineItemsOfOrders(ctx.db, ctx.merchant.id, ids),
      transactionsOfOrders(ctx.db, ctx.merchant.id, ids),
    ]);
    groupBy(items, (row) => row.order_id, itemsOf);
    groupBy(transactions, (row) => row.order_id, transactionsOf);
    // On SQLite each read runs start to end on the event loop: other requests go between the slices.
    await yieldToEventLoop();
  }
  const views = rows.map((order) => ({
    order,
    items: itemsOf.get(order.id) ?? [],
    transactions: transactionsOf.get(order.id) ?? [],
    merchant: ctx.merchant,
    customerUuid: order.customer_id,
  }));
  return { views, total };
}

/** The page's orders in slices of about ROWS_PER_READ rows; refused when the page holds more than it may. */
async function readingSlices(ctx: Context, orderIds: string[]): Promise<string[][]> {
  const [items, transactions] = await Promise.all([
    lineItemCounts(ctx.db, ctx.merchant.id, orderIds),
    transactionCounts(ctx.db, ctx.merchant.id, orderIds),
  ]);
  const slices: string[][] = [];
  let held = 0;
  let fitting = 0;
  let sliceRows = Infinity;
  for (const id of orderIds) {
    const rows = (items.get(id) ?? 0) + (transactions.get(id) ?? 0);
    held += rows;
    if (held <= MAX_LIST_PAGE_ROWS) fitting += 1;
    if (sliceRows + rows > ROWS_PER_READ) {
      slices.push([]);
      sliceRows = 0;
    }
    slices.at(-1)!.push(id);
    sliceRows += rows;
  }
  if (held > MAX_LIST_PAGE_ROWS) {
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      `This page would hold ${held} line items and transactions, more than ${MAX_LIST_PAGE_ROWS}: ask for limit=${Math.max(1, fitting)} or less.`,
    );
  }
  return slices;
}
