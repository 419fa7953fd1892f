/**
 * Minutes to wait before each retry of a delivery that failed in a way worth retrying: 15 retries over 22 h 38 min
 * of business time, never more than 4 hours apart (the interface's clients are promised at most 15 retries within
 * 24 hours, never more than 6 hours apart). Published in docs/webhooks.md; a test keeps the two in step.
 */
export const RETRY_DELAYS_MINUTES = [1, 2, 5, 10, 20, 30, 60, 60, 90, 120, 150, 180, 180, 210, 240] as const;

/** How long the sender waits for a receiver's answer before counting the attempt as timed out. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export type AttemptVerdict = 'delivered' | 'retry' | 'failed';

/**
 * 2xx is delivered; a timeout, a network error, 408, 429 and 5xx are worth retrying; any other answer is final,
 * and so is a request that can never be made (an invalid or forbidden address).
 */
export function judgeAttempt(status: number | undefined, final = false): AttemptVerdict {
  if (status === undefined) return final ? 'failed' : 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'failed';
}

/**
 * After the `attempt`-th attempt (counted from the first attempt or the last redelivery) was worth retrying: the
 * delay before the next, or undefined when the retries are used up.
 */
export function retryDelayMs(attempt: number): number | undefined {
  const minutes = RETRY_DELAYS_MINUTES[attempt - 1];
  return minutes === undefined ? undefined : minutes * 60_000;
}
