export { captureAuthorization, refundTransaction, voidTransaction } from './adjustments.js';
export type {
  BegunItem,
  Charge,
  ChargedItem,
  ChargeOutcome,
  ChargeRequest,
  ChargeRound,
  Charger,
  RefusedCharge,
} from './charge-round.js';
export { chargeMany, chargeOutcome, RESENDS_PER_CHARGE } from './charge-round.js';
export { createOrder, makeOrder } from './create-order.js';
export { ORDER_ERRORS } from './errors.js';
export { EXAMPLE_ORDER, exampleEvents } from './examples.js';
export { findMerchantOrder, loadOrderView, resolveTransaction, transactionsOfOrder } from './lookup.js';
export { ordersModule } from './module.js';
export type { TransactionOutcome } from './outcomes.js';
export { authCodeOf } from './payment-data.js';
export { payOrder } from './payments.js';
export type { OrderView } from './present.js';
export { presentTransaction } from './present.js';
export { checkOrder } from './queries.js';
export { refundable } from './rules.js';
export { CreateOrderBody, OpenPaymentBody, RefundBody, TransactionSchema } from './schemas.js';
export type { CorrespondenceState, OrderState } from './tables.js';
export { CORRESPONDENCE_STATES, ORDER_STATES } from './tables.js';
export { voidOrder } from './void-order.js';
