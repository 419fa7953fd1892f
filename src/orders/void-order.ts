import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { ORDER_ERRORS } from './errors.js';
import { emitOrderEvent } from './events.js';
import { hasOrderReference, type OrderReference, resolveOrder } from './lookup.js';
import type { OrderView } from './present.js';
import { refreshOrder } from './refresh-order.js';
import { orderTransactions, type TransactionRow } from './transactions-store.js';

/**
 * Voids an order as a whole: one with nothing paid, nothing pending and no open authorisation. From then on it
 * takes no payments.
 */
export async function voidOrder(ctx: Context, reference: OrderReference): Promise<OrderView> {
  if (!hasOrderReference(reference))
    throw new AppError(ORDER_ERRORS.orderReferenceMissing, 'Name the order to void: number or reference_number.');
  return inTransaction(
    ctx,
    async (tx) => {
      const order = await resolveOrder(tx, reference, true);
      if (order.voided_at !== null) throw new AppError(ORDER_ERRORS.orderVoided, 'The order is voided already.');
      if (paymentActivity(await orderTransactions(tx.db, tx.merchant.id, order.id)) !== 'none') {
        throw new AppError(
          ORDER_ERRORS.orderNotVoidable,
          'The order has payments or authorisations (made or pending): void those transactions instead.',
        );
      }
      const view = await refreshOrder(tx, order, { voidedAt: tx.clock.now().getTime() });
      await emitOrderEvent(tx, 'order.voided', view);
      return view;
    },
    { completesRequest: true },
  );
}

/**
 * What stands in the way of voiding an order: something still waiting for a rail or a payer (`pending`), money
 * taken or an authorisation open (`paid`), or nothing.
 */
export function paymentActivity(transactions: TransactionRow[]): 'pending' | 'paid' | 'none' {
  if (transactions.some((t) => t.status === 'pending' || t.void_is_pending === 1)) return 'pending';
  const standing = transactions.some(
    (t) => t.status === 'succeeded' && t.voided === 0 && (t.type !== 'Authorization' || t.captured === 0),
  );
  return standing ? 'paid' : 'none';
}
