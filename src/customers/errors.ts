import { defineErrors } from '../platform/errors.js';

/** Customers, and the default payment token a customer names. */
export const CUSTOMER_ERRORS = defineErrors({
  customerNotFound: { code: '200101', status: 404, message: 'Customer not found.' },
  customerReferenceImmutable: {
    code: '200102',
    status: 400,
    message: 'reference_number cannot be changed after the customer is created.',
  },
  paymentTokenNotUsable: {
    code: '200103',
    status: 400,
    message: 'default_payment_token does not name a successfully bound payment token of this customer.',
  },
});
