import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { type OrderView, presentOrder } from './present.js';

/** The order events of compatibility.md section 4, plus `order.authorized` (a pre-authorisation). */
export const ORDER_EVENTS = defineEventTypes(
  (view: OrderView) => ({
    data: { order: presentOrder(view) },
    subjectId: view.order.id,
    notifyUrl: view.order.notify_url,
    appId: view.order.app_id,
  }),
  {
    'order.created': 'An order was created.',
    'order.authorized': 'A pre-authorisation of the order succeeded.',
    'order.paid': 'A sale or capture of the order succeeded.',
    'order.payment_failure': 'A payment of the order failed (declined, refused, abandoned).',
    'order.voided': 'The order was voided as a whole (by the merchant, or past its due date).',
    'order.refunded': 'A refund of the order succeeded.',
    'transaction.voided': 'A transaction of the order was voided (by the merchant, or an authorisation expiring).',
  },
);

export type OrderAction = keyof typeof ORDER_EVENTS;

/**
 * Records an order event in the caller's transaction: the order as it is now, sent to its callback_url and the apps.
 */
export async function emitOrderEvent(ctx: Context, action: OrderAction, view: OrderView): Promise<string> {
  return emitEvent(ctx, ORDER_EVENTS[action], view);
}
