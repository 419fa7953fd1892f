import type { Context } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { ORDER_ERRORS } from './errors.js';
import type { OrderView } from './present.js';
import { findOrder, lineItemsOfOrder, lockOrderOfTransaction, type OrderRow, orderOfTransaction } from './store.js';
import { findPaymentByUuid, findTransaction, orderTransactions, type TransactionRow } from './transactions-store.js';

/** How clients name an order: by number, by reference number, or both (which must then name the same order). */
export interface OrderReference {
  number?: string;
  reference_number?: string;
}

export function hasOrderReference(reference: OrderReference | undefined): reference is OrderReference {
  return reference !== undefined && (reference.number !== undefined || reference.reference_number !== undefined);
}

/** The merchant's order with this id or reference number, if there is one (no error when there is none). */
export async function findMerchantOrder(
  ctx: Context,
  by: { id: string } | { referenceNumber: string },
): Promise<OrderRow | undefined> {
  return findOrder(ctx.db, ctx.merchant.id, by);
}

/** The payment made under this `payment.uuid`, if there is one. */
export async function paymentByUuid(ctx: Context, uuid: string): Promise<TransactionRow | undefined> {
  return findPaymentByUuid(ctx.db, ctx.merchant.id, uuid);
}

/** An order's transactions, oldest first. */
export async function transactionsOfOrder(ctx: Context, orderId: string): Promise<TransactionRow[]> {
  return orderTransactions(ctx.db, ctx.merchant.id, orderId);
}

/**
 * The merchant's order so named; another merchant's order looks exactly like a missing one. Every name given
 * (a number, a reference number, in one reference or several) must name that same order: names that find
 * different orders are refused as a mismatch, so that a request never acts on one order named by another's name.
 */
export async function resolveOrder(
  ctx: Context,
  reference: OrderReference | OrderReference[],
  lock = false,
): Promise<OrderRow> {
  const names = (Array.isArray(reference) ? reference : [reference]).flatMap((each) => [
    ...(each.number !== undefined ? [{ number: each.number }] : []),
    ...(each.reference_number !== undefined ? [{ referenceNumber: each.reference_number }] : []),
  ]);
  let found: OrderRow | undefined;
  for (const name of names) {
    const order = await findOrder(ctx.db, ctx.merchant.id, name, lock);
    if (!order) throw new AppError(ORDER_ERRORS.orderNotFound);
    if (found && order.id !== found.id)
      throw new AppError(
        ORDER_ERRORS.orderMismatch,
        'The names given for the order (number, reference_number) name different orders.',
      );
    found = order;
  }
  if (!found) throw new AppError(ORDER_ERRORS.orderReferenceMissing);
  return found;
}

/**
 * An order and one of its transactions, named by the transaction's uuid and optionally the order too (the
 * official PHP SDK sends both): whatever is sent must name one and the same order. With `lock`, the order is
 * locked first and the transaction read after, so what the caller decides on cannot change under it.
 */
export async function resolveTransaction(
  ctx: Context,
  reference: { order?: OrderReference; transactionId: string },
  options: { lock: boolean },
): Promise<{ order: OrderRow; transaction: TransactionRow }> {
  if (!isUuid(reference.transactionId)) throw new AppError(ORDER_ERRORS.transactionNotFound);
  const order = options.lock
    ? await lockOrderOfTransaction(ctx.db, ctx.merchant.id, reference.transactionId)
    : await orderOfTransaction(ctx.db, ctx.merchant.id, reference.transactionId);
  const transaction = order && (await findTransaction(ctx.db, ctx.merchant.id, reference.transactionId));
  if (!order || !transaction) throw new AppError(ORDER_ERRORS.transactionNotFound);
  if (hasOrderReference(reference.order)) {
    const { number, reference_number: referenceNumber } = reference.order;
    if (
      (number !== undefined && number !== order.number) ||
      (referenceNumber !== undefined && referenceNumber !== order.reference_number)
    ) {
      throw new AppError(ORDER_ERRORS.orderMismatch);
    }
  }
  return { order, transaction };
}

/** The order with its line items, its transactions (oldest first) and its merchant, ready to present. */
export async function loadOrderView(ctx: Context, order: OrderRow): Promise<OrderView> {
  const [items, transactions] = await Promise.all([
    lineItemsOfOrder(ctx.db, ctx.merchant.id, order.id),
    orderTransactions(ctx.db, ctx.merchant.id, order.id),
  ]);
  return { order, items, transactions, merchant: ctx.merchant, customerUuid: order.customer_id };
}
