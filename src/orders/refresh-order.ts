import type { Context } from '../context/context.js';
import type { OrderView } from './present.js';
import { lineItemsOfOrder, type OrderRow, updateOrder } from './store.js';
import { orderTotals } from './totals.js';
import { orderTransactions } from './transactions-store.js';

/**
 * Recomputes an order's totals and states from its transactions and stores them, in the caller's transaction:
 * every change to an order or its transactions ends here, so the stored states always agree with them. The
 * row is written only when something it holds changed.
 */
export async function refreshOrder(
  ctx: Context,
  order: OrderRow,
  change: { voidedAt?: number } = {},
): Promise<OrderView> {
  const transactions = await orderTransactions(ctx.db, ctx.merchant.id, order.id);
  const voidedAt = change.voidedAt ?? order.voided_at;
  const totals = orderTotals({ initial_total: order.initial_total, voided_at: voidedAt }, transactions);
  const unchanged =
    totals.paidTotal === order.paid_total &&
    totals.state === order.state &&
    totals.correspondence === order.correspondence_state &&
    voidedAt === order.voided_at;
  const updated = unchanged
    ? order
    : await updateOrder(ctx.db, ctx.merchant.id, order, {
        paid_total: totals.paidTotal,
        state: totals.state,
        correspondence_state: totals.correspondence,
        updated_at: ctx.clock.now().getTime(),
        ...(change.voidedAt !== undefined && { voided_at: change.voidedAt }),
      });
  const items = await lineItemsOfOrder(ctx.db, ctx.merchant.id, order.id);
  return { order: updated, items, transactions, merchant: ctx.merchant, customerUuid: updated.customer_id };
}
