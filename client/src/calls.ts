/** What one call may add to the client's defaults. */
export interface RequestOptions {
  /** Makes a POST or PUT safe to retry: paygate runs it at most once and replays the reply. */
  idempotencyKey?: string;
  requestId?: string;
  headers?: Record<string, string>;
  /** Send these exact bytes instead of `JSON.stringify(body)`. */
  rawBody?: string | Uint8Array;
  /** The media type of `rawBody` when it is not JSON (a batch file: text/csv). */
  contentType?: string;
  /** Per attempt, for this request: the client's `timeoutMs` otherwise (a long sandbox clock move takes seconds). */
  timeoutMs?: number;
}

/** What an API section needs of the client: a signed call that answers `data` or throws PaygateError. */
export interface Caller {
  call<T>(method: string, target: string, body?: unknown, options?: RequestOptions): Promise<T>;
}
