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

/** A payment token's binding settled, or the token was deleted (docs/webhooks.md). */
export const TOKEN_ACTIONS = ['payment_token.succeeded', 'payment_token.failed', 'payment_token.deleted'] as const;
export type TokenAction = (typeof TOKEN_ACTIONS)[number];

export type EventAction = OrderAction | TokenAction;
