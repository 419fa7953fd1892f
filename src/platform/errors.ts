/**
 * The closed list of error codes. Six-digit codes are grouped by area: 1xxxxx platform (1001 authentication,
 * 1002 request format, 1003 idempotency, 1004 rate limits, 1005 operator commands, 1009 faults), 2xxxxx
 * customers and payment tokens, 3xxxxx treasury users, 4xxxxx orders and transactions, 5xxxxx recurring,
 * 6xxxxx batches, 7xxxxx issuing, 8xxxxx payouts. `E000002` and `EO100102` are text codes found in the wild;
 * for those the envelope's `code` carries the HTTP status.
 */
export const ERRORS = {
  credentialMalformed: { code: 'E000002', status: 401, message: 'Invalid Credential Format.' },
  authHeaderMissing: { code: '100101', status: 401, message: 'A required authentication header is missing.' },
  credentialTimeOutOfWindow: {
    code: '100102', status: 401, message: 'The credential time is more than 30 minutes away from the server clock.',
  },
  appUnknown: { code: '100103', status: 401, message: 'Unknown AppID.' },
  signatureInvalid: { code: '100104', status: 401, message: 'The signature does not verify.' },
  nonceReused: { code: '100105', status: 401, message: 'This nonce has already been used.' },
  nonceMalformed: { code: '100106', status: 401, message: 'The Nonce header must be 16 to 64 characters from [0-9A-Za-z].' },
  appDisabled: { code: '100111', status: 403, message: 'This AppID is disabled.' },
  addressNotAllowed: { code: '100112', status: 403, message: "The caller's address is not in the app's IP allow list." },

  routeNotFound: { code: '100201', status: 404, message: 'No such route.' },
  bodyNotJson: { code: '100202', status: 400, message: 'The request body is not valid JSON.' },
  bodyNotUtf8: { code: '100203', status: 400, message: 'The request body is not valid UTF-8.' },
  bodyForbiddenKey: { code: '100204', status: 400, message: 'The request body contains a forbidden key (__proto__ or constructor).' },
  bodyTooLarge: { code: '100205', status: 413, message: 'The request body is larger than the limit.' },
  mediaTypeUnsupported: { code: '100206', status: 415, message: 'The request body must be sent as application/json.' },
  validationFailed: { code: '100207', status: 400, message: 'The request is invalid.' },
  requestMalformed: { code: '100208', status: 400, message: 'The HTTP request is malformed.' },

  idempotencyKeyInvalid: {
    code: '100301', status: 400, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
  },
  idempotencyKeyReused: {
    code: '100302', status: 409, message: 'This Idempotency-Key was used for a different request.',
  },
  idempotencyInProgress: {
    code: '100303', status: 409, message: 'A request with this Idempotency-Key is still being processed.',
  },

  rateLimited: { code: '100401', status: 429, message: 'Too many requests.' },

  merchantNotFound: { code: '100501', status: 404, message: 'Merchant not found.' },
  appNotFound: { code: '100502', status: 404, message: 'App not found.' },
  merchantInvalid: { code: '100503', status: 400, message: 'The merchant settings are invalid.' },
  publicKeyInvalid: {
    code: '100504', status: 400, message: 'The public key must be an RSA public key of at least 2047 bits in PEM form.',
  },
  allowedAddressInvalid: { code: '100505', status: 400, message: 'An IP allow list entry is not an address or CIDR range.' },

  internal: { code: '100901', status: 500, message: 'Internal error; quote the reference that follows to the operator.' },
  unavailable: { code: '100902', status: 503, message: 'The service is shutting down or not ready.' },

  customerNotFound: { code: '200101', status: 404, message: 'Customer not found.' },
  customerReferenceImmutable: {
    code: '200102', status: 400, message: 'reference_number cannot be changed after the customer is created.',
  },
  paymentTokenNotUsable: {
    code: '200103', status: 400,
    message: 'default_payment_token does not name a successfully bound payment token of this customer.',
  },
  paymentTokenNotFound: { code: '200104', status: 404, message: 'Payment token not found.' },
  paymentTokenNotPending: { code: '200105', status: 400, message: 'This payment token is not waiting for 3-D Secure.' },

  currencyInvalid: { code: 'EO100102', status: 400, message: 'The currency is not an ISO 4217 currency code.' },
  orderNotFound: { code: '400101', status: 404, message: 'Order not found.' },
  orderReferenceTaken: {
    code: '400102', status: 409, message: 'An order with this reference_number already exists with different content.',
  },
  orderCustomerUnknown: { code: '400103', status: 400, message: 'customer_uuid does not name a customer of this merchant.' },
  orderAmountsInvalid: { code: '400104', status: 400, message: 'The order amounts do not add up.' },
  orderVoided: { code: '400105', status: 400, message: 'The order is voided.' },
  orderNothingToPay: {
    code: '400106', status: 400, message: 'The order has nothing left to pay (or pending payments already hold it).',
  },
  orderNotVoidable: {
    code: '400107', status: 400, message: 'Only an order with no payments, pending or made, can be voided as a whole.',
  },
  orderMismatch: { code: '400108', status: 400, message: 'The order and the transaction named do not belong together.' },
  orderReferenceMissing: { code: '400109', status: 400, message: 'Name an order (number or reference_number) or a transaction (uuid).' },
  transactionNotFound: { code: '400201', status: 404, message: 'Transaction not found.' },
  transactionNotVoidable: { code: '400202', status: 400, message: 'This transaction cannot be voided.' },
  transactionNotRefundable: { code: '400203', status: 400, message: 'This transaction cannot be refunded.' },
  refundExceedsCaptured: { code: '400204', status: 400, message: 'The refund is more than is left to refund on this transaction.' },
  transactionNotCapturable: { code: '400205', status: 400, message: 'This transaction cannot be captured.' },
  captureExceedsAuthorized: { code: '400206', status: 400, message: 'The capture is more than was authorised.' },
  paymentUuidReused: { code: '400207', status: 409, message: 'This payment.uuid was used for a different payment.' },
  transactionNotPending: { code: '400208', status: 400, message: 'This transaction is not waiting for a result.' },
  paymentMethodMissing: { code: '400209', status: 400, message: 'The payment names no payment method.' },
  paymentTokenNotChargeable: {
    code: '400210', status: 400, message: 'The payment token is not successfully bound (pending or failed): it cannot be charged.',
  },
  acquirerUnavailable: { code: '400301', status: 503, message: 'No card acquirer is configured for this platform.' },
  acquirerNoAnswer: {
    code: '400302', status: 502,
    message: 'The acquirer did not answer. The operation is recorded as pending and will be resolved with the acquirer; ' +
      'retry with the same Idempotency-Key (or payment.uuid), or check the transaction.',
  },

  eventNotFound: { code: '400401', status: 404, message: 'Event not found.' },
  webhookUrlInvalid: { code: '400402', status: 400, message: 'The webhook URL must be an http or https URL.' },
} as const satisfies Record<string, ErrorDefinition>;

export interface ErrorDefinition {
  code: string;
  status: number;
  message: string;
}

export type ErrorName = keyof typeof ERRORS;

/** A refusal that the transports map to the envelope; domain code throws these and knows nothing of HTTP. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly definition: ErrorDefinition;

  constructor(readonly kind: ErrorName, detail?: string) {
    const definition: ErrorDefinition = ERRORS[kind];
    super(detail ?? definition.message);
    this.definition = definition;
  }
}

/** The envelope's integer `code`: the numeric code itself, or the HTTP status for text codes. */
export function envelopeCode(definition: ErrorDefinition): number {
  return /^\d+$/.test(definition.code) ? Number(definition.code) : definition.status;
}
