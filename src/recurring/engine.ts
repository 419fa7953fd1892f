import type { Context } from '../context/context.js';
import { getCustomer } from '../customers/index.js';
import {
  type BegunItem,
  type ChargedItem,
  type ChargeOutcome,
  type Charger,
  chargeMany,
  createOrder,
  ORDER_ERRORS,
} from '../orders/index.js';
import { DEFAULT_TOKENS } from '../payment-tokens/index.js';
import type { AppError } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { formatAmount } from '../platform/money/money.js';
import { instantOf, localTime } from '../platform/time-zone.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { type Billing, prorate } from './calendar.js';
import { cancelNow } from './cancellation.js';
import { emitPlanEvent } from './events.js';
import { cycleAmount, nextAction } from './schedule.js';
import {
  type BillingRow,
  duePlanIds,
  findPlan,
  findPlans,
  insertBilling,
  type PlanRow,
  plansAwaitingToken,
  updateBilling,
  updateCycle,
  updatePlan,
} from './store.js';
import { type PlanCycle, type PlanView, readPlanView, readPlanViews } from './view.js';

/**
 * The billing engine. Each plan keeps `next_due_at`, the business time of its next billing, retry or cycle change,
 * and a job on the merchant's clock at that time runs every plan that is due. A plan is moved forward one step at
 * a time, in time order: so moving the sandbox clock three months bills a monthly plan three times, each at its
 * own time, with the retries and cycle changes in between.
 *
 * Plans due together move together, a round of steps at a time: one transaction writes every plan's step (its
 * billing row, its order, the payment recorded pending), the payments are sent once that has committed, and one
 * more transaction records every answer and each plan's next due time. Two commits for a hundred plans, where
 * each plan alone took four.
 *
 * Exactly once: every billing time is a row keyed (plan, cycle, sequence), written with its order and its pending
 * payment under the row's payment.uuid; a step run again after a crash finds the row still charging and pays
 * under the same uuid, which the payment code answers with the payment made instead of charging twice.
 */
export const BILLING_JOB = 'recurring.bill';

/** A charge whose answer is unknown (the acquirer did not answer) is looked at again this much later. */
const PENDING_RECHECK_MS = 5 * 60 * 1000;
/** Plans read, locked and moved forward together. */
const PLANS_PER_ROUND = 100;
/**
 * Rounds of disjoint plans run at once: on PostgreSQL their round trips overlap on several connections; on SQLite
 * one round's transaction runs while another's payments are out.
 */
const ROUNDS_AT_ONCE = 4;
/** A plan behind by years still moves forward, but other plans' turns come between every this many steps. */
const STEPS_PER_TURN = 50;
/** Payments of a round sent to the acquirer at once (their answers overlap; the sandbox's own writes do not). */
const CHARGES_AT_ONCE = 16;

/**
 * The job: every plan of the merchant with work due now, the most overdue first. A plan that cannot be moved
 * forward keeps no other from it: the rest are billed, and the job then fails, to be tried again for that one.
 */
export async function runDuePlans(ctx: Context): Promise<void> {
  const failed = new Map<string, unknown>();
  for (;;) {
    const due = await duePlanIds(
      ctx.db,
      ctx.merchant.id,
      ctx.clock.now().getTime(),
      PLANS_PER_ROUND * ROUNDS_AT_ONCE + failed.size,
    );
    const ids = due.filter((id) => !failed.has(id));
    if (ids.length === 0) break;
    const size = Math.ceil(ids.length / ROUNDS_AT_ONCE);
    const rounds = Array.from({ length: Math.ceil(ids.length / size) }, (_, i) => ids.slice(i * size, (i + 1) * size));
    for (const failures of await Promise.all(rounds.map((round) => advancePlans(ctx, round)))) {
      for (const [planId, error] of failures) {
        ctx.log.error(
          { err: error, plan_id: planId },
          'a recurring plan could not be moved forward; its billing job will try again',
        );
        failed.set(planId, error);
      }
    }
    await yieldToEventLoop();
  }
  const [first] = failed.values();
  if (first !== undefined) {
    throw new Error(
      `${failed.size} plan(s) could not be moved forward, first ${[...failed.keys()][0]}: ${first instanceof Error ? first.message : String(first)}`,
    );
  }
}

