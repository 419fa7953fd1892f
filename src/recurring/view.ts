import type { Context } from '../context/context.js';
import { groupBy } from '../platform/collections.js';
import {
  type BillingConfigRow,
  type BillingRow,
  billingsOfPlans,
  type CycleRow,
  cyclesOfPlans,
  findBillingConfigs,
  findItems,
  type ItemRow,
  itemsOfCycles,
  type PlanRow,
} from './store.js';

/** A plan with everything its replies and its billing read: cycles, their items (with quantities) and configs. */
export interface PlanView {
  plan: PlanRow;
  customerUuid: string;
  /** The merchant's time zone, in which the plan's calendar runs. */
  zone: string;
  cycles: PlanCycle[];
  /** The plan's billings so far, oldest first. */
  billings: BillingRow[];
  /** When the view was read, on the merchant's business clock: what "not started yet" is measured against. */
  readAt: number;
}

export interface PlanCycle {
  cycle: CycleRow;
  config: BillingConfigRow;
  items: Array<{ item: ItemRow; quantity: number }>;
}

export async function readPlanView(ctx: Context, plan: PlanRow): Promise<PlanView> {
  return (await readPlanViews(ctx, [plan]))[0]!;
}

export async function readPlanViews(ctx: Context, plans: PlanRow[]): Promise<PlanView[]> {
  const cycles = await cyclesOfPlans(
    ctx.db,
    ctx.merchant.id,
    plans.map((plan) => plan.id),
  );
  const cycleItems = await itemsOfCycles(
    ctx.db,
    ctx.merchant.id,
    cycles.map((cycle) => cycle.id),
  );
  const items = new Map(
    (await findItems(ctx.db, ctx.merchant.id, [...new Set(cycleItems.map((row) => row.item_id))])).map((row) => [
      row.id,
      row,
    ]),
  );
  const configs = new Map(
    (await findBillingConfigs(ctx.db, ctx.merchant.id, [...new Set(cycles.map((row) => row.billing_config_id))])).map(
      (row) => [row.id, row],
    ),
  );
  const billings = await billingsOfPlans(
    ctx.db,
    ctx.merchant.id,
    plans.map((plan) => plan.id),
  );
  const cyclesOf = groupBy(cycles, (row) => row.plan_id);
  const itemsOf = groupBy(cycleItems, (row) => row.cycle_id);
  const billingsOf = groupBy(billings, (row) => row.plan_id);
  const views: PlanView[] = [];
  for (const plan of plans) {
    const view: PlanView = {
      plan,
      customerUuid: plan.customer_id,
      zone: ctx.merchant.timezone,
      cycles: (cyclesOf.get(plan.id) ?? []).map((cycle) => ({
        cycle,
        config: configs.get(cycle.billing_config_id)!,
        items: (itemsOf.get(cycle.id) ?? []).map((row) => ({ item: items.get(row.item_id)!, quantity: row.quantity })),
      })),
      billings: billingsOf.get(plan.id) ?? [],
      readAt: ctx.clock.now().getTime(),
    };
    views.push(view);
  }
  return views;
}
