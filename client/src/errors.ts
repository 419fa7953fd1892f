/** A reply of paygate whose envelope carries an error code. */
export class PaygateError extends Error {
  override readonly name = 'PaygateError';

  constructor(
    readonly status: number,
    /** The envelope's `code`: the numeric error code, or the HTTP status for text codes such as `E000002`. */
    readonly code: number,
    /** The envelope's `error_code`: always the code as text. */
    readonly errorCode: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

/** No reply came: the connection failed or timed out (after any retries). */
export class PaygateConnectionError extends Error {
  override readonly name = 'PaygateConnectionError';

  constructor(
    message: string,
    readonly requestId: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The error code of a request whose Idempotency-Key is still being processed: retried, like a 5xx. */
export const IDEMPOTENCY_IN_PROGRESS = '100303';
