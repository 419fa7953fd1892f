import { defineErrors } from '../platform/errors.js';

/** The rails: not configured, or no answer (the operation is then left for recovery). */
export const RAIL_ERRORS = defineErrors({
  acquirerUnavailable: { code: '400301', status: 503, message: 'No card acquirer is configured for this platform.' },
  acquirerNoAnswer: {
    code: '400302',
    status: 502,
    message:
      'The acquirer did not answer. The operation is recorded as pending and will be resolved with the acquirer; ' +
      'retry with the same Idempotency-Key (or payment.uuid), or check the transaction.',
  },
  identityUnavailable: {
    code: '400303',
    status: 503,
    message: 'No identity verification provider is configured for this platform.',
  },
  bankUnavailable: { code: '400304', status: 503, message: 'No bank is configured for payouts on this platform.' },
});
