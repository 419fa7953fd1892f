import { type Context, inTransaction } from '../context/context.js';
import { AppError, isAppError } from '../platform/errors.js';
import type { AcquirerResult, CardAcquirer } from '../rails/acquirer.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { ORDER_ERRORS } from './errors.js';
import { emitOrderEvent, type OrderAction } from './events.js';
import { postTransactionChange } from './ledger-postings.js';
import { buildPaymentData, inheritedCard, storedPayerAction } from './payment-data.js';
import type { OrderView } from './present.js';
import { refreshOrder } from './refresh-order.js';
import { lockOrderOfTransaction, type OrderRow } from './store.js';
import { findTransaction, setTransaction, type TransactionRow } from './transactions-store.js';

export const EXPIRE_AUTHORIZATION_JOB = 'orders.expire_authorization';
/** An uncaptured authorisation lapses after seven days. */
export const AUTHORIZATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const EXPIRE_PAYER_ACTION_JOB = 'orders.expire_payer_action';
/**
 * How long a payer has to pass a 3-D Secure challenge or pay in a wallet before the payment fails as abandoned.
 */
export const PAYER_ACTION_LIFETIME_MS = 15 * 60 * 1000;

export interface TransactionOutcome {
  view: OrderView;
  transaction: TransactionRow;
}

type Apply = (ctx: Context, order: OrderRow, transaction: TransactionRow) => Promise<void>;

/**
 * The second phase of every rail operation: locks the order, and records the rail's answer unless it was
 * recorded already (by crash recovery, or a retry). Normally it ends the request, so with an Idempotency-Key
 * the reply is stored with it; a caller about to refuse the request says so, and the refusal is stored instead.
 */
export function recordRailAnswer(
  ctx: Context,
  transactionId: string,
  apply: Apply,
  options: { completesRequest: boolean; onlyIfAwaited?: boolean } = { completesRequest: true },
): Promise<TransactionOutcome> {
  return inTransaction(
    ctx,
    async (tx) => {
      const order = await lockOrderOfTransaction(tx.db, tx.merchant.id, transactionId);
      const transaction = order && (await findTransaction(tx.db, tx.merchant.id, transactionId));
      if (!order || !transaction) throw new Error(`transaction ${transactionId} vanished`);
      if (!awaitsRail(transaction)) {
        if (options.onlyIfAwaited) throw new AppError(ORDER_ERRORS.transactionNotPending);
        return outcomeOf(tx, order, transactionId);
      }
      await apply(tx, order, transaction);
      const outcome = await outcomeOf(tx, order, transactionId);
      const action = eventOf(transaction, outcome.transaction);
      if (action) await emitOrderEvent(tx, action, outcome.view);
      await postTransactionChange(tx, transaction, outcome.transaction);
      return outcome;
    },
    { completesRequest: options.completesRequest },
  );
}

/**
 * A retry of the request that made an operation (its reply lost, or its Idempotency-Key's claim run out while the
 * first request was still at the rail): the transaction as it stands once the rail's answer is recorded. Until
 * then the first request is still out, or recovery has yet to ask the rail, and the transaction's status is not
 * its outcome: a 5xx that leaves the key free, so that the retry is sent again rather than stored with a pending
 * answer that a success would later contradict.
 */
export async function answerRetry(ctx: Context, transactionId: string): Promise<TransactionOutcome> {
  // A request sent twice at once mostly finds the first still at the acquirer for a few milliseconds: it waits for
  // that answer a little before it gives up with the 5xx.
  for (let waited = 0; ; waited += RETRY_POLL_MS) {
    try {
      return await recordRailAnswer(ctx, transactionId, async (_ctx, _order, transaction) => {
        if (transaction.progress === 'sending') throw new AppError(RAIL_ERRORS.acquirerNoAnswer);
      });
    } catch (error) {
      if (!isAppError(error, RAIL_ERRORS.acquirerNoAnswer) || waited >= RETRY_WAIT_MS) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_POLL_MS));
  }
}

/** How long a retry waits for the first request's answer from the acquirer, and how often it looks. */
const RETRY_WAIT_MS = 5_000;
const RETRY_POLL_MS = 50;

export async function outcomeOf(ctx: Context, order: OrderRow, transactionId: string): Promise<TransactionOutcome> {
  const view = await refreshOrder(ctx, order);
  return { view, transaction: view.transactions.find((t) => t.id === transactionId)! };
}

/**
 * The webhook a transaction's change makes: a payment or capture that went through pays the order, an
 * authorisation authorises it, a payment that failed is a payment failure, a refund refunds, a void voids the
 * transaction. Nothing for a payment still waiting for its payer, a refused void or a failed refund (the order
 * did not change).
 */
