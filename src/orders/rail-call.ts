import type { Context } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import type { AcquirerResult, CardAcquirer } from '../rails/acquirer.js';
import { RAIL_ERRORS } from '../rails/errors.js';

export function acquirerOf(ctx: Context): CardAcquirer {
  if (!ctx.rails.acquirer) throw new AppError(RAIL_ERRORS.acquirerUnavailable);
  return ctx.rails.acquirer;
}

/**
 * The middle of every two-phase rail operation: once the pending record is on disk (so recovery can always find
 * what the acquirer did), the acquirer is called with no database transaction open. If it gives no answer, the
 * operation stays pending for recovery and the caller gets a 5xx, which leaves its Idempotency-Key free for the
 * retry that will find the operation by its natural key.
 */
export async function callAcquirer(ctx: Context, transactionId: string, call: () => Promise<AcquirerResult>): Promise<AcquirerResult> {
  await ctx.database.durable();
  try {
    return await call();
  } catch (error) {
    ctx.log.error({ err: error, transaction_id: transactionId }, 'acquirer call failed; left for recovery');
    throw new AppError(RAIL_ERRORS.acquirerNoAnswer);
  }
}
