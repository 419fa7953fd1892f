import {
  CancelPlanBody,
  CreateBillingConfigBody,
  CreateItemBody,
  CreatePlanBody,
  cancelPlan,
  createBillingConfig,
  createItem,
  createPlan,
} from '../../recurring/index.js';
import { majorUnits, optional, SANDBOX_CARDS } from './common.js';
import { bindCard, CARD_FIELDS, CUSTOMER_FIELDS, theCustomer } from './customers.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';

const DAY_S = 24 * 60 * 60;

const PLAN_FIELDS = [
  field('reference_number', 'text', "the plan's reference number (a fresh TRIGGER-PLAN-… by default)"),
  field('name', 'text', "the plan's name"),
  field('note', 'text', 'the note of every order the plan generates'),
  field('currency', 'text', "the plan's currency, its item's (HKD by default)"),
  field('item.price', 'amount', "the item's price: what each billing charges (50 in the currency by default)"),
  field('item.label', 'text', "the item's label"),
];
const RETRY_FIELDS = [
  field('payment_retry_count', 'integer', 'retries of a declined charge (1 by default)'),
  field('payment_retry_day_period', 'integer', 'days between retries (1 by default)'),
];
const WITH_CUSTOMER = [...PLAN_FIELDS, ...CUSTOMER_FIELDS, ...CARD_FIELDS];

interface PlanShape {
  /** `daily` ends the cycle a day after it starts; `monthly` runs on. */
  interval: 'daily' | 'monthly';
  /** Full periods before the cycle ends; none: it runs until cancelled. */
  counts?: number;
  /** Starts a day ahead: nothing bills before then. */
  startsTomorrow?: boolean;
  /** The card bound for it, none for a plan that awaits its customer's first token. */
  card?: string;
  retries?: boolean;
}

/**
 * A plan for a customer, as `POST recurring_payments/plan` makes it, with its item and billing config (and the
 * customer's card, bound first): answers the plan's id.
 */
async function newPlan(run: TriggerRun, shape: PlanShape): Promise<{ planId: string; customer: string }> {
  const customer = await theCustomer(run);
  const token = shape.card === undefined ? undefined : await bindCard(run, customer, shape.card);
  const currency = run.value('currency', 'HKD');
  const item = await createItem(
    run.ctx,
    run.check(CreateItemBody, {
      item: {
        label: run.value('item.label', 'Trigger membership'),
        price: run.value('item.price', majorUnits(currency, 50)),
        currency,
      },
    }).item,
  );
  run.made('item', { id: item.id });
  const config = await createBillingConfig(
    run.ctx,
    run.check(CreateBillingConfigBody, { config: { billing_interval: shape.interval, billing_type: 'automated' } })
      .config,
  );
  run.made('billing_config', { id: config.id });
  const cycle: Record<string, unknown> = {
    name: 'Trigger cycle',
    recurring_items: [{ id: item.id, quantity: 1 }],
    recurring_billing_config: config.id,
  };
  if (shape.counts !== undefined) cycle.interval_counts = shape.counts;
  if (shape.startsTomorrow)
    cycle.estimated_start_date = new Date(run.ctx.clock.now().getTime() + DAY_S * 1000).toISOString();
  const plan: Record<string, unknown> = {
    name: run.value('name', 'Trigger plan'),
    reference_number: run.value('reference_number', run.unique('TRIGGER-PLAN')),
    customer_uuid: customer,
    cycles: [cycle],
  };
  if (token) plan.default_payment_token = token.token;
  optional(run, plan, 'note');
  if (shape.retries) {
    plan.payment_retry_count = run.value('payment_retry_count', 1);
    plan.payment_retry_day_period = run.value('payment_retry_day_period', 1);
  }
  const view = await createPlan(run.ctx, run.check(CreatePlanBody, { plan }).plan);
  run.made('plan', { id: view.plan.id, reference_number: view.plan.reference_number });
  return { planId: view.plan.id, customer };
}

export const RECURRING_TRIGGERS = [
  defineTrigger({
    kind: 'recurring.plan_created',
    makes: 'a customer with the card 4000 0000 0000 3055, an item, a monthly billing config and a plan',
    clock: 'none',
    fields: WITH_CUSTOMER,
    run: async (run) => (await newPlan(run, { interval: 'monthly', card: SANDBOX_CARDS.frictionless })).planId,
  }),
  defineTrigger({
    kind: 'recurring.cycle_started',
    makes:
      'a new customer without a card, a plan awaiting its token, then the card 4000 0000 0000 3055 bound: the plan starts its first cycle',
    clock: 'none',
    fields: [...PLAN_FIELDS, ...CUSTOMER_FIELDS.filter((f) => f.name !== 'customer_uuid'), ...CARD_FIELDS],
    async run(run) {
      const { planId, customer } = await newPlan(run, { interval: 'monthly' });
      await bindCard(run, customer, SANDBOX_CARDS.frictionless);
      return planId;
    },
  }),
  defineTrigger({
    kind: 'recurring.payment_failed',
    makes: "a plan charging the card 4000 0000 0000 0341: its first billing's charge is declined (51), a retry set",
    clock: 'none (the first billing is due at once)',
    fields: [...WITH_CUSTOMER, ...RETRY_FIELDS],
    run: async (run) =>
      (await newPlan(run, { interval: 'monthly', card: SANDBOX_CARDS.bindsThenDeclines, retries: true })).planId,
  }),
  defineTrigger({
    kind: 'recurring.uncollectible',
    makes: 'a plan charging the card 4000 0000 0000 0341, declined at its first billing and at every retry',
    clock: 'payment_retry_count × payment_retry_day_period days (1 day by default)',
    fields: [...WITH_CUSTOMER, ...RETRY_FIELDS],
    async run(run) {
      const { planId } = await newPlan(run, {
        interval: 'monthly',
        card: SANDBOX_CARDS.bindsThenDeclines,
        retries: true,
      });
      // The first billing is due now; each retry comes `period` days after the one before.
      await run.runDueWork();
      const retries = Number(run.value('payment_retry_count', 1));
      const period = Number(run.value('payment_retry_day_period', 1));
      if (retries > 0) await run.passTime(retries * period * DAY_S);
      return planId;
    },
  }),
  defineTrigger({
    kind: 'recurring.plan_completed',
    makes: 'a plan of one daily cycle billed once to the card 4000 0000 0000 3055: the cycle ends, the plan completes',
    clock: '1 day',
    fields: WITH_CUSTOMER,
    async run(run) {
      const { planId } = await newPlan(run, { interval: 'daily', counts: 1, card: SANDBOX_CARDS.frictionless });
      await run.runDueWork();
      await run.passTime(DAY_S);
      return planId;
    },
  }),
  defineTrigger({
    kind: 'recurring.plan_cancelled',
    makes: 'a plan starting tomorrow (card 4000 0000 0000 3055), cancelled at once (`immediate`)',
    clock: 'none',
    fields: WITH_CUSTOMER,
    async run(run) {
      const { planId } = await newPlan(run, {
        interval: 'monthly',
        card: SANDBOX_CARDS.frictionless,
        startsTomorrow: true,
      });
      await cancelPlan(run.ctx, planId, run.check(CancelPlanBody, { activate_type: 'immediate' }));
      return planId;
    },
  }),
];
