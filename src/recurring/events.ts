import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { presentBilling, presentPlan } from './present.js';
import type { BillingRow } from './store.js';
import type { PlanView } from './view.js';

/** What a plan's events carry: the plan as it is now, and the billing or cycle the event is about. */
export interface PlanEventSubject {
  view: PlanView;
  billing?: BillingRow;
  cycleId?: string;
}

/**
 * A plan's own events, to the apps' endpoints (a plan has no callback URL); the orders it generates send the
 * order events as any order does (docs/webhooks.md).
 */
export const PLAN_EVENTS = defineEventTypes(
  ({ view, billing, cycleId }: PlanEventSubject) => ({
    data: {
      plan: presentPlan(view),
      ...(billing && { billing: presentBilling(billing, view.plan) }),
      ...(cycleId !== undefined && { cycle_id: cycleId }),
    },
    subjectId: view.plan.id,
    notifyUrl: null,
    appId: view.plan.app_id,
  }),
  {
    'recurring.plan_created': 'A recurring plan was created; its first cycle starts.',
    'recurring.cycle_started': 'The next cycle of a plan started (the one before ended).',
    'recurring.payment_failed': "A billing's charge failed; billing.retry_at says when it is tried again.",
    'recurring.uncollectible': "A billing's last retry failed: the cycle is uncollectible and the plan stops billing.",
    'recurring.plan_completed': 'The last cycle of a plan ended, every billing settled.',
    'recurring.plan_cancelled':
      'A plan was cancelled: at once (immediate), or at its next billing time (next_billing_date).',
  },
);

export async function emitPlanEvent(
  ctx: Context,
  action: keyof typeof PLAN_EVENTS,
  subject: PlanEventSubject,
): Promise<void> {
  await emitEvent(ctx, PLAN_EVENTS[action], subject);
}
