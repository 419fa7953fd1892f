/** The order events of compatibility.md section 4, plus `order.authorized` (a pre-authorisation). */
export const ORDER_ACTIONS = [
  'order.created',
  'order.authorized',
  'order.paid',
  'order.payment_failure',
  'order.voided',
  'order.refunded',
  'transaction.voided',
] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];
