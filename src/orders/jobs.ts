import { findMerchant, listMerchants, toMerchant } from '../merchants/store.js';
import { inTransaction, merchantContext, type Context, type PlatformContext } from '../platform/context.js';
import { AppError } from '../platform/errors.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { beginVoid, finishVoid, voidReference } from './adjustments.js';
import { OVERDUE_JOB } from './create-order.js';
import { applyCapture, applyPayment, applyRefund, applyVoid, EXPIRE_AUTHORIZATION_JOB, recordRailAnswer } from './outcomes.js';
import { voidOrder } from './queries.js';
import { scheduleNextSettlement, settle, SETTLE_JOB } from './settlement.js';
import { findOrder } from './store.js';
import { findTransaction, interruptedTransactions, type TransactionRow } from './transactions-store.js';

export const RECOVER_JOB = 'orders.recover_interrupted';

/** `recoveryAfterMs`: how old a rail call with no recorded answer must be to count as interrupted. */
export function registerOrderJobs(scheduler: Scheduler, options: { recoveryAfterMs: number }): void {
  scheduler.registerMerchantJob(SETTLE_JOB, (ctx, payload) => settle(ctx, payload));
  scheduler.registerMerchantJob(EXPIRE_AUTHORIZATION_JOB, (ctx, payload) => expireAuthorization(ctx, payload as { transactionId: string }));
  scheduler.registerMerchantJob(OVERDUE_JOB, (ctx, payload) => voidOverdueOrder(ctx, payload as { orderId: string }));
  scheduler.registerPlatformJob(RECOVER_JOB, async (ctx) => {
    await recoverInterrupted(ctx, ctx.wallClock.now().getTime() - options.recoveryAfterMs);
  }, { everyMs: options.recoveryAfterMs });
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

/**
 * Settles what a stopped (or stalled) process left between its two commits: asks the acquirer what became of
 * each call, cancelling it there if it never arrived, and records that answer as the request would have.
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
  const operation = { merchantId: ctx.merchant.id, amount: transaction.amount, currency: transaction.currency };
  if (transaction.void_is_pending === 1) {
    return applyVoid(await acquirer.resolve({ ...operation, reference: voidReference(transaction.id), kind: 'void' }), 'merchant');
  }
  const kind = transaction.type === 'Capture' ? 'capture' : transaction.type === 'Refund' ? 'refund' : 'authorize';
  const result = await acquirer.resolve({ ...operation, reference: transaction.id, kind });
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
