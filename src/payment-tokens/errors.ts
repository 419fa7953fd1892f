import { defineErrors } from '../platform/errors.js';

/** Payment tokens: binding, checking, charging. */
export const TOKEN_ERRORS = defineErrors({
  paymentTokenNotFound: { code: '200104', status: 404, message: 'Payment token not found.' },
  paymentTokenNotPending: { code: '200105', status: 400, message: 'This payment token is not waiting for 3-D Secure.' },
  paymentTokenNotChargeable: {
    code: '400210',
    status: 400,
    message: 'The payment token is not successfully bound (pending or failed): it cannot be charged.',
  },
});