/**
 * Moves plans forward through everything due by now, one step of each per round; answers the plans that failed.
 * A plan whose step fails is left behind (the round's others go on: orders' charge round runs them one by one).
 */
async function advancePlans(ctx: Context, planIds: string[]): Promise<Map<string, unknown>> {
  const failed = new Map<string, unknown>();
  let moving = planIds;
  for (let steps = 0; steps < STEPS_PER_TURN && moving.length > 0; steps += 1) {
    const more: string[] = [];
    for (const one of await stepTogether(ctx, moving)) {
      if ('error' in one) failed.set(one.item, one.error);
      else if (one.result) more.push(one.item);
    }
    moving = more;
    await yieldToEventLoop();
  }
  return failed;
}

interface PlanCharge {
  planId: string;
  billing: BillingRow;
  customerId: string;
  /** The plan's own token, tried first on a first attempt. */
  planToken: string | null;
  /** A charge begun by an earlier run whose answer was never recorded: its payment, if made, is the charge. */
  unanswered?: true;
}

/**
 * A plan's step in a round: nothing more due, moved without a charge, or a charge (and its outcome, when decided here).
 */
type Stepped = { kind: 'done' } | { kind: 'moved' } | { kind: 'charge'; charge: PlanCharge; outcome?: Outcome };

/**
 * One round: each plan's step, the payments, the outcomes (orders' charge round). Per plan: whether more is due now.
 */
function stepTogether(ctx: Context, planIds: string[]) {
  return chargeMany<string, Stepped, boolean>(ctx, planIds, {
    atOnce: CHARGES_AT_ONCE,
    begin: beginSteps,
    record: recordOutcomes,
  });
}

/** Every plan's step, and the payment of each charge recorded pending, in the round's first transaction. */
async function beginSteps(
  tx: Context,
  planIds: readonly string[],
  charger: Charger,
): Promise<Array<BegunItem<string, Stepped>>> {
  const now = tx.clock.now().getTime();
  const plans = await findPlans(tx.db, tx.merchant.id, [...planIds], true);
  const due = plans.filter((plan) => plan.next_due_at !== null && plan.next_due_at <= now);
  const stepped: Array<BegunItem<string, Stepped>> = planIds
    .filter((id) => !due.some((plan) => plan.id === id))
    .map((item) => ({ item, step: { kind: 'done' } }));
  for (const view of await readPlanViews(tx, due)) {
    const item = view.plan.id;
    const charge = await step(tx, view, now);
    if (charge === undefined) {
      stepped.push({ item, step: { kind: 'moved' } });
      continue;
    }
    // The payment an earlier run made under this billing's uuid is the charge, whatever the customer's tokens are
    // now: charging again under the uuid with another token would be refused, and counted as a failed attempt while
    // the first payment may yet succeed.
    const made = charge.unanswered ? await charger.resume(charge.billing.payment_uuid!) : undefined;
    if (made) {
      stepped.push({ item, step: { kind: 'charge', charge }, charge: made });
      continue;
    }
    const token = await tokenFor(tx, charge);
    if (token === undefined) {
      stepped.push({
        item,
        step: {
          kind: 'charge',
          charge,
          outcome: { kind: 'failed', reason: 'The customer has no usable payment token.' },
        },
      });
      continue;
    }
    const begun = await charger.charge({
      orderNumber: charge.billing.order_number!,
      uuid: charge.billing.payment_uuid!,
      source: { token },
      capture: true,
    });
    stepped.push({ item, step: { kind: 'charge', charge }, charge: begun });
  }
  return stepped;
}

/** Every charge's outcome recorded on its plan, in the round's last transaction: per plan, whether more is due now. */
async function recordOutcomes(tx: Context, charged: ReadonlyArray<ChargedItem<string, Stepped>>): Promise<boolean[]> {
  const charging = charged.filter(({ step }) => step.kind === 'charge').map(({ item }) => item);
  const views = new Map(
    (await readPlanViews(tx, await findPlans(tx.db, tx.merchant.id, charging, true))).map((view) => [
      view.plan.id,
      view,
    ]),
  );
  const now = tx.clock.now().getTime();
  const more: boolean[] = [];
  for (const { item, step, outcome } of charged) {
    if (step.kind !== 'charge') {
      more.push(step.kind === 'moved');
      continue;
    }
    const view = views.get(item);
    const at = view && (await recordOutcome(tx, step.charge, step.outcome ?? planOutcome(outcome!), view));
    // The plan's next due time as the outcome left it: when it is later than now, no further step is due.
    more.push(!(at === null || (at !== undefined && at > now)));
  }
  return more;
}

