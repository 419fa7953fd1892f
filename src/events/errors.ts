import { defineErrors } from '../platform/errors.js';

/** The outbox's history. */
export const EVENT_ERRORS = defineErrors({
  eventNotFound: { code: '400401', status: 404, message: 'Event not found.' },
});
