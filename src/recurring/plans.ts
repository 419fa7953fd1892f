import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { getCustomer } from '../customers/index.js';
import { bindingLink, chargeableToken, DEFAULT_TOKENS } from '../payment-tokens/index.js';
import { AppError, invalid, PLATFORM_ERRORS } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { type Currency, currencyOf, readMoney, sumMinor, timesMinor } from '../platform/money/money.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { instantOf } from '../platform/time-zone.js';
import { scheduleBilling } from './engine.js';
import { RECURRING_ERRORS } from './errors.js';
import { emitPlanEvent } from './events.js';
import type { CreatePlanBody } from './schemas.js';
import {
  type CycleItemRow,
  type CycleRow,
  findBillingConfigs,
  findItems,
  findPlan,
  findPlanByReference,
  insertPlan,
  listPlans,
  PLAN_FILTERS,
  type PlanRow,
} from './store.js';
import { type PlanView, readPlanView, readPlanViews } from './view.js';

export type PlanInput = Static<typeof CreatePlanBody>['plan'];

const DEFAULT_RETRY_COUNT = 3;
const DEFAULT_RETRY_DAY_PERIOD = 1;

/**
 * Creates a plan, or answers the one made before with the same reference and content. Its first cycle starts at
 * its estimated_start_date, or now when that is absent or past; the billing engine takes it from there.
 */
export async function createPlan(ctx: Context, input: PlanInput): Promise<PlanView> {
  const contentHash = createHash('sha256').update(canonicalJson(input)).digest('hex');
  return inTransaction(
    ctx,
    async (tx) => {
      const existing = await findPlanByReference(tx.db, tx.merchant.id, input.reference_number);
      if (existing) {
        if (existing.content_hash !== contentHash) throw new AppError(RECURRING_ERRORS.planReferenceTaken);
        return readPlanView(tx, existing);
      }
      const customer = await getCustomer(tx, input.customer_uuid);
      if (input.default_payment_token != null) await chargeableToken(tx, input.default_payment_token, customer.id);
      // No token to charge: the plan waits for the customer to bind a card, and starts when one binds.
      const awaiting = input.default_payment_token == null && !(await DEFAULT_TOKENS.present(tx, customer));
      const now = tx.clock.now().getTime();
      const { cycles, cycleItems, currency } = await readCycles(tx, input.cycles, now);
      if (awaiting) Object.assign(cycles[0]!, { state: 'pending', start_at: null });
      const plan: PlanRow = {
        id: ctx.ids.sortable(now),
        merchant_id: tx.merchant.id,
        reference_number: input.reference_number,
        content_hash: contentHash,
        name: input.name,
        customer_id: customer.id,
        currency: currency.code,
        currency_exponent: currency.exponent,
        default_collection_method: input.default_collection_method ?? 'charge_automatically',
        payment_token: input.default_payment_token ?? null,
        payment_retry_count: input.payment_retry_count ?? DEFAULT_RETRY_COUNT,
        payment_retry_day_period: input.payment_retry_day_period ?? DEFAULT_RETRY_DAY_PERIOD,
        note: input.note ?? null,
        redirect_url: input.redirect_url ?? null,
        description: input.description ?? null,
        state: awaiting ? 'awaiting_token' : 'active',
        next_order_seq: 1,
        next_due_at: null,
        cancel_at: null,
        verify_url: awaiting ? (await bindingLink(tx, customer.id)).wallet_link : null,
        app_id: tx.actor.kind === 'app' ? tx.actor.appId : null,
        created_at: now,
        updated_at: now,
      };
      for (const cycle of cycles) cycle.plan_id = plan.id;
      await insertPlan(tx.db, plan, cycles, cycleItems);
      const view = await readPlanView(tx, plan);
      await emitPlanEvent(tx, 'recurring.plan_created', { view });
      if (!awaiting) await scheduleBilling(tx, view);
      return readPlanView(tx, (await findPlan(tx.db, tx.merchant.id, plan.id))!);
    },
    { completesRequest: true },
  );
}

export type CycleInput = PlanInput['cycles'][number];

/**
 * Where the cycles being read go: after `firstPosition` cycles of a plan that started at `planStart`, in `currency`.
 */
export interface CyclesPlace {
  /** The request's name of the cycles array, for messages (`plan.cycles`, `cycles`). */
  field: string;
  firstPosition: number;
  currency?: Currency;
  planStart?: number;
}

/**
 * Cycles of a new plan, or added to one, checked: items and configs of this merchant and not deleted, one currency,
 * dates in order, every cycle but the plan's last with an end.
 */