/** One step of a plan, in the caller's transaction: a charge to make, or undefined when the step made none. */
async function step(tx: Context, view: PlanView, now: number): Promise<PlanCharge | undefined> {
  const { plan } = view;
  // A charge whose step committed but whose answer was not recorded (a crash, an acquirer that did not answer).
  const unanswered = view.billings.find((billing) => billing.state === 'charging');
  if (unanswered) return { ...chargeOf(plan, unanswered), unanswered: true };
  const action = nextAction(view, tx.merchant.timezone);
  if (!action || action.at > now) {
    await scheduleBilling(tx, view);
    return undefined;
  }
  switch (action.kind) {
    case 'retry': {
      const billing: BillingRow = {
        ...action.billing,
        state: 'charging',
        attempt: action.billing.attempt + 1,
        retry_at: null,
        payment_uuid: paymentUuid(action.billing.id, action.billing.attempt + 1),
        updated_at: now,
      };
      await updateBilling(tx.db, tx.merchant.id, billing.id, billing);
      return chargeOf(plan, billing);
    }
    case 'bill':
      return bill(tx, view, action.entry, action.billing, now);
    case 'end':
      await endCycle(tx, view, action.entry, action.at, now);
      return undefined;
    case 'cancel':
      // A pending next_billing_date cancellation: the plan stops instead of billing.
      await cancelNow(tx, view, now);
      return undefined;
  }
}

/** Writes the billing row and its order (none for a free billing): the charge follows after commit. */
async function bill(
  tx: Context,
  view: PlanView,
  entry: PlanCycle,
  billing: Billing,
  now: number,
): Promise<PlanCharge | undefined> {
  const { plan } = view;
  const full = cycleAmount(entry);
  const amount = billing.kind === 'partial' ? Number(prorate(BigInt(full), billing.days, billing.ofDays)) : full;
  const id = tx.ids.sortable(now);
  const row: BillingRow = {
    id,
    merchant_id: tx.merchant.id,
    plan_id: plan.id,
    cycle_id: entry.cycle.id,
    sequence: billing.sequence,
    billing_at: billing.at,
    period_start: billing.periodStart,
    period_end: billing.periodEnd,
    amount,
    state: amount === 0 ? 'free' : 'charging',
    attempt: amount === 0 ? 0 : 1,
    retry_at: null,
    order_id: null,
    order_number: null,
    payment_uuid: amount === 0 ? null : paymentUuid(id, 1),
    last_error: null,
    created_at: now,
    updated_at: now,
  };
  if (amount > 0) {
    const reference = `${plan.reference_number}-${plan.next_order_seq}`;
    const order = await createOrder(tx, orderInput(view, entry, billing, amount, reference), {
      discountLines: true,
      ...(plan.app_id !== null && { appId: plan.app_id }),
    });
    row.order_id = order.order.id;
    row.order_number = order.order.number;
    await updatePlan(tx.db, tx.merchant.id, plan.id, { next_order_seq: plan.next_order_seq + 1, updated_at: now });
  } else {
    await updateCycle(tx.db, tx.merchant.id, entry.cycle.id, {
      billing_count: entry.cycle.billing_count + 1,
      updated_at: now,
    });
  }
  await insertBilling(tx.db, row);
  if (amount === 0) {
    await scheduleBilling(tx, await readPlanView(tx, (await findPlan(tx.db, tx.merchant.id, plan.id))!));
    return undefined;
  }
  return chargeOf(plan, row);
}

