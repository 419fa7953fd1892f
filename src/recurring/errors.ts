import { defineErrors } from '../platform/errors.js';

/**
 * Recurring billing: items, billing configs and plans (codes 5xxxxx). Field rules refuse with the platform's 100207.
 */
export const RECURRING_ERRORS = defineErrors({
  recurringItemNotFound: { code: '500101', status: 404, message: 'Recurring item not found.' },
  recurringItemDeleted: {
    code: '500102',
    status: 400,
    message: 'The recurring item is deleted: new plans cannot use it.',
  },
  billingConfigNotFound: { code: '500201', status: 404, message: 'Billing config not found.' },
  billingConfigDeleted: {
    code: '500202',
    status: 400,
    message: 'The billing config is deleted: new plans cannot use it.',
  },
  planNotFound: { code: '500301', status: 404, message: 'Recurring plan not found.' },
  planReferenceTaken: {
    code: '500302',
    status: 409,
    message: 'A plan with this reference_number exists with other content.',
  },
  planTokenMissing: {
    code: '500303',
    status: 400,
    message:
      'The customer has no usable payment token: give default_payment_token, or set a successfully bound default token on the customer first.',
  },
  planNotRecoverable: {
    code: '500304',
    status: 400,
    message: 'The plan has no pending cancellation to undo: none was asked for, or it has taken effect.',
  },
  planEnded: {
    code: '500305',
    status: 400,
    message: 'The plan has ended (completed, cancelled or uncollectible): it cannot be changed or cancelled.',
  },
});
