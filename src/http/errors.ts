import { defineErrors } from '../platform/errors.js';

/** What every signed route may answer before its verb runs: authentication, the request's format, rate limits. */
export const HTTP_ERRORS = defineErrors({
  credentialMalformed: { code: 'E000002', status: 401, message: 'Invalid Credential Format.' },
  authHeaderMissing: { code: '100101', status: 401, message: 'A required authentication header is missing.' },
  credentialTimeOutOfWindow: {
    code: '100102',
    status: 401,
    message: 'The credential time is more than 30 minutes away from the server clock.',
  },
  appUnknown: { code: '100103', status: 401, message: 'Unknown AppID.' },
  signatureInvalid: { code: '100104', status: 401, message: 'The signature does not verify.' },
  nonceReused: { code: '100105', status: 401, message: 'This nonce has already been used.' },
  nonceMalformed: {
    code: '100106',
    status: 401,
    message: 'The Nonce header must be 16 to 64 characters from [0-9A-Za-z].',
  },
  appDisabled: { code: '100111', status: 403, message: 'This AppID is disabled.' },
  addressNotAllowed: {
    code: '100112',
    status: 403,
    message: "The caller's address is not in the app's IP allow list.",
  },
  routeNotFound: { code: '100201', status: 404, message: 'No such route.' },
  bodyNotJson: { code: '100202', status: 400, message: 'The request body is not valid JSON.' },
  bodyNotUtf8: { code: '100203', status: 400, message: 'The request body is not valid UTF-8.' },
  bodyForbiddenKey: {
    code: '100204',
    status: 400,
    message: 'The request body contains a forbidden key (__proto__ or constructor).',
  },
  bodyTooLarge: { code: '100205', status: 413, message: 'The request body is larger than the limit.' },
  mediaTypeUnsupported: { code: '100206', status: 415, message: 'The request body must be sent as application/json.' },
  requestMalformed: { code: '100208', status: 400, message: 'The HTTP request is malformed.' },
  rateLimited: { code: '100401', status: 429, message: 'Too many requests.' },
});
