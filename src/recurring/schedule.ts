import { sumMinor, timesMinor } from '../platform/money/money.js';
import { type Billing, type BillingCycle, billingRuleOf, billings as calendarBillings, cycleEnd } from './calendar.js';
import type { BillingRow } from './store.js';
import type { PlanCycle, PlanView } from './view.js';

// Where a plan stands on its calendar: pure functions of the plan's rows, read by the engine and the replies.

export type Action =
  | { kind: 'retry'; at: number; billing: BillingRow }
  | { kind: 'bill'; at: number; entry: PlanCycle; billing: Billing }
  | { kind: 'end'; at: number; entry: PlanCycle }
  | { kind: 'cancel'; at: number };

/**
 * What the plan does next, and when: a retry, the active cycle's next billing, its end, or a pending cancellation
 * (earliest first; at the same time the cancellation comes first, so the billing it stops never happens).
 */
export function nextAction(view: PlanView, zone: string): Action | undefined {
  if (view.plan.state !== 'active') return undefined;
  const actions: Action[] = [];
  if (view.plan.cancel_at !== null) actions.push({ kind: 'cancel', at: view.plan.cancel_at });
  for (const billing of view.billings)
    if (billing.state === 'retry' && billing.retry_at !== null)
      actions.push({ kind: 'retry', at: billing.retry_at, billing });
  const entry = view.cycles.find(({ cycle }) => cycle.state === 'active');
  if (entry) {
    const calendar = calendarOf(entry, zone);
    const last = view.billings.filter((billing) => billing.cycle_id === entry.cycle.id).at(-1);
    const next = calendarBillings(calendar, last?.billing_at ?? -Infinity).next();
    if (!next.done) actions.push({ kind: 'bill', at: next.value.at, entry, billing: next.value });
    else {
      const end = cycleEnd(calendar);
      if (end !== undefined) actions.push({ kind: 'end', at: end, entry });
    }
  }
  // Billings before a cycle's end; at the same time a retry before a new billing.
  const order = { cancel: -1, retry: 0, bill: 1, end: 2 };
  return actions.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind])[0];
}

/**
 * A cycle's state as the merchant sees it: the cycle the engine works toward is stored `active` from the plan's
 * creation, but until its start (a first cycle with a start date to come) it has not started, and reads `pending`.
 */
export function cycleState(view: PlanView, cycle: PlanCycle['cycle']): string {
  return cycle.state === 'active' && cycle.start_at !== null && cycle.start_at > view.readAt ? 'pending' : cycle.state;
}

/** `next_execute_time` of a cycle: its next billing or retry, if it is the active one. */
export function nextExecuteTime(view: PlanView, cycleId: string, zone: string): number | undefined {
  const entry = view.cycles.find(({ cycle }) => cycle.id === cycleId);
  if (entry?.cycle.state !== 'active' || view.plan.state !== 'active') return undefined;
  const retries = view.billings
    .filter((billing) => billing.cycle_id === cycleId && billing.state === 'retry' && billing.retry_at !== null)
    .map((billing) => billing.retry_at!);
  const last = view.billings.filter((billing) => billing.cycle_id === cycleId).at(-1);
  const next = calendarBillings(calendarOf(entry, zone), last?.billing_at ?? -Infinity).next();
  // Nothing runs at or after a pending cancellation.
  const times = [...retries, ...(next.done ? [] : [next.value.at])].filter(
    (at) => view.plan.cancel_at === null || at < view.plan.cancel_at,
  );
  return times.length === 0 ? undefined : Math.min(...times);
}

/**
 * The plan's next billing time, retries left aside: the active cycle's next billing, or its end when it bills no
 * more (the next cycle's first billing, or the plan's completion). A `next_billing_date` cancellation takes effect
 * then.
 */
export function nextBillingTime(view: PlanView, zone: string): number | undefined {
  const entry = view.cycles.find(({ cycle }) => cycle.state === 'active');
  if (!entry) return undefined;
  const calendar = calendarOf(entry, zone);
  const last = view.billings.filter((billing) => billing.cycle_id === entry.cycle.id).at(-1);
  const next = calendarBillings(calendar, last?.billing_at ?? -Infinity).next();
  return next.done ? cycleEnd(calendar) : next.value.at;
}

export function calendarOf(entry: PlanCycle, zone: string): BillingCycle {
  const { cycle, config } = entry;
  const start = cycle.start_at!;
  return {
    rule: billingRuleOf({
      ...config,
      billing_interval: config.billing_interval as BillingCycle['rule']['interval'],
      billing_type: config.billing_type as BillingCycle['rule']['type'],
      billing_proration_enabled: config.billing_proration_enabled === 1,
    }),
    start,
    zone,
    intervalCounts: cycle.interval_counts ?? undefined,
    // An end at or before the start (a later cycle that starts after its own end date) bills nothing.
    endDate: cycle.estimated_end_at === null ? undefined : Math.max(cycle.estimated_end_at, start + 1),
  };
}

/** What one full period of a cycle costs: its items less its discount. */
export function cycleAmount(entry: PlanCycle): number {
  return (
    sumMinor(entry.items.map(({ item, quantity }) => timesMinor(item.price, quantity))) - entry.cycle.discount_amount
  );
}
