import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { MERCHANT_OPTION, operatorContext } from '../cli/operator.js';
import { print, UsageError } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import { iso } from '../platform/clock.js';
import { isUuid } from '../platform/ids.js';
import { formatAmount } from '../platform/money/money.js';
import type { BillingConfigRow } from './catalogue.js';
import { getPlan, listMerchantPlans } from './plans.js';
import { presentPlan } from './present.js';
import { cycleAmount, cycleState, nextExecuteTime } from './schedule.js';
import { PLAN_STATES } from './schemas.js';
import type { PlanView } from './view.js';

const LIST = defineCommand({
  name: 'list',
  summary: "list a merchant's recurring plans, newest first, with each one's next billing",
  description:
    "Times are the merchant's business time (its clock, which the sandbox may have moved), as the API gives them. " +
    "A plan's next billing is the earliest next execution time of its cycles.",
  options: {
    merchant: MERCHANT_OPTION,
    state: { type: 'string', value: 'STATE', description: `only plans in this state: ${PLAN_STATES.join(', ')}` },
    customer: { type: 'string', value: 'CUSTOMER_UUID', description: "only this customer's plans" },
    limit: { type: 'string', value: 'N', default: '50', description: 'how many plans to list, from 1 to 1000' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError('--limit must be a whole number from 1 to 1000');
    const { state, customer } = options;
    if (state !== undefined && !(PLAN_STATES as readonly string[]).includes(state)) {
      throw new UsageError(`--state takes one of ${PLAN_STATES.join(', ')} (got ${JSON.stringify(state)})`);
    }
    if (customer !== undefined && !isUuid(customer))
      throw new UsageError(`--customer takes a customer's UUID (got ${JSON.stringify(customer)})`);
    const filters: Record<string, string> = {
      ...(state !== undefined && { 'filter[state][_eq]': state }),
      ...(customer !== undefined && { 'filter[customer_uuid][_eq]': customer }),
    };
    const { views, total } = await withPlatform(deps, async (platform) =>
      listMerchantPlans(await operatorContext(platform, options.merchant, 'cli:plans'), filters, { offset: 0, limit }),
    );
    print(options, { plans: views.map(presentPlan), limit, total }, () => describePlans(views, total));
  },
});

const SHOW = defineCommand({
  name: 'show',
  summary: 'show one recurring plan and each of its cycles: state, billings, next billing, amounts, config, items',
  description:
    "Times are the merchant's business time (its clock, which the sandbox may have moved), as the API gives them.",
  arguments: [{ name: 'planId', description: 'the plan, by the id paygate gave it' }],
  options: { merchant: MERCHANT_OPTION, json: JSON_OPTION },
  async run({ options, args }, deps) {
    const view = await withPlatform(deps, async (platform) =>
      getPlan(await operatorContext(platform, options.merchant, 'cli:plans'), args.planId),
    );
    print(options, { plan: presentPlan(view) }, () => describePlan(view));
  },
});

export const PLANS_COMMAND = defineCommandGroup({
  name: 'plans',
  summary: "see merchants' recurring plans and their cycles",
  commands: [LIST, SHOW],
});

const orNone = (ms: number | null | undefined) => (ms === null || ms === undefined ? '-' : iso(ms));

/** The earliest next execution time of the plan's cycles, if any is due to bill again. */
function nextBilling(view: PlanView): number | undefined {
  const times = view.cycles
    .map(({ cycle }) => nextExecuteTime(view, cycle.id, view.zone))
    .filter((at): at is number => at !== undefined);
  return times.length === 0 ? undefined : Math.min(...times);
}

function describePlans(views: PlanView[], total: number): string {
  if (views.length === 0) return 'No plans.';
  const header = [
    'ID',
    'REFERENCE',
    'NAME',
    'CUSTOMER',
    'STATE',
    'CURRENCY',
    'NEXT BILLING (business time)',
    'CREATED (business time)',
  ];
  const rows = views.map((view) => [
    view.plan.id,
    view.plan.reference_number,
    view.plan.name,
    view.customerUuid,
    view.plan.state,
    view.plan.currency,
    orNone(nextBilling(view)),
    iso(view.plan.created_at),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const shown =
    views.length < total
      ? `${views.length} of ${total} plans (--limit for more)`
      : `${total} plan${total === 1 ? '' : 's'}`;
  return [line(header), ...rows.map(line), shown].join('\n');
}

/** `monthly ×1 automated`, `monthly ×1 customized: day 31, proration`, `yearly ×1 customized: month 2, day 29`. */
function describeConfig(config: BillingConfigRow): string {
  const rule = `${config.billing_interval} ×${config.interval_count} ${config.billing_type}`;
  if (config.billing_type !== 'customized') return rule;
  const parts = [
    ...(config.billing_month !== null ? [`month ${config.billing_month}`] : []),
    ...(config.billing_day_of_month !== null ? [`day ${config.billing_day_of_month}`] : []),
    ...(config.billing_proration_enabled === 1 ? ['proration'] : []),
  ];
  return parts.length === 0 ? rule : `${rule}: ${parts.join(', ')}`;
}

function describePlan(view: PlanView): string {
  const { plan } = view;
  const money = (minor: number) => `${formatAmount(minor, plan.currency_exponent)} ${plan.currency}`;
  const next = nextBilling(view);
  const lines = [
    `Plan ${plan.id}  ${plan.reference_number}  ${plan.state}`,
    `  name: ${plan.name}`,
    `  customer: ${view.customerUuid}${plan.payment_token !== null ? `  token: ${plan.payment_token}` : ''}`,
    `  currency: ${plan.currency}  collection: ${plan.default_collection_method}  ` +
      `retries: ${plan.payment_retry_count}, every ${plan.payment_retry_day_period} day${plan.payment_retry_day_period === 1 ? '' : 's'}`,
    `  next billing: ${next === undefined ? 'none' : `${iso(next)}  business time`}`,
    `  created: ${iso(plan.created_at)}  business time (merchant time zone ${view.zone})`,
  ];
  view.cycles.forEach((entry, index) => {
    const { cycle, config, items } = entry;
    const at = nextExecuteTime(view, cycle.id, view.zone);
    lines.push(
      `  Cycle ${index + 1} ${cycle.id}${cycle.name !== null ? ` (${cycle.name})` : ''}: ${cycleState(view, cycle)}, billed ${cycle.billing_count} time${cycle.billing_count === 1 ? '' : 's'}`,
      `    next execute time: ${at === undefined ? 'none' : `${iso(at)}  business time`}`,
      `    start: ${orNone(cycle.start_at ?? cycle.estimated_start_at)}  end: ${orNone(cycle.estimated_end_at)}  ` +
        `interval counts: ${cycle.interval_counts ?? 'until ended'}`,
      `    amount: ${money(cycleAmount(entry))}  discount: ${money(cycle.discount_amount)}`,
      `    config: ${describeConfig(config)}`,
      `    items: ${items.map(({ item, quantity }) => `${item.label} ×${quantity} (${money(item.price)})`).join(', ') || 'none'}`,
    );
  });
  return lines.join('\n');
}