export async function readCycles(
  ctx: Context,
  given: CycleInput[],
  now: number,
  place: CyclesPlace = { field: 'plan.cycles', firstPosition: 0 },
): Promise<{ cycles: CycleRow[]; cycleItems: CycleItemRow[]; currency: Currency }> {
  const input = { cycles: given };
  const refuse = (message: string): never => {
    throw new AppError(PLATFORM_ERRORS.validationFailed, message);
  };
  const itemIds = [
    ...new Set(input.cycles.flatMap((cycle) => cycle.recurring_items.map((item) => item.id)).filter(isUuid)),
  ];
  const configIds = [...new Set(input.cycles.map((cycle) => cycle.recurring_billing_config).filter(isUuid))];
  const items = new Map((await findItems(ctx.db, ctx.merchant.id, itemIds)).map((row) => [row.id, row]));
  const configs = new Map((await findBillingConfigs(ctx.db, ctx.merchant.id, configIds)).map((row) => [row.id, row]));
  let currency: Currency | undefined = place.currency;
  const cycles: CycleRow[] = [];
  const cycleItems: CycleItemRow[] = [];
  let firstStart = place.planStart ?? now;
  input.cycles.forEach((given, offset) => {
    const field = `${place.field}[${offset}]`;
    const position = place.firstPosition + offset;
    const config = configs.get(given.recurring_billing_config);
    if (!config)
      throw new AppError(
        RECURRING_ERRORS.billingConfigNotFound,
        `${field}.recurring_billing_config names no billing config of this merchant.`,
      );
    if (config.deleted_at !== null)
      throw new AppError(RECURRING_ERRORS.billingConfigDeleted, `${field}.recurring_billing_config is deleted.`);
    const cycleId = ctx.ids.sortable(now);
    const lines = given.recurring_items.map(({ id, quantity = 1 }, index) => {
      const item = items.get(id);
      if (!item)
        throw new AppError(
          RECURRING_ERRORS.recurringItemNotFound,
          `${field}.recurring_items[${index}].id names no recurring item of this merchant.`,
        );
      if (item.deleted_at !== null)
        throw new AppError(RECURRING_ERRORS.recurringItemDeleted, `${field}.recurring_items[${index}] is deleted.`);
      currency ??= currencyOf(item.currency);
      if (item.currency !== currency.code) {
        refuse(
          `${field}.recurring_items[${index}] is in ${item.currency}; every item of a plan must be in one currency (${currency.code}).`,
        );
      }
      cycleItems.push({ cycle_id: cycleId, merchant_id: ctx.merchant.id, position: index, item_id: item.id, quantity });
      return timesMinor(item.price, quantity);
    });
    const amount = sumMinor(lines);
    const discount =
      given.discount_amount === undefined
        ? 0
        : readMoney(given.discount_amount, currency!, `${field}.discount_amount`, { allowZero: true }).minor;
    if (discount > amount)
      refuse(`${field}.discount_amount is more than the cycle's items cost (${amount} minor units).`);
    if (given.estimated_start_date != null && position > 0) {
      refuse(`${field}.estimated_start_date: a later cycle starts when the one before ends.`);
    }
    const start =
      given.estimated_start_date == null
        ? undefined
        : readInstant(given.estimated_start_date, `${field}.estimated_start_date`, ctx.merchant.timezone);
    if (position === 0) firstStart = Math.max(start ?? now, now);
    const end =
      given.estimated_end_date == null
        ? undefined
        : readInstant(given.estimated_end_date, `${field}.estimated_end_date`, ctx.merchant.timezone);
    const counts = given.interval_counts ?? undefined;
    if (end !== undefined && counts !== undefined)
      refuse(`${field}: give estimated_end_date or interval_counts, not both.`);
    if (end === undefined && counts === undefined && offset < input.cycles.length - 1) {
      refuse(
        `${field} never ends (no estimated_end_date or interval_counts), so the cycles after it would never start.`,
      );
    }
    if (end !== undefined && end <= firstStart) refuse(`${field}.estimated_end_date must be after the plan starts.`);
    cycles.push({
      id: cycleId,
      merchant_id: ctx.merchant.id,
      plan_id: '',
      position,
      name: given.name ?? null,
      description: given.description ?? null,
      billing_config_id: config.id,
      discount_amount: discount,
      estimated_start_at: start ?? null,
      estimated_end_at: end ?? null,
      interval_counts: counts ?? null,
      start_at: position === 0 ? firstStart : null,
      end_at: null,
      state: position === 0 ? 'active' : 'pending',
      billing_count: 0,
      created_at: now,
      updated_at: now,
    });
  });
  return { cycles, cycleItems, currency: currency! };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A date (midnight in the merchant's zone) or an RFC 3339 time with offset, refused naming `field` otherwise. */
function readInstant(text: string, field: string, zone: string): number {
  const date = DATE.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const check = new Date(Date.UTC(year, month - 1, day));
    if (check.getUTCMonth() === month - 1 && check.getUTCDate() === day)
      return instantOf({ year, month, day, hour: 0, minute: 0 }, zone);
  } else if (RFC3339.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return at;
  }
  throw invalid(field, 'must be a date (YYYY-MM-DD) or an RFC 3339 time with offset');
}

export async function getPlan(ctx: Context, id: string): Promise<PlanView> {
  const plan = isUuid(id) ? await findPlan(ctx.db, ctx.merchant.id, id) : undefined;
  if (!plan) throw new AppError(RECURRING_ERRORS.planNotFound);
  return readPlanView(ctx, plan);
}

export async function listMerchantPlans(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ views: PlanView[]; total: number }> {
  const { rows, total } = await listPlans(ctx.db, ctx.merchant.id, parseFilters(query, PLAN_FILTERS), page);
  return { views: await readPlanViews(ctx, rows), total };
}

/** JSON with every object's keys in order: the same plan sent with its fields in another order is the same content. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
