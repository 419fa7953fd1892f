import { findMerchant, listMerchants, toMerchant } from '../platform/tenants.js';
import { inTransaction, merchantContext, type Context, type PlatformContext } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { scheduleJob, type Scheduler } from '../scheduler/scheduler.js';
import { beginVoid, finishVoid, voidReference, voidRefusal } from './adjustments.js';
import { OVERDUE_JOB } from './create-order.js';
import { refreshOrder } from './lookup.js';
import { emitOrderEvent } from './events.js';
import {
  applyCapture,
  applyPayment,
  applyRefund,
  applyVoid,
  EXPIRE_AUTHORIZATION_JOB,
  EXPIRE_PAYER_ACTION_JOB,
  recordRailAnswer,
} from './outcomes.js';
import { expirePayerAction } from './payments.js';
import { paymentActivity } from './queries.js';
import { scheduleNextSettlement, settle, SETTLE_JOB } from './settlement.js';
import { findOrder, lockOrderOfTransaction } from './store.js';
import { findTransaction, interruptedTransactions, orderTransactions, type TransactionRow } from './transactions-store.js';
import { ORDER_ERRORS } from './errors.js';

export const RECOVER_JOB = 'orders.recover_interrupted';
/** An overdue order with a payment still pending is looked at again this much later. */
const OVERDUE_RECHECK_MS = 15 * 60 * 1000;

/** `recoveryAfterMs`: how old a rail call with no recorded answer must be to count as interrupted. */
export function registerOrderJobs(scheduler: Scheduler, options: { recoveryAfterMs: number }): void {
  scheduler.registerMerchantJob(SETTLE_JOB, (ctx, payload) => settle(ctx, payload));
  scheduler.registerMerchantJob(EXPIRE_AUTHORIZATION_JOB, (ctx, payload) => expireAuthorization(ctx, payload as { transactionId: string }));
  scheduler.registerMerchantJob(EXPIRE_PAYER_ACTION_JOB, (ctx, payload) => expirePayerAction(ctx, payload as { transactionId: string }));
  scheduler.registerMerchantJob(OVERDUE_JOB, (ctx, payload) => voidOverdueOrder(ctx, payload as { orderId: string }));
  scheduler.registerPlatformJob(RECOVER_JOB, async (ctx) => {
    await recoverInterrupted(ctx, ctx.wallClock.now().getTime() - options.recoveryAfterMs);
  }, { everyMs: options.recoveryAfterMs });
}

/**
 * Before a process takes requests: every merchant has its next settlement scheduled (merchants made before
 * settlement existed, too). On SQLite the data-folder lock guarantees the previous process is gone, so whatever
 * it left in flight (calls started before this process did) is recovered now, without waiting; on PostgreSQL
 * other processes may be mid-call, so the periodic job waits until such calls are old enough.
 */
export async function recoverAtStart(platform: PlatformContext, startedAt: number): Promise<void> {
  for (const row of await listMerchants(platform.db)) await scheduleNextSettlement(platform, toMerchant(row));
  if (platform.database.engine === 'sqlite') await recoverInterrupted(platform, startedAt);
}

/** An authorisation still open when its seven days are over is released at the acquirer and voided as expired. */
async function expireAuthorization(ctx: Context, payload: { transactionId: string }): Promise<void> {
  const voiding = await inTransaction(ctx, async (tx) => {
    const order = await lockOrderOfTransaction(tx.db, tx.merchant.id, payload.transactionId);
    const transaction = order && (await findTransaction(tx.db, tx.merchant.id, payload.transactionId));
    if (!order || !transaction || transaction.type !== 'Authorization') return undefined;
    // Captured, being captured, voided, being voided: the same rules as a merchant's void decide.
    if (voidRefusal(transaction, await orderTransactions(tx.db, tx.merchant.id, order.id))) return undefined;
    return beginVoid(tx, order, transaction, 'expired');
  });
  if (!voiding) return;
  try {
    await finishVoid(ctx, voiding);
  } catch (error) {
    // The acquirer refused to release it (its answer is recorded): nothing more to do here.
    if (!(error instanceof AppError && error.definition === ORDER_ERRORS.transactionNotVoidable)) throw error;
  }
}

/**
 * An order still unpaid when its due date is over is voided. One with a payment still pending (a challenge, a
 * call in flight) is looked at again later: if that payment fails, the order is still overdue.
 */
async function voidOverdueOrder(ctx: Context, payload: { orderId: string }): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const order = await findOrder(tx.db, tx.merchant.id, { id: payload.orderId }, true);
    if (!order || order.voided_at !== null) return;
    const activity = paymentActivity(await orderTransactions(tx.db, tx.merchant.id, order.id));
    if (activity === 'none') {
      await emitOrderEvent(tx, 'order.voided', await refreshOrder(tx, order, { voidedAt: tx.clock.now().getTime() }));
    } else if (activity === 'pending') {
      const dueAt = tx.clock.now().getTime() + OVERDUE_RECHECK_MS;
      await scheduleJob(tx, { kind: OVERDUE_JOB, merchantId: tx.merchant.id, dueAt, payload, dedupeKey: `${OVERDUE_JOB}:${order.id}:${dueAt}` });
    }
  });
}

/**
 * Settles what a stopped (or stalled) process left between its two commits: asks the acquirer what became of
 * each call, cancelling it there if it never arrived, and records that answer as the request would have. One
 * transaction that cannot be recovered now (the acquirer is down) is logged and tried again next time.
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
      try {
        const merchant = await findMerchant(platform.db, transaction.merchant_id);
        if (!merchant) continue;
        const ctx = merchantContext(platform, merchant, { kind: 'system', job: RECOVER_JOB }, `recovery:${transaction.id}`);
        await recordRailAnswer(ctx, transaction.id, await recoveryFor(ctx, transaction), { completesRequest: false });
        platform.log.warn({ transaction_id: transaction.id, merchant_id: merchant.id }, 'recovered an interrupted transaction');
        recovered += 1;
      } catch (error) {
        platform.log.error({ err: error, transaction_id: transaction.id }, 'recovery of an interrupted transaction failed; will try again');
      }
    }
  }
}

async function recoveryFor(ctx: Context, transaction: TransactionRow) {
  const acquirer = ctx.rails.acquirer!;
  const operation = { merchantId: ctx.merchant.id, amount: transaction.amount, currency: transaction.currency };
  if (transaction.void_is_pending === 1) {
    return applyVoid(await acquirer.resolve({ ...operation, reference: voidReference(transaction.id), kind: 'void' }));
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