/** The generated order: a Listing line per item, the discount and any proration as negative Charge lines. */
function orderInput(view: PlanView, entry: PlanCycle, billing: Billing, amount: number, reference: string) {
  const { plan } = view;
  const format = (minor: number) => formatAmount(minor, plan.currency_exponent);
  const lines: Array<{ purchasable_type: 'Listing' | 'Charge'; price: string; quantity: number; label: string }> =
    entry.items.map(({ item, quantity }) => ({
      purchasable_type: 'Listing',
      price: format(item.price),
      quantity,
      label: item.label,
    }));
  const discount = entry.cycle.discount_amount;
  if (discount > 0)
    lines.push({ purchasable_type: 'Charge', price: format(-discount), quantity: 1, label: 'Discount' });
  const full = cycleAmount(entry);
  if (amount !== full) {
    const days = billing.kind === 'partial' ? `${billing.days} of ${billing.ofDays} days` : '';
    lines.push({ purchasable_type: 'Charge', price: format(amount - full), quantity: 1, label: `Proration: ${days}` });
  }
  return {
    order: {
      reference_number: reference,
      currency: plan.currency,
      charge_fee: format(amount),
      line_items: lines,
      ...(plan.note !== null && { note: plan.note }),
      ...(plan.redirect_url !== null && { redirect_url: plan.redirect_url }),
    },
    customer_uuid: view.customerUuid,
  };
}

function chargeOf(plan: PlanRow, billing: BillingRow): PlanCharge {
  return { planId: plan.id, billing, customerId: plan.customer_id, planToken: plan.payment_token };
}

const paymentUuid = (billingId: string, attempt: number) => `rb:${billingId}:${attempt}`;

/**
 * `unsent`: the acquirer failed the charge without the card being refused: nothing was charged, and the card was
 * never asked, so it is sent again at once under `resend` (a new uuid, while resends are left) instead of counting as
 * a failed attempt.
 */
type Outcome =
  | { kind: 'paid' }
  | { kind: 'failed'; reason: string }
  | { kind: 'unsent'; reason: string; resend?: string }
  | { kind: 'unknown' };

/** What the charge round's outcome means for a plan. */
function planOutcome(outcome: ChargeOutcome): Outcome {
  switch (outcome.kind) {
    case 'succeeded':
      return { kind: 'paid' };
    case 'declined':
      return { kind: 'failed', reason: 'The charge was declined.' };
    case 'unsent':
      return {
        kind: 'unsent',
        reason: 'The charge failed at the acquirer; nothing was charged.',
        ...(outcome.resend && { resend: outcome.resend.uuid }),
      };
    case 'refused':
      return refusalOutcome(outcome.error);
    case 'awaiting_payer':
    case 'unanswered':
      return { kind: 'unknown' };
  }
}

/**
 * A payment refused before it was made (a deleted token, a voided order, a wallet token in the wrong currency) is a
 * failed attempt, retried like a decline; an order with nothing left to pay is paid; the platform unable to pay
 * now (no acquirer) is an unknown outcome, looked at again later.
 */
function refusalOutcome(error: AppError): Outcome {
  if (error.definition === ORDER_ERRORS.orderNothingToPay) return { kind: 'paid' };
  return error.definition.status >= 500 ? { kind: 'unknown' } : { kind: 'failed', reason: error.message };
}

/**
 * A first attempt charges the plan's token, else the customer's default; a retry the customer's default as it is now.
 */
async function tokenFor(ctx: Context, charge: PlanCharge): Promise<string | undefined> {
  if (charge.billing.attempt <= 1 && charge.planToken !== null) return charge.planToken;
  const customer = await getCustomer(ctx, charge.customerId);
  const fallback = (await DEFAULT_TOKENS.present(ctx, customer))?.token;
  return fallback ?? charge.planToken ?? undefined;
}

