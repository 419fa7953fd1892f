import Type from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { isAppError } from '../platform/errors.js';
import type { AcquirerResult } from '../rails/acquirer.js';
import { runRailOperation } from '../rails/operation.js';
import { type JobDefinition, merchantJob, scheduleJob } from '../scheduler/scheduler.js';
import { beginVoid, voidOnRail, voidReference } from './adjustments.js';
import { OVERDUE_JOB } from './create-order.js';
import { ORDER_ERRORS } from './errors.js';
import { emitOrderEvent } from './events.js';
import { applyVoid, EXPIRE_AUTHORIZATION_JOB, EXPIRE_PAYER_ACTION_JOB, recordRailAnswer } from './outcomes.js';
import { abandonPayerAction, expirePayerAction } from './payments.js';
import { refreshOrder } from './refresh-order.js';
import { voidRefusal } from './rules.js';
import { SETTLE_JOB, scheduleNextSettlement, settle } from './settlement.js';
import { findOrder, lockOrderOfTransaction } from './store.js';
import { findTransaction, orderTransactions } from './transactions-store.js';
import { paymentActivity } from './void-order.js';

/** An overdue order with a payment still pending is looked at again this much later. */
const OVERDUE_RECHECK_MS = 15 * 60 * 1000;

const SettlePayload = Type.Object({ at: Type.Integer() });
const TransactionPayload = Type.Object({ transactionId: Type.String() });
const OrderPayload = Type.Object({ orderId: Type.String() });

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'orders.settle': typeof SettlePayload;
    'orders.expire_authorization': typeof TransactionPayload;
    'orders.expire_payer_action': typeof TransactionPayload;
    'orders.void_overdue': typeof OrderPayload;
  }
}

/** The work orders leave due on a merchant's business clock. */
export const ORDER_JOBS: JobDefinition[] = [
  merchantJob(SETTLE_JOB, SettlePayload, {
    run: settle,
    // Given up on, the next settlement settles what this one did not (it settles everything made up to its time).
    giveUp: (ctx, { at }) => scheduleNextSettlement(ctx, ctx.merchant, at),
  }),
  merchantJob(EXPIRE_AUTHORIZATION_JOB, TransactionPayload, { run: expireAuthorization, giveUp: lapseAuthorization }),
  merchantJob(EXPIRE_PAYER_ACTION_JOB, TransactionPayload, { run: expirePayerAction, giveUp: abandonPayerAction }),
  // Given up on, the overdue order is voided as the job would have (or looked at again, while a payment is pending).
  merchantJob(OVERDUE_JOB, OrderPayload, { run: voidOverdueOrder, giveUp: voidOverdueOrder }),
];

/** What an authorisation's release records when it was given up on: the hold lapses at the card's issuer on its own. */
const LAPSED: AcquirerResult = {
  status: 'approved',
  responseCode: '00',
  responseMessage: 'Lapsed: released after its seven days without the acquirer',
  rrn: '',
};

/**
 * The expiry given up on: an authorisation still open is recorded voided as expired without waiting for the acquirer
 * (the hold lapses at the issuer after its days, released or not), which is asked to release it once this has
 * committed (best effort). One being captured or voided is left to that.
 */
async function lapseAuthorization(ctx: Context, { transactionId }: { transactionId: string }): Promise<void> {
  const order = await lockOrderOfTransaction(ctx.db, ctx.merchant.id, transactionId);
  const transaction = order && (await findTransaction(ctx.db, ctx.merchant.id, transactionId));
  if (!order || !transaction || transaction.type !== 'Authorization') return;
  if (voidRefusal(transaction, await orderTransactions(ctx.db, ctx.merchant.id, order.id))) return;
  const voiding = await beginVoid(ctx, order, transaction, 'expired');
  await recordRailAnswer(ctx, transactionId, applyVoid(LAPSED), { completesRequest: false });
  ctx.afterCommit?.(
    () =>
      void voidOnRail(ctx)
        .call(voiding)
        .catch((error: unknown) => {
          ctx.log.warn(
            { err: error, transaction_id: transactionId },
            'could not release at the acquirer an authorisation given up on',
          );
        }),
  );
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
    await runRailOperation(ctx, {
      begin: async () => ({ pending: voiding, reference: voidReference(voiding.id) }),
      ...voidOnRail(ctx),
    });
  } catch (error) {
    // The acquirer refused to release it (its answer is recorded): nothing more to do here.
    if (!isAppError(error, ORDER_ERRORS.transactionNotVoidable)) throw error;
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
      await scheduleJob(tx, {
        kind: OVERDUE_JOB,
        merchantId: tx.merchant.id,
        dueAt,
        payload,
        dedupeKey: `${OVERDUE_JOB}:${order.id}:${dueAt}`,
      });
    }
  });
}
