import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { getCustomer } from '../customers/index.js';
import { chargeableToken, DEFAULT_TOKENS } from '../payment-tokens/index.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { currencyOf } from '../platform/money/money.js';
import { cancelNow, scheduleRefundCredit } from './cancellation.js';
import { scheduleBilling, startWaitingPlan } from './engine.js';
import { RECURRING_ERRORS } from './errors.js';
import { type CycleInput, readCycles } from './plans.js';
import { nextBillingTime } from './schedule.js';
import type { AddCyclesBody, CancelPlanBody, UpdatePlanBody } from './schemas.js';
import { findPlan, insertCycles, type PlanRow, updatePlan } from './store.js';
import { type PlanView, readPlanView } from './view.js';

// Changes to a plan after it is made: cancel and recover, its settings, more cycles (docs/recurring.md).

export type CancelInput = Static<typeof CancelPlanBody>;
export type PlanChanges = Static<typeof UpdatePlanBody>['plan'];
export type AddedCycles = Static<typeof AddCyclesBody>['cycles'];

/** The plan, locked, for a change: another merchant's (or no) plan is not found, an ended one refused. */
async function activePlan(tx: Context, id: string): Promise<PlanRow> {
  const plan = isUuid(id) ? await findPlan(tx.db, tx.merchant.id, id, true) : undefined;
  if (!plan) throw new AppError(RECURRING_ERRORS.planNotFound);
  if (plan.state !== 'active' && plan.state !== 'awaiting_token')
    throw new AppError(RECURRING_ERRORS.planEnded, `The plan is ${plan.state}.`);
  return plan;
}

async function reread(tx: Context, id: string): Promise<PlanView> {
  return readPlanView(tx, (await findPlan(tx.db, tx.merchant.id, id))!);
}

/**
 * `immediate`: the plan stops now (cancellation.ts `cancelNow`), and with `refund_credit` the unused days of the
 * current paid period are refunded by a job (at once, or after the next settlement). `next_billing_date`: the plan
 * stops at its next billing time (retries before it still run); asked again, the pending time stands.
 */
export async function cancelPlan(ctx: Context, id: string, input: CancelInput): Promise<PlanView> {
  return inTransaction(
    ctx,
    async (tx) => {
      const plan = await activePlan(tx, id);
      const now = tx.clock.now().getTime();
      const view = await readPlanView(tx, plan);
      // A plan awaiting its token has no billing time to stop at: either way it stops now.
      if (input.activate_type === 'next_billing_date' && plan.state === 'active') {
        if (plan.cancel_at !== null) return view;
        const cancelAt = Math.max(nextBillingTime(view, tx.merchant.timezone) ?? now, now);
        await updatePlan(tx.db, tx.merchant.id, plan.id, { cancel_at: cancelAt, updated_at: now });
        await scheduleBilling(tx, await reread(tx, plan.id));
        return reread(tx, plan.id);
      }
      const after = await cancelNow(tx, view, now);
      if (input.refund_credit === true) await scheduleRefundCredit(tx, view, now);
      return after;
    },
    { completesRequest: true },
  );
}

/** Undoes a pending `next_billing_date` cancellation before it takes effect: billing goes on as before. */
export async function recoverPlan(ctx: Context, id: string): Promise<PlanView> {
  return inTransaction(
    ctx,
    async (tx) => {
      const plan = isUuid(id) ? await findPlan(tx.db, tx.merchant.id, id, true) : undefined;
      if (!plan) throw new AppError(RECURRING_ERRORS.planNotFound);
      const now = tx.clock.now().getTime();
      if (plan.state !== 'active' || plan.cancel_at === null || plan.cancel_at <= now) {
        throw new AppError(
          RECURRING_ERRORS.planNotRecoverable,
          plan.state === 'cancelled' ? 'The cancellation has taken effect: the plan is cancelled.' : undefined,
        );
      }
      await updatePlan(tx.db, tx.merchant.id, plan.id, { cancel_at: null, updated_at: now });
      await scheduleBilling(tx, await reread(tx, plan.id));
      return reread(tx, plan.id);
    },
    { completesRequest: true },
  );
}