/** The charge's outcome on its billing and plan (`view` read in this transaction): the plan's next due time. */
async function recordOutcome(
  tx: Context,
  charge: PlanCharge,
  outcome: Outcome,
  view: PlanView,
): Promise<number | null | undefined> {
  const { plan } = view;
  const billing = view.billings.find((row) => row.id === charge.billing.id);
  // Recorded already (the same step run twice): the first record stands.
  if (billing?.state !== 'charging' || billing.payment_uuid !== charge.billing.payment_uuid) return undefined;
  const now = tx.clock.now().getTime();
  const entry = view.cycles.find(({ cycle }) => cycle.id === billing.cycle_id)!;
  if (outcome.kind === 'paid') {
    await updateBilling(tx.db, tx.merchant.id, billing.id, { state: 'paid', last_error: null, updated_at: now });
    await updateCycle(tx.db, tx.merchant.id, entry.cycle.id, {
      billing_count: entry.cycle.billing_count + 1,
      updated_at: now,
    });
    // The view as these two writes leave it: the most common outcome needs no second read of the plan.
    return scheduleBilling(tx, {
      ...view,
      cycles: view.cycles.map((other) =>
        other === entry ? { ...other, cycle: { ...other.cycle, billing_count: other.cycle.billing_count + 1 } } : other,
      ),
      billings: view.billings.map((other) =>
        other.id === billing.id ? { ...other, state: 'paid', last_error: null } : other,
      ),
    });
  } else if (outcome.kind === 'unsent' && outcome.resend !== undefined) {
    await updateBilling(tx.db, tx.merchant.id, billing.id, {
      payment_uuid: outcome.resend,
      last_error: outcome.reason,
      updated_at: now,
    });
    await updatePlan(tx.db, tx.merchant.id, plan.id, { next_due_at: now, updated_at: now });
    await scheduleBillingJob(tx, now);
    return now;
  } else if (outcome.kind === 'unknown') {
    await updatePlan(tx.db, tx.merchant.id, plan.id, { next_due_at: now + PENDING_RECHECK_MS, updated_at: now });
    await scheduleBillingJob(tx, now + PENDING_RECHECK_MS);
    return now + PENDING_RECHECK_MS;
  } else if (billing.attempt <= plan.payment_retry_count) {
    const retryAt = daysAfter(
      billing.billing_at,
      billing.attempt * plan.payment_retry_day_period,
      tx.merchant.timezone,
    );
    await updateBilling(tx.db, tx.merchant.id, billing.id, {
      state: 'retry',
      retry_at: retryAt,
      last_error: outcome.reason,
      updated_at: now,
    });
    const after = await readPlanView(tx, plan);
    await emitPlanEvent(tx, 'recurring.payment_failed', {
      view: after,
      billing: { ...billing, state: 'retry', retry_at: retryAt, last_error: outcome.reason },
    });
  } else {
    await updateBilling(tx.db, tx.merchant.id, billing.id, {
      state: 'uncollectible',
      last_error: outcome.reason,
      updated_at: now,
    });
    await updateCycle(tx.db, tx.merchant.id, entry.cycle.id, { state: 'uncollectible', end_at: now, updated_at: now });
    for (const later of view.cycles.filter(({ cycle }) => cycle.state === 'pending')) {
      await updateCycle(tx.db, tx.merchant.id, later.cycle.id, { state: 'cancelled', updated_at: now });
    }
    await updatePlan(tx.db, tx.merchant.id, plan.id, {
      state: 'uncollectible',
      next_due_at: null,
      cancel_at: null,
      updated_at: now,
    });
    const after = await readPlanView(tx, { ...plan, state: 'uncollectible' });
    await emitPlanEvent(tx, 'recurring.uncollectible', {
      view: after,
      billing: { ...billing, state: 'uncollectible', last_error: outcome.reason },
    });
    return null;
  }
  return scheduleBilling(tx, await readPlanView(tx, (await findPlan(tx.db, tx.merchant.id, plan.id))!));
}

/**
 * The retry `days` calendar days after the billing, at the billing's local time of day: retries count from the
 * billing time, so a late run of the engine does not push them later.
 */
function daysAfter(billingAt: number, days: number, zone: string): number {
  const local = localTime(billingAt, zone);
  const date = new Date(Date.UTC(local.year, local.month - 1, local.day + days));
  return instantOf(
    {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: local.hour,
      minute: local.minute,
      second: local.second,
    },
    zone,
  );
}

