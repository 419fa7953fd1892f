import { defineErrors } from '../platform/errors.js';

/** Recurring billing: items, billing configs and plans (codes 5xxxxx). Field rules refuse with the platform's 100207. */
export const RECURRING_ERRORS = defineErrors({
  recurringItemNotFound: { code: '500101', status: 404, message: 'Recurring item not found.' },
  billingConfigNotFound: { code: '500201', status: 404, message: 'Billing config not found.' },
});