/**
 * Changes a plan's settings; an omitted field keeps its value. They apply from now on: to the orders generated next
 * (note), the next charges (token) and the next failures (retry settings); retries already set keep their time.
 */
export async function updatePlanSettings(ctx: Context, id: string, changes: PlanChanges): Promise<PlanView> {
  return inTransaction(
    ctx,
    async (tx) => {
      const plan = await activePlan(tx, id);
      const now = tx.clock.now().getTime();
      const patch: Partial<PlanRow> = {};
      if (changes.name !== undefined) patch.name = changes.name;
      if (changes.note !== undefined) patch.note = changes.note;
      if (changes.payment_retry_count !== undefined) patch.payment_retry_count = changes.payment_retry_count;
      if (changes.payment_retry_day_period !== undefined)
        patch.payment_retry_day_period = changes.payment_retry_day_period;
      if (changes.default_payment_token !== undefined) {
        if (changes.default_payment_token === null) {
          const customer = await getCustomer(tx, plan.customer_id);
          if (!(await DEFAULT_TOKENS.present(tx, customer))) throw new AppError(RECURRING_ERRORS.planTokenMissing);
        } else {
          await chargeableToken(tx, changes.default_payment_token, plan.customer_id);
        }
        patch.payment_token = changes.default_payment_token;
      }
      await updatePlan(tx.db, tx.merchant.id, plan.id, { ...patch, updated_at: now });
      // A token given to a plan awaiting one starts it, as a card binding would.
      if (plan.state === 'awaiting_token' && typeof changes.default_payment_token === 'string') {
        await startWaitingPlan(tx, { ...plan, ...patch }, changes.default_payment_token);
      }
      return reread(tx, plan.id);
    },
    { completesRequest: true },
  );
}

/**
 * Appends cycles after the plan's last, by the rules of a new plan's cycles: the plan's currency, every cycle but
 * the new last with an end. The current last cycle must end (else the added ones would never start) and must not
 * be over.
 */
export async function addCycles(ctx: Context, id: string, added: AddedCycles): Promise<PlanView> {
  return inTransaction(
    ctx,
    async (tx) => {
      const plan = await activePlan(tx, id);
      const now = tx.clock.now().getTime();
      const view = await readPlanView(tx, plan);
      const last = view.cycles.at(-1)!.cycle;
      // The cycles sent are read (their items and configs looked up) before the plan's state is judged: an unknown
      // item is 500101 whatever the plan, as on every other route.
      const { cycles, cycleItems } = await readCycles(tx, added as CycleInput[], now, {
        field: 'cycles',
        firstPosition: last.position + 1,
        currency: currencyOf(plan.currency),
        planStart: view.cycles[0]!.cycle.start_at ?? now,
      });
      if (last.estimated_end_at === null && last.interval_counts === null) {
        throw new AppError(
          PLATFORM_ERRORS.validationFailed,
          "cycles: the plan's last cycle never ends (no estimated_end_date or interval_counts), so a cycle after it would never start.",
        );
      }
      if (last.state !== 'active' && last.state !== 'pending') {
        throw new AppError(
          PLATFORM_ERRORS.validationFailed,
          `cycles: the plan's last cycle is ${last.state}; no cycle can start after it.`,
        );
      }
      for (const cycle of cycles) cycle.plan_id = plan.id;
      await insertCycles(tx.db, cycles, cycleItems);
      await updatePlan(tx.db, tx.merchant.id, plan.id, { updated_at: now });
      const after = await reread(tx, plan.id);
      await scheduleBilling(tx, after);
      return reread(tx, plan.id);
    },
    { completesRequest: true },
  );
}
