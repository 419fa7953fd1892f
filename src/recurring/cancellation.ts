import type { Context } from '../context/context.js';
import { checkOrder, ORDER_ERRORS, refundTransaction, voidOrder } from '../orders/index.js';
import { AppError, isAppError } from '../platform/errors.js';
import { formatAmount } from '../platform/money/money.js';
import { nextLocalHour } from '../platform/time-zone.js';
import type { PayloadOf } from '../scheduler/job-types.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { refundCredit } from './calendar.js';
import { emitPlanEvent } from './events.js';
import { findPlan, updateBilling, updateCycle, updatePlan } from './store.js';
import { type PlanView, readPlanView } from './view.js';

/**
 * A plan cancelled, now (`immediate`) or by the engine at a pending `next_billing_date` cancellation: the active and
 * later cycles are cancelled, a generated order still unpaid (a billing in retry, or charging with no payment made
 * yet) is voided and its billing cancelled, and the plan stops. In the caller's transaction.
 *
 * A billing whose order has a payment pending at the acquirer cannot be voided (`400107` from the orders verb): the
 * cancellation is refused as a whole, and can be sent again once the charge is answered.
 */
export async function cancelNow(tx: Context, view: PlanView, now: number): Promise<PlanView> {
  const { plan } = view;
  for (const billing of view.billings.filter((row) => row.state === 'retry' || row.state === 'charging')) {
    if (billing.order_number !== null) {
      try {
        await voidOrder(tx, { number: billing.order_number });
      } catch (error) {
        // Voided already (by the merchant): the billing is cancelled all the same.
        if (!isAppError(error, ORDER_ERRORS.orderVoided)) throw error;
      }
    }
    await updateBilling(tx.db, tx.merchant.id, billing.id, { state: 'cancelled', retry_at: null, updated_at: now });
  }
  for (const { cycle } of view.cycles) {
    if (cycle.state === 'active')
      await updateCycle(tx.db, tx.merchant.id, cycle.id, { state: 'cancelled', end_at: now, updated_at: now });
    else if (cycle.state === 'pending')
      await updateCycle(tx.db, tx.merchant.id, cycle.id, { state: 'cancelled', updated_at: now });
  }
  await updatePlan(tx.db, tx.merchant.id, plan.id, {
    state: 'cancelled',
    next_due_at: null,
    cancel_at: null,
    updated_at: now,
  });
  const after = await readPlanView(tx, (await findPlan(tx.db, tx.merchant.id, plan.id))!);
  await emitPlanEvent(tx, 'recurring.plan_cancelled', { view: after });
  return after;
}

export const REFUND_CREDIT_JOB = 'recurring.refund_credit';

/** How long the refund's idempotency key answers a re-run of its job: far longer than any retry of it. */
const REFUND_KEY_TTL_MS = 90 * 24 * 60 * 60 * 1000;

type RefundCreditPayload = PayloadOf<'recurring.refund_credit'>;

/**
 * The credit of an immediate cancellation with `refund_credit`: the unused whole days of the current paid period
 * (calendar.ts `refundCredit`), as a refund of that period's order's sale. Scheduled as due work in the caller's
 * transaction, keyed by the plan so it is scheduled once: a sale is refundable only once settled, so the job runs at
 * once when it is, else just after the merchant's next settlement. Answers the credit (0 when nothing is refunded).
 */
export async function scheduleRefundCredit(tx: Context, view: PlanView, now: number): Promise<number> {
  const period = view.billings
    .filter((billing) => billing.state === 'paid' && billing.order_number !== null && billing.period_end > now)
    .at(-1);
  if (!period) return 0;
  const credit = Number(
    refundCredit(period.period_start, period.period_end, now, tx.merchant.timezone, BigInt(period.amount)),
  );
  if (credit <= 0) return 0;
  const sale = await paidSale(tx, period.order_number!);
  if (!sale) return 0;
  const dueAt = sale.settled_at !== null ? now : afterNextSettlement(tx, now);
  const payload: RefundCreditPayload = { planId: view.plan.id, orderNumber: period.order_number!, amount: credit };
  await scheduleJob(tx, {
    kind: REFUND_CREDIT_JOB,
    merchantId: tx.merchant.id,
    dueAt,
    payload,
    dedupeKey: `${REFUND_CREDIT_JOB}:${view.plan.id}`,
  });
  return credit;
}

/**
 * The job: refunds the credit, under an idempotency key of the plan so a re-run (after a crash) answers the same
 * refund.
 */
export async function runRefundCredit(ctx: Context, payload: RefundCreditPayload): Promise<void> {
  const { planId, orderNumber, amount } = payload;
  const now = ctx.clock.now().getTime();
  const sale = await paidSale(ctx, orderNumber);
  if (!sale) return;
  if (sale.settled_at === null) {
    // Not settled yet (the job ran before the settlement it waits for): after the next one.
    const dueAt = afterNextSettlement(ctx, now);
    await scheduleJob(ctx, {
      kind: REFUND_CREDIT_JOB,
      merchantId: ctx.merchant.id,
      dueAt,
      payload,
      dedupeKey: `${REFUND_CREDIT_JOB}:${planId}:${dueAt}`,
    });
    return;
  }
  const plan = await findPlan(ctx.db, ctx.merchant.id, planId);
  if (!plan) return;
  const keyed: Context = {
    ...ctx,
    idempotency: {
      key: `recurring-refund-credit:${planId}`,
      expiresAt: ctx.wallClock.now().getTime() + REFUND_KEY_TTL_MS,
    },
  };
  try {
    await refundTransaction(
      keyed,
      { order: { number: orderNumber }, transactionId: sale.id },
      {
        amount: formatAmount(amount, plan.currency_exponent),
        note: `Refund credit: plan ${plan.reference_number} cancelled`,
      },
    );
  } catch (error) {
    // Refused (refunded already by the merchant, say): logged, not retried; no answer from the acquirer is retried.
    if (error instanceof AppError && error.definition.status < 500) {
      ctx.log.warn(
        { planId, orderNumber, code: error.definition.code, message: error.message },
        'refund credit refused',
      );
      return;
    }
    throw error;
  }
}

/** The refund given up on: it is asked for again an hour later, under the same idempotency key (so never twice). */
export async function refundCreditAgainLater(ctx: Context, payload: RefundCreditPayload): Promise<void> {
  const dueAt = ctx.clock.now().getTime() + 60 * 60_000;
  await scheduleJob(ctx, {
    kind: REFUND_CREDIT_JOB,
    merchantId: ctx.merchant.id,
    dueAt,
    payload,
    dedupeKey: `${REFUND_CREDIT_JOB}:${payload.planId}:${dueAt}`,
  });
}

/** The successful, unvoided sale that paid a generated order. */
async function paidSale(ctx: Context, orderNumber: string) {
  const order = await checkOrder(ctx, { order: { number: orderNumber } });
  return order.transactions.find((t) => t.type === 'Sales' && t.status === 'succeeded' && t.voided === 0);
}

/** A second after the merchant's next daily settlement (the settlement job runs at the hour itself). */
function afterNextSettlement(ctx: Context, now: number): number {
  return nextLocalHour(now, ctx.merchant.settlementHour, ctx.merchant.timezone) + 1000;
}
