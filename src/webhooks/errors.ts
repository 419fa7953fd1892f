import { defineErrors } from '../platform/errors.js';

/** Webhook history and redelivery. */
export const WEBHOOK_ERRORS = defineErrors({
  eventNotFound: { code: '400401', status: 404, message: 'Event not found.' },
});
