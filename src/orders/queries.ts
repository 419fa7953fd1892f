import { inTransaction, type Context } from '../context/context.js';
import { subjectEvents, type EventHistory } from '../events/history.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { parseFilters, type Page } from '../platform/query/filters.js';
import { ORDER_ERRORS } from './errors.js';
import { emitOrderEvent } from './events.js';
import { withLinks } from './links.js';
import { hasOrderReference, loadOrderView, refreshOrder, resolveOrder, resolveTransaction, type OrderReference } from './lookup.js';
import type { OrderView } from './present.js';
import { lineItemsOfOrders, listOrders, ORDER_FILTERS, orderOfTransaction, type OrderRow } from './store.js';
import { orderTransactions, transactionsOfOrders, type TransactionRow } from './transactions-store.js';

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
      const { order } = await resolveTransaction(ctx, { order: by.order, transactionId: by.transaction.uuid }, { lock: false });
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
  const { order, transaction } = await resolveTransaction(ctx, { order: by.order, transactionId: by.transaction.uuid }, { lock: false });
  const view = await loadOrderView(ctx, order);
  return { view, transaction: view.transactions.find((t) => t.id === transaction.id) ?? transaction };
}

/** The order a transaction belongs to, if the transaction is the merchant's. */
export async function findOrderOfTransaction(ctx: Context, transactionId: string): Promise<OrderRow | undefined> {
  return isUuid(transactionId) ? orderOfTransaction(ctx.db, ctx.merchant.id, transactionId) : undefined;
}

/** An order's webhook events, oldest first, each with its deliveries and every attempt made. */
export async function orderEvents(ctx: Context, by: { order?: OrderReference; transaction?: { uuid: string } }): Promise<EventHistory[]> {
  return subjectEvents(ctx, (await checkOrder(ctx, by)).order.id);
}

/** A page of the merchant's orders, newest first, filtered with the list query language. */
export async function listMerchantOrders(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page & { customerUuid?: string },
): Promise<{ views: OrderView[]; total: number }> {
  const conditions = parseFilters(query, ORDER_FILTERS);
  if (page.customerUuid !== undefined) conditions.push({ field: 'customer.uuid', op: '_eq', value: page.customerUuid });
  const { rows, total } = await listOrders(ctx.db, ctx.merchant.id, conditions, page);
  const ids = rows.map((row) => row.id);
  const [items, transactions] = await Promise.all([
    lineItemsOfOrders(ctx.db, ctx.merchant.id, ids),
    transactionsOfOrders(ctx.db, ctx.merchant.id, ids),
  ]);
  const views = rows.map((order) => ({
    order,
    items: items.filter((item) => item.order_id === order.id),
    transactions: transactions.filter((t) => t.order_id === order.id),
    merchant: ctx.merchant,
    customerUuid: order.customer_id,
  }));
  return { views, total };
}

/**
 * Voids an order as a whole: one with nothing paid, nothing pending and no open authorisation. From then on it
 * takes no payments.
 */
export async function voidOrder(ctx: Context, reference: OrderReference): Promise<OrderView> {
  if (!hasOrderReference(reference)) throw new AppError(ORDER_ERRORS.orderReferenceMissing, 'Name the order to void: number or reference_number.');
  return inTransaction(ctx, async (tx) => {
    const order = await resolveOrder(tx, reference, true);
    if (order.voided_at !== null) throw new AppError(ORDER_ERRORS.orderVoided, 'The order is voided already.');
    if (paymentActivity(await orderTransactions(tx.db, tx.merchant.id, order.id)) !== 'none') {
      throw new AppError(ORDER_ERRORS.orderNotVoidable, 'The order has payments or authorisations (made or pending): void those transactions instead.');
    }
    const view = await refreshOrder(tx, order, { voidedAt: tx.clock.now().getTime() });
    await emitOrderEvent(tx, 'order.voided', view);
    return view;
  }, { completesRequest: true });
}

/**
 * What stands in the way of voiding an order: something still waiting for a rail or a payer (`pending`), money
 * taken or an authorisation open (`paid`), or nothing.
 */
export function paymentActivity(transactions: TransactionRow[]): 'pending' | 'paid' | 'none' {
  if (transactions.some((t) => t.status === 'pending' || t.void_is_pending === 1)) return 'pending';
  const standing = transactions.some((t) => t.status === 'succeeded' && t.voided === 0 && (t.type !== 'Authorization' || t.captured === 0));
  return standing ? 'paid' : 'none';
}
