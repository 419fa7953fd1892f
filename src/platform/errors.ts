/**
 * Refusals and faults. Every area declares its own errors with `defineErrors` (a capability in its module's
 * errors.ts); the composition root joins them into the one closed list that the OpenAPI document publishes,
 * and a test keeps codes unique. Six-digit codes are grouped by area: 1xxxxx platform (1001 authentication,
 * 1002 request format, 1003 idempotency, 1004 rate limits, 1005 operator commands, 1009 faults), 2xxxxx
 * customers and payment tokens, 3xxxxx treasury users, 4xxxxx orders and transactions (4003 the acquirer, 4004
 * webhooks), 5xxxxx recurring, 6xxxxx batches, 7xxxxx issuing, 8xxxxx payouts, 9xxxxx the sandbox lab. `E000002` and `EO100102` are
 * text codes found in the wild; for those the envelope's `code` carries the HTTP status.
 */
export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly message: string;
}

/** An area's errors, by name: `throw new AppError(ORDER_ERRORS.orderNotFound)`. */
export function defineErrors<const T extends Record<string, ErrorDefinition>>(errors: T): Readonly<T> {
  return Object.freeze(errors);
}

/** The platform's own: what any verb may refuse or fail with, whatever its area. */
export const PLATFORM_ERRORS = defineErrors({
  validationFailed: { code: '100207', status: 400, message: 'The request is invalid.' },
  idempotencyKeyInvalid: {
    code: '100301',
    status: 400,
    message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
  },
  idempotencyKeyReused: {
    code: '100302',
    status: 409,
    message: 'This Idempotency-Key was used for a different request.',
  },
  idempotencyInProgress: {
    code: '100303',
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
  },
  currencyInvalid: { code: 'EO100102', status: 400, message: 'The currency is not an ISO 4217 currency code.' },
  // An operator's command naming a merchant the database does not have (every operator command, whatever its area).
  merchantNotFound: { code: '100501', status: 404, message: 'Merchant not found.' },
  internal: {
    code: '100901',
    status: 500,
    message: 'Internal error; quote the reference that follows to the operator.',
  },
  unavailable: { code: '100902', status: 503, message: 'The service is shutting down or not ready.' },
  deterministicWriteConflict: {
    code: '100904',
    status: 409,
    message:
      'Another write of this deterministic sandbox merchant drew the same identifiers; its writes go one at a time: retry.',
  },
  busy: {
    code: '100903',
    status: 503,
    message: 'The server is busy with this kind of work; try again in a few seconds.',
  },
});

/** A refusal that the transports map to the envelope; domain code throws these and knows nothing of HTTP. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly definition: ErrorDefinition,
    detail?: string,
  ) {
    super(detail ?? definition.message);
  }
}

/**
 * A field the request got wrong, in the envelope's one refusal for bad input: `invalid('amount', 'must be positive')`.
 */
export function invalid(field: string, why: string): AppError {
  return new AppError(PLATFORM_ERRORS.validationFailed, `${field} ${why}.`);
}

/** Whether `error` is the refusal `definition` (or one of several). */
export function isAppError(error: unknown, ...definitions: ErrorDefinition[]): error is AppError {
  return error instanceof AppError && (definitions.length === 0 || definitions.includes(error.definition));
}

/** The envelope's integer `code`: the numeric code itself, or the HTTP status for text codes. */
export function envelopeCode(definition: ErrorDefinition): number {
  return /^\d+$/.test(definition.code) ? Number(definition.code) : definition.status;
}
