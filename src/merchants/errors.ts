import { defineErrors } from '../platform/errors.js';

/** The operator's commands on merchants and apps (a merchant not found is the platform's: PLATFORM_ERRORS). */
export const MERCHANT_ERRORS = defineErrors({
  appNotFound: { code: '100502', status: 404, message: 'App not found.' },
  merchantInvalid: { code: '100503', status: 400, message: 'The merchant settings are invalid.' },
  publicKeyInvalid: {
    code: '100504',
    status: 400,
    message: 'The public key must be an RSA public key of at least 2047 bits in PEM form.',
  },
  allowedAddressInvalid: {
    code: '100505',
    status: 400,
    message: 'An IP allow list entry is not an address or CIDR range.',
  },
  webhookUrlInvalid: { code: '400402', status: 400, message: 'The webhook URL must be an http or https URL.' },
});