/** The active cycle ends: the next one starts at that instant, or the plan is complete. */
async function endCycle(tx: Context, view: PlanView, entry: PlanCycle, at: number, now: number): Promise<void> {
  const { plan } = view;
  await updateCycle(tx.db, tx.merchant.id, entry.cycle.id, { state: 'completed', end_at: at, updated_at: now });
  const next = view.cycles.find(({ cycle }) => cycle.position === entry.cycle.position + 1);
  if (next) {
    await updateCycle(tx.db, tx.merchant.id, next.cycle.id, { state: 'active', start_at: at, updated_at: now });
    const after = await readPlanView(tx, plan);
    await emitPlanEvent(tx, 'recurring.cycle_started', { view: after, cycleId: next.cycle.id });
    await scheduleBilling(tx, after);
    return;
  }
  // Retries of the last cycle still running keep the plan active until they are settled.
  if (view.billings.some((billing) => billing.state === 'retry')) {
    await scheduleBilling(tx, await readPlanView(tx, plan));
    return;
  }
  await updatePlan(tx.db, tx.merchant.id, plan.id, {
    state: 'completed',
    next_due_at: null,
    cancel_at: null,
    updated_at: now,
  });
  await emitPlanEvent(tx, 'recurring.plan_completed', {
    view: await readPlanView(tx, { ...plan, state: 'completed' }),
  });
}

/**
 * Sets the plan's next due time from where it stands, and the job that will run it then (one job per merchant and
 * time).
 */
export async function scheduleBilling(tx: Context, view: PlanView): Promise<number | null> {
  const action = nextAction(view, tx.merchant.timezone);
  const now = tx.clock.now().getTime();
  const dueAt = action?.at ?? null;
  if (dueAt === null && view.plan.state === 'active') {
    // Nothing left: the last cycle is over and no retry runs.
    await updatePlan(tx.db, tx.merchant.id, view.plan.id, {
      state: 'completed',
      next_due_at: null,
      cancel_at: null,
      updated_at: now,
    });
    await emitPlanEvent(tx, 'recurring.plan_completed', {
      view: await readPlanView(tx, { ...view.plan, state: 'completed' }),
    });
    return null;
  }
  await updatePlan(tx.db, tx.merchant.id, view.plan.id, { next_due_at: dueAt, updated_at: now });
  if (dueAt !== null) await scheduleBillingJob(tx, Math.max(dueAt, now));
  return dueAt;
}

/**
 * The billing job given up on: the plans it could not move stay due, and are billed again an hour later. A
 * customer's plan never ends for a fault of paygate's own.
 */
export async function billAgainLater(ctx: Context): Promise<void> {
  await scheduleBillingJob(ctx, ctx.clock.now().getTime() + 60 * 60_000);
}

/** The merchant's billing job at `at`: one per merchant and time, shared by every plan due then. */
async function scheduleBillingJob(tx: Context, at: number): Promise<void> {
  await scheduleJob(tx, {
    kind: BILLING_JOB,
    merchantId: tx.merchant.id,
    dueAt: at,
    payload: null,
    dedupeKey: `${BILLING_JOB}:${tx.merchant.id}:${at}`,
  });
}

/**
 * A customer's card bound (any way: the API, the hosted page a plan's verify_url opens, 3-D Secure): the plans
 * waiting for a token of that customer charge it, and their first cycle starts now (or at its start date).
 */
export async function startWaitingPlans(ctx: Context, data: unknown): Promise<void> {
  const { customer_uuid: customerId, payment_token: token } = data as {
    customer_uuid: string;
    payment_token: { token: string };
  };
  for (const plan of await plansAwaitingToken(ctx.db, ctx.merchant.id, customerId))
    await startWaitingPlan(ctx, plan, token.token);
}

/**
 * A plan that awaited a token starts with `token` (its own, if it had none): its first cycle now, or at its start date.
 */
export async function startWaitingPlan(ctx: Context, plan: PlanRow, token: string): Promise<void> {
  const now = ctx.clock.now().getTime();
  const first = (await readPlanView(ctx, plan)).cycles[0]!;
  await updatePlan(ctx.db, ctx.merchant.id, plan.id, {
    state: 'active',
    verify_url: null,
    payment_token: plan.payment_token ?? token,
    updated_at: now,
  });
  await updateCycle(ctx.db, ctx.merchant.id, first.cycle.id, {
    state: 'active',
    start_at: Math.max(first.cycle.estimated_start_at ?? now, now),
    updated_at: now,
  });
  const started = await readPlanView(ctx, (await findPlan(ctx.db, ctx.merchant.id, plan.id))!);
  await emitPlanEvent(ctx, 'recurring.cycle_started', { view: started, cycleId: first.cycle.id });
  await scheduleBilling(ctx, started);
}
