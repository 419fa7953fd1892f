import { defineErrors } from '../platform/errors.js';

/** Orders and their transactions. */
export const ORDER_ERRORS = defineErrors({
  orderNotFound: { code: '400101', status: 404, message: 'Order not found.' },
  orderReferenceTaken: {
    code: '400102',
    status: 409,
    message: 'An order with this reference_number already exists with different content.',
  },
  orderCustomerUnknown: {
    code: '400103',
    status: 400,
    message: 'customer_uuid does not name a customer of this merchant.',
  },
  orderAmountsInvalid: { code: '400104', status: 400, message: 'The order amounts do not add up.' },
  orderVoided: { code: '400105', status: 400, message: 'The order is voided.' },
  orderNothingToPay: {
    code: '400106',
    status: 400,
    message: 'The order has nothing left to pay (or pending payments already hold it).',
  },
  orderNotVoidable: {
    code: '400107',
    status: 400,
    message: 'Only an order with no payments, pending or made, can be voided as a whole.',
  },
  orderMismatch: {
    code: '400108',
    status: 400,
    message: 'The order and the transaction named do not belong together.',
  },
  orderReferenceMissing: {
    code: '400109',
    status: 400,
    message: 'Name an order (number or reference_number) or a transaction (uuid).',
  },
  transactionNotFound: { code: '400201', status: 404, message: 'Transaction not found.' },
  transactionNotVoidable: { code: '400202', status: 400, message: 'This transaction cannot be voided.' },
  transactionNotRefundable: { code: '400203', status: 400, message: 'This transaction cannot be refunded.' },
  refundExceedsCaptured: {
    code: '400204',
    status: 400,
    message: 'The refund is more than is left to refund on this transaction.',
  },
  transactionNotCapturable: { code: '400205', status: 400, message: 'This transaction cannot be captured.' },
  captureExceedsAuthorized: { code: '400206', status: 400, message: 'The capture is more than was authorised.' },
  paymentUuidReused: { code: '400207', status: 409, message: 'This payment.uuid was used for a different payment.' },
  transactionNotPending: { code: '400208', status: 400, message: 'This transaction is not waiting for a result.' },
  paymentMethodMissing: { code: '400209', status: 400, message: 'The payment names no payment method.' },
});
