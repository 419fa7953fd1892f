import type { Static } from 'typebox';
import type { Context } from '../context/context.js';
import { type CustomerRow, getCustomer, type PaymentTokenReply } from '../customers/index.js';
import { authCodeOf, loadOrderView, ORDER_ERRORS } from '../orders/index.js';
import { DEFAULT_TOKENS } from '../payment-tokens/index.js';
import { AppError } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { amountAsNumber } from '../platform/money/money.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { presentBillingConfig, presentItem } from './present.js';
import type { PlanOrderRecordSchema } from './schemas.js';
import { findPlans, listPlanOrders, PLAN_ORDER_FILTERS, type PlanOrderRow } from './store.js';
import { type PlanView, readPlanViews } from './view.js';

export type PlanOrderRecord = Static<typeof PlanOrderRecordSchema>;

/** Records read between two turns of the event loop: a page of 1000 is read in slices. */
const RECORDS_PER_SLICE = 50;

/**
 * Operation 3: the orders the merchant's plans generated, newest first, filtered on the order's, customer's and plan's
 * fields.
 */
export async function listGeneratedOrders(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<PlanOrderRecord[]> {
  const { rows } = await listPlanOrders(ctx.db, ctx.merchant.id, parseFilters(query, PLAN_ORDER_FILTERS), page);
  return recordsOf(ctx, rows);
}

/** One generated order by its number (and, when given, its customer), as operation 3 shows it. */
export async function checkGeneratedOrder(
  ctx: Context,
  by: { customer_uuid?: string; order: { number: string } },
): Promise<PlanOrderRecord> {
  const conditions = parseFilters({ 'filter[order.number][_eq]': by.order.number }, PLAN_ORDER_FILTERS);
  if (by.customer_uuid !== undefined) conditions.push({ field: 'customer.uuid', op: '_eq', value: by.customer_uuid });
  const { rows } = await listPlanOrders(ctx.db, ctx.merchant.id, conditions, { offset: 0, limit: 1 });
  if (rows.length === 0) throw new AppError(ORDER_ERRORS.orderNotFound);
  return (await recordsOf(ctx, rows))[0]!;
}

async function recordsOf(ctx: Context, rows: PlanOrderRow[]): Promise<PlanOrderRecord[]> {
  const planIds = [...new Set(rows.map((row) => row.billing.plan_id))];
  const views = new Map(
    (await readPlanViews(ctx, await findPlans(ctx.db, ctx.merchant.id, planIds))).map((view) => [view.plan.id, view]),
  );
  const customers = new Map<string, { row: CustomerRow; token: PaymentTokenReply | undefined }>();
  for (const view of views.values()) {
    if (customers.has(view.plan.customer_id)) continue;
    const row = await getCustomer(ctx, view.plan.customer_id);
    customers.set(row.id, { row, token: await DEFAULT_TOKENS.present(ctx, row) });
  }
  const records: PlanOrderRecord[] = [];
  for (const [index, row] of rows.entries()) {
    const view = views.get(row.billing.plan_id)!;
    records.push(present(row, view, customers.get(view.plan.customer_id)!, await loadOrderView(ctx, row.order)));
    if (index % RECORDS_PER_SLICE === RECORDS_PER_SLICE - 1) await yieldToEventLoop();
  }
  return records;
}

function present(
  { billing, order }: PlanOrderRow,
  view: PlanView,
  customer: { row: CustomerRow; token: PaymentTokenReply | undefined },
  orderView: Awaited<ReturnType<typeof loadOrderView>>,
): PlanOrderRecord {
  const entry = view.cycles.find(({ cycle }) => cycle.id === billing.cycle_id)!;
  const e = order.currency_exponent;
  const paid = orderView.transactions.filter(
    (transaction) =>
      transaction.status === 'succeeded' && (transaction.type === 'Sales' || transaction.type === 'Capture'),
  );
  const authCode = paid.map(authCodeOf).find((code) => code !== undefined);
  return {
    customer: {
      name: customer.row.name,
      email: customer.row.email ?? '',
      phone: customer.row.phone,
      reference_number: customer.row.reference_number,
      default_payment_method: customer.row.default_payment_method ?? '',
      uuid: customer.row.id,
      ...(customer.token && { default_payment_token: customer.token }),
    },
    recurring_cycle: {
      recurring_billing_config: presentBillingConfig(entry.config),
      recurring_items: entry.items.map(({ item, quantity }) => ({ ...presentItem(item), quantity })),
      discount_amount: amountAsNumber(entry.cycle.discount_amount, view.plan.currency_exponent),
    },
    order: {
      amount: amountAsNumber(order.initial_total, e),
      paid_total: amountAsNumber(order.paid_total, e),
      currency: order.currency,
      order_number: order.number,
      reference_number: order.reference_number,
      state: order.state,
      correspondence_state: order.correspondence_state,
      auth_code: authCode ?? '',
      default_payment_token: view.plan.payment_token ?? customer.token?.token ?? '',
      default_collection_method: view.plan.default_collection_method,
      note: order.note ?? '',
      redirect_url: order.return_url ?? '',
      timeout: {
        timer: billing.state === 'retry' && billing.retry_at !== null ? new Date(billing.retry_at).toISOString() : '',
        url: '',
      },
    },
  };
}
