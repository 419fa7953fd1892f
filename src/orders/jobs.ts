import { findMerchant, listMerchants, toMerchant } from '../merchants/store.js';
import { inTransaction, merchantContext, type Context, type PlatformContext } from '../platform/context.js';
import { AppError } from '../platform/errors.js';
import type { AcquirerResult } from '../rails/acquirer.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { beginVoid, finishVoid, voidReference } from './adjustments.js';
import { OVERDUE_JOB } from './create-order.js';
import { applyCapture, applyPayment, applyRefund, applyVoid, EXPIRE_AUTHORIZATION_JOB, recordRailAnswer } from './outcomes.js';
import { voidOrder } from './queries.js';
import { scheduleNextSettlement, settle, SETTLE_JOB } from './settlement.js';
import { findOrder } from './store.js';
import { findTransaction, interruptedTransactions, type TransactionRow } from './transactions-store.js';

export const RECOVER_JOB = 'orders.recover_interrupted';
/** A rail call older than this with no recorded answer is taken for interrupted (the call itself times out sooner). */
export const RECOVERY_AFTER_MS = 30_000;

export function registerOrderJobs(scheduler: Scheduler): void {
  scheduler.registerMerchantJob(SETTLE_JOB, (ctx, payload) => settle(ctx, payload));
  scheduler.registerMerchantJob(EXPIRE_AUTHORIZATION_JOB, (ctx, payload) => expireAuthorization(ctx, payload as { transactionId: string }));
  scheduler.registerMerchantJob(OVERDUE_JOB, (ctx, payload) => voidOverdueOrder(ctx, payload as { orderId: string }));
  scheduler.registerPlatformJob(RECOVER_JOB, async (ctx) => {
    await recoverInterrupted(ctx, ctx.wallClock.now().getTime() - RECOVERY_AFTER_MS);
  }, { everyMs: RECOVERY_AFTER_MS });
}

/**
 * At start: every merchant has its next settlement scheduled (merchants made before settlement existed, too).
 * On SQLite the data-folder lock guarantees the previous process is gone, so whatever it left in flight is
 * recovered now, without waiting; on PostgreSQL other processes may be mid-call, so the periodic job waits.
 */
export async function recoverAtStart(platform: PlatformContext): Promise<void> {
  for (const row of await listMerchants(platform.db)) await scheduleNextSettlement(platform, toMerchant(row));
  if (platform.database.engine === 'sqlite') await recoverInterrupted(platform, Number.MAX_SAFE_INTEGER);
}

/** An authorisation still open after seven days is released at the acquirer and voided as expired. */
async function expireAuthorization(ctx: Context, payload: { transactionId: string }): Promise<void> {
  const open = await inTransaction(ctx, async (tx) => {
    const found = await findTransaction(tx.db, tx.merchant.id, payload.transactionId);
    const order = found && (await findOrder(tx.db, tx.merchant.id, { id: found.order_id }, true));
    const transaction = order && (await findTransaction(tx.db, tx.merchant.id, payload.transactionId));
    const stillOpen = transaction && transaction.type === 'Authorization' && transaction.status === 'succeeded' &&
      transaction.voided === 0 && transaction.captured === 0 && transaction.void_is_pending === 0;
    return stillOpen ? beginVoid(tx, order!, transaction) : undefined;
  });
  if (open) await finishVoid(ctx, open, 'expired');
}

/** An order still unpaid, with nothing pending, when its due date is over is voided. */
async function voidOverdueOrder(ctx: Context, payload: { orderId: string }): Promise<void> {
  const order = await findOrder(ctx.db, ctx.merchant.id, { id: payload.orderId });
  if (!order || order.voided_at !== null) return;
  try {
    await voidOrder(ctx, { number: order.number }, 'overdue');
  } catch (error) {
    // Paid or partly paid, or something pending: the due date does not void it.
    if (!(error instanceof AppError && (error.kind === 'orderNotVoidable' || error.kind === 'orderVoided'))) throw error;
  }
}

/** Never reached the acquirer: the platform's record of the call is all there is, and nothing was charged. */
const NOT_SENT: AcquirerResult = {
  status: 'failed', responseCode: '91', responseMessage: 'Interrupted before the acquirer answered; nothing was charged', rrn: '', retryable: true,
};

/**
 * Settles what a stopped process left between its two commits: asks the acquirer what became of each call
 * and records that answer, exactly as the interrupted request would have.
 */
export async function recoverInterrupted(platform: PlatformContext, startedBefore: number): Promise<number> {
  const acquirer = platform.rails.acquirer;
  if (!acquirer) return 0;
  let recovered = 0;
  const tried = new Set<string>();
  for (;;) {
    const batch = (await interruptedTransactions(platform.db, startedBefore, 100)).filter((t) => !tried.has(t.id));
    if (batch.length === 0) return recovered;
    for (const transaction of batch) {
      tried.add(transaction.id);
      const merchant = await findMerchant(platform.db, transaction.merchant_id);
      if (!merchant) continue;
      const ctx = merchantContext(platform, merchant, { kind: 'system', job: RECOVER_JOB }, `recovery:${transaction.id}`);
      await recordRailAnswer(ctx, transaction.id, await recoveryFor(ctx, transaction));
      platform.log.warn({ transaction_id: transaction.id, merchant_id: merchant.id }, 'recovered an interrupted transaction');
      recovered += 1;
    }
  }
}

async function recoveryFor(ctx: Context, transaction: TransactionRow) {
  const acquirer = ctx.rails.acquirer!;
  if (transaction.void_is_pending === 1) {
    return applyVoid((await acquirer.lookup(voidReference(transaction.id))) ?? NOT_SENT, 'merchant');
  }
  const result = (await acquirer.lookup(transaction.id)) ?? NOT_SENT;
  switch (transaction.type) {
    case 'Sales':
    case 'Authorization':
      return applyPayment(acquirer, result);
    case 'Capture':
      return applyCapture(acquirer, result);
    case 'Refund':
      return applyRefund(acquirer, result);
  }
}