export function eventOf(before: TransactionRow, after: TransactionRow): OrderAction | undefined {
  if (before.voided === 0 && after.voided === 1) return 'transaction.voided';
  if (before.status !== 'pending' || after.status === 'pending') return undefined;
  if (after.status === 'succeeded') {
    return after.type === 'Authorization'
      ? 'order.authorized'
      : after.type === 'Refund'
        ? 'order.refunded'
        : 'order.paid';
  }
  return after.type === 'Refund' ? undefined : 'order.payment_failure';
}

/** Still waiting for the rail (or for the cardholder's challenge, which the rail reports). */
export function awaitsRail(transaction: TransactionRow): boolean {
  return transaction.progress !== 'done' || transaction.void_is_pending === 1;
}

/** The answer to a sale or an authorisation (also the end of a 3-D Secure challenge or a wallet payment). */
export function applyPayment(acquirer: CardAcquirer, result: AcquirerResult): Apply {
  return async (ctx, _order, transaction) => {
    const now = ctx.clock.now().getTime();
    const approved = result.status === 'approved';
    const awaiting = result.status === 'awaiting_payer';
    const paymentData = buildPaymentData({
      transactionId: transaction.id,
      merchantId: ctx.merchant.id,
      acquirer,
      method: transaction.payment_method,
      card: inheritedCard(transaction.payment_data),
      result,
    });
    const authorisation = approved && transaction.type === 'Authorization';
    const expiresAt = authorisation
      ? now + AUTHORIZATION_LIFETIME_MS
      : awaiting
        ? now + PAYER_ACTION_LIFETIME_MS
        : null;
    await setTransaction(ctx.db, ctx.merchant.id, transaction.id, {
      status: approved ? 'succeeded' : awaiting ? 'pending' : 'failed',
      progress: awaiting ? 'awaiting_payer' : 'done',
      captured: approved && transaction.type === 'Sales' ? 1 : 0,
      expires_at: expiresAt,
      payer_action: awaiting && result.payerAction ? JSON.stringify(storedPayerAction(result.payerAction)) : null,
      payment_data: JSON.stringify(paymentData),
      updated_at: now,
    });
    if (authorisation) {
      await scheduleJob(ctx, {
        kind: EXPIRE_AUTHORIZATION_JOB,
        merchantId: ctx.merchant.id,
        dueAt: expiresAt!,
        payload: { transactionId: transaction.id },
        dedupeKey: `${EXPIRE_AUTHORIZATION_JOB}:${transaction.id}`,
      });
    }
    if (awaiting) {
      // Recovery may put a payment back to awaiting the payer, with a later deadline: one job per deadline.
      await scheduleJob(ctx, {
        kind: EXPIRE_PAYER_ACTION_JOB,
        merchantId: ctx.merchant.id,
        dueAt: expiresAt!,
        payload: { transactionId: transaction.id },
        dedupeKey: `${EXPIRE_PAYER_ACTION_JOB}:${transaction.id}:${expiresAt}`,
      });
    }
  };
}

/** The answer to a capture: the capture succeeds or fails; a successful one marks its authorisation captured. */
export function applyCapture(acquirer: CardAcquirer, result: AcquirerResult): Apply {
  return async (ctx, _order, capture) => {
    const approved = result.status === 'approved';
    await applyFollowUp(ctx, capture, acquirer, result);
    if (approved && capture.original_transaction_id !== null) {
      await setTransaction(ctx.db, ctx.merchant.id, capture.original_transaction_id, {
        captured: 1,
        updated_at: ctx.clock.now().getTime(),
      });
    }
  };
}

/** The answer to a refund. */
export function applyRefund(acquirer: CardAcquirer, result: AcquirerResult): Apply {
  return (ctx, _order, refund) => applyFollowUp(ctx, refund, acquirer, result);
}

async function applyFollowUp(
  ctx: Context,
  transaction: TransactionRow,
  acquirer: CardAcquirer,
  result: AcquirerResult,
): Promise<void> {
  const approved = result.status === 'approved';
  await setTransaction(ctx.db, ctx.merchant.id, transaction.id, {
    status: approved ? 'succeeded' : 'failed',
    progress: 'done',
    captured: approved && transaction.type === 'Capture' ? 1 : 0,
    payment_data: JSON.stringify(
      buildPaymentData({
        transactionId: transaction.id,
        merchantId: ctx.merchant.id,
        acquirer,
        method: transaction.payment_method,
        card: inheritedCard(transaction.payment_data),
        result,
      }),
    ),
    updated_at: ctx.clock.now().getTime(),
  });
}

/**
 * The answer to a void: approved, the transaction is voided (for the reason its void began with); refused, it
 * stands as it was.
 */
export function applyVoid(result: AcquirerResult): Apply {
  return async (ctx, _order, transaction) => {
    const now = ctx.clock.now().getTime();
    const approved = result.status === 'approved';
    await setTransaction(ctx.db, ctx.merchant.id, transaction.id, {
      void_is_pending: 0,
      ...(approved ? { voided: 1, voided_at: now } : { void_reason: null, void_idempotency_key: null }),
      updated_at: now,
    });
  };
}
