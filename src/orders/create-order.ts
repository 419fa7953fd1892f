import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { findCustomer } from '../customers/index.js';
import { isUniqueViolation } from '../platform/database/database-errors.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { blankAsAbsent } from '../platform/input.js';
import { type AmountRules, isExact, readCurrency, readMoney } from '../platform/money/money.js';
import { endOfLocalDate, localDate } from '../platform/time-zone.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { ORDER_ERRORS } from './errors.js';
import { emitOrderEvent } from './events.js';
import { withLinks } from './links.js';
import { loadOrderView } from './lookup.js';
import type { OrderView } from './present.js';
import type { CreateOrderBody } from './schemas.js';
import { findOrder, insertOrder, type LineItemRow, type OrderRow } from './store.js';

export type CreateOrderInput = Static<typeof CreateOrderBody>;

export const OVERDUE_JOB = 'orders.void_overdue';
/** What clients see as `source` and `type` for orders made through this API. */
const SOURCE = 'OpenAPI';
const TYPE = 'Online';

/**
 * What a caller may ask of `createOrder` beyond the input. The HTTP route (`POST .../orders`) sets `paymentLink` only;
 * `discountLines` and `appId` are for orders paygate makes itself (the recurring billing's generated orders), so that
 * the route keeps refusing a negative `Charge` line and keeps taking the app from the signed request.
 */
export interface CreateOrderOptions {
  /** Answer with the order's payment link (the route's `with_payment_link`). */
  paymentLink?: boolean;
  /**
   * Accept a `Charge` line with a negative price: a discount (a plan's discount_amount), labelled as such by the
   * caller. Every other check stands: only `Charge` and `Rounding` lines may be negative, the lines must add up to
   * `charge_fee`, and `charge_fee` must be more than 0. Off by default: the route refuses such a line (400104).
   */
  discountLines?: boolean;
  /**
   * The app the order belongs to, in place of `ctx.actor`'s (a scheduled job's actor is `system`, which gives none):
   * the order's events are sent to its `callback_url` signed by this app's webhook key. It must be an app of
   * `ctx.merchant` (not checked here); a disabled or unknown one signs nothing, and the merchant's oldest active
   * app signs instead, as for an order made without an app. Not part of the content a re-create compares.
   */
  appId?: string;
  /** A customer the caller found to be the merchant's in this same transaction: not looked up again. */
  customerFound?: string;
}

/**
 * Creates an order. The reference number is the order's natural key: creating again with the same one and the
 * same content returns the existing order, with different content it is refused. The order gets a `due_date`
 * (and so the overdue job that voids it) only when the input gives one.
 */
export async function createOrder(
  ctx: Context,
  input: CreateOrderInput,
  options: CreateOrderOptions = {},
): Promise<OrderView> {
  return (await makeOrder(ctx, input, options)).view;
}

/**
 * {@link createOrder}, saying whether the order was made by this call (in the caller's transaction, if one is open)
 * or found by its reference number: a caller that goes on to pay an order it made knows it has no transactions yet.
 */
export async function makeOrder(
  ctx: Context,
  input: CreateOrderInput,
  options: CreateOrderOptions = {},
): Promise<{ view: OrderView; made: boolean }> {
  const draft = await readOrder(ctx, input, options);
  for (let attempt = 0; ; attempt += 1) {
    // The transaction's result is the request's reply (completesRequest): whether it made the order is said beside it.
    let made = false;
    try {
      const view = await inTransaction(
        ctx,
        async (tx) => {
          const existing = await findOrder(tx.db, tx.merchant.id, { referenceNumber: draft.order.reference_number });
          if (existing)
            return withLinks(tx, await sameOrder(tx, existing, draft.order.content_hash), {
              payment: options.paymentLink,
            });
          const order: OrderRow = { ...draft.order, number: orderNumber(tx) };
          await insertOrder(tx.db, order, draft.items);
          if (draft.order.due_date !== null) {
            await scheduleJob(tx, {
              kind: OVERDUE_JOB,
              merchantId: tx.merchant.id,
              dueAt: endOfLocalDate(draft.order.due_date, tx.merchant.timezone),
              payload: { orderId: draft.order.id },
              dedupeKey: `${OVERDUE_JOB}:${draft.order.id}`,
            });
          }
          const view: OrderView = {
            order,
            items: draft.items,
            transactions: [],
            merchant: tx.merchant,
            customerUuid: order.customer_id,
          };
          await emitOrderEvent(tx, 'order.created', view);
          made = true;
          return withLinks(tx, view, { payment: options.paymentLink });
        },
        { completesRequest: true },
      );
      return { view, made };
    } catch (error) {
      // A concurrent create took the reference (or, once in a blue moon, the number): look again.
      if (attempt < 3 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

async function sameOrder(ctx: Context, existing: OrderRow, contentHash: string): Promise<OrderView> {
  if (existing.content_hash !== contentHash) throw new AppError(ORDER_ERRORS.orderReferenceTaken);
  return loadOrderView(ctx, existing);
}

interface Draft {
  order: Omit<OrderRow, 'number'>;
  items: LineItemRow[];
}

/** Checks everything the order says, naming the field at fault; nothing is written yet. */
async function readOrder(ctx: Context, input: CreateOrderInput, options: CreateOrderOptions): Promise<Draft> {
  const body = input.order;
  const { code: currency, exponent } = readCurrency(body.currency, 'order.currency');
  const amount = (value: string | number, field: string, rules: AmountRules = {}) =>
    readMoney(value, { code: currency, exponent }, field, { ...rules, refusal: ORDER_ERRORS.orderAmountsInvalid })
      .minor;

  const total = amount(body.charge_fee, 'order.charge_fee');
  const tips = body.tips === undefined ? 0 : amount(body.tips, 'order.tips', { allowZero: true });
  if (tips > total)
    throw new AppError(ORDER_ERRORS.orderAmountsInvalid, 'order.tips must not be more than order.charge_fee.');
  const subtotal = total - tips;
  if (body.subtotal !== undefined && amount(body.subtotal, 'order.subtotal', { allowZero: true }) !== subtotal) {
    throw new AppError(
      ORDER_ERRORS.orderAmountsInvalid,
      'order.subtotal must equal order.charge_fee minus order.tips.',
    );
  }

  // Sortable (made in time order): the indexes that name an order (its transactions, its events) grow at their end,
  // where random ids would touch a page of each index per order written.
  const madeAt = ctx.wallClock.now().getTime();
  const orderId = ctx.ids.sortable(madeAt);
  const items: LineItemRow[] = (body.line_items ?? []).map((item, index) => {
    const field = `order.line_items[${index}]`;
    const negativeAllowed =
      item.purchasable_type === 'Rounding' || (options.discountLines === true && item.purchasable_type === 'Charge');
    const price = amount(item.price, `${field}.price`, { allowZero: true, allowNegative: negativeAllowed });
    const lineTotal = price * item.quantity;
    if (!isExact(lineTotal)) throw new AppError(ORDER_ERRORS.orderAmountsInvalid, `${field}.total is too large.`);
    if (
      item.total !== undefined &&
      amount(item.total, `${field}.total`, { allowZero: true, allowNegative: true }) !== lineTotal
    ) {
      throw new AppError(ORDER_ERRORS.orderAmountsInvalid, `${field}.total must equal price × quantity.`);
    }
    return {
      id: ctx.ids.sortable(madeAt),
      order_id: orderId,
      merchant_id: ctx.merchant.id,
      position: index,
      purchasable_type: item.purchasable_type,
      purchase_id: item.purchase_id ?? null,
      price,
      quantity: item.quantity,
      total: lineTotal,
      label: item.label ?? null,
    };
  });
  if (items.length > 0) {
    let sum = 0;
    for (const item of items) {
      sum += item.total;
      // Past 2^53 the sum would round, and a wrong sum could pass for the right one.
      if (!isExact(sum))
        throw new AppError(ORDER_ERRORS.orderAmountsInvalid, 'order.line_items add up to more than any amount can be.');
    }
    if (sum !== total)
      throw new AppError(ORDER_ERRORS.orderAmountsInvalid, 'order.line_items must add up to order.charge_fee.');
    const tipLines = items
      .filter((item) => item.purchasable_type === 'RearTips')
      .reduce((acc, item) => acc + item.total, 0);
    if (tipLines !== tips)
      throw new AppError(
        ORDER_ERRORS.orderAmountsInvalid,
        'order.line_items: the RearTips lines must add up to order.tips.',
      );
  }

  const today = localDate(ctx.clock.now().getTime(), ctx.merchant.timezone);
  const dueDate = body.due_date ?? null;
  if (dueDate !== null) {
    const [y, m, d] = dueDate.split('-').map(Number) as [number, number, number];
    const real = new Date(Date.UTC(y, m - 1, d));
    if (real.getUTCFullYear() !== y || real.getUTCMonth() !== m - 1 || real.getUTCDate() !== d) {
      throw new AppError(PLATFORM_ERRORS.validationFailed, 'order.due_date is not a real date.');
    }
    if (dueDate < today)
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        `order.due_date must not be before today (${today} in ${ctx.merchant.timezone}).`,
      );
  }

  const notifyUrl = blankAsAbsent(body.callback_url) ?? null;
  const returnUrl = blankAsAbsent(body.redirect_url) ?? null;
  if (notifyUrl !== null) checkMerchantUrl(notifyUrl, 'order.callback_url', ctx.config.mode);
  if (returnUrl !== null) checkMerchantUrl(returnUrl, 'order.redirect_url', ctx.config.mode);

  const customerUuid = blankAsAbsent(input.customer_uuid) ?? null;
  if (customerUuid !== null && customerUuid !== options.customerFound && !(await findCustomer(ctx, customerUuid))) {
    throw new AppError(ORDER_ERRORS.orderCustomerUnknown);
  }

  const now = ctx.clock.now().getTime();
  const content = {
    currency,
    total,
    tips,
    subtotal,
    dueDate,
    note: body.note ?? null,
    notifyUrl,
    returnUrl,
    customerUuid,
    items: items.map(({ purchasable_type, purchase_id, price, quantity, label }) => [
      purchasable_type,
      purchase_id,
      price,
      quantity,
      label,
    ]),
  };
  return {
    order: {
      id: orderId,
      merchant_id: ctx.merchant.id,
      reference_number: body.reference_number,
      source: SOURCE,
      type: TYPE,
      currency,
      currency_exponent: exponent,
      initial_total: total,
      initial_tips: tips,
      subtotal,
      paid_total: 0,
      state: 'invoiced',
      correspondence_state: 'unpaid',
      due_date: dueDate,
      note: body.note ?? null,
      notify_url: notifyUrl,
      return_url: returnUrl,
      customer_id: customerUuid,
      content_hash: createHash('sha256').update(JSON.stringify(content)).digest('hex'),
      app_id: options.appId ?? (ctx.actor.kind === 'app' ? ctx.actor.appId : null),
      voided_at: null,
      created_at: now,
      updated_at: now,
    },
    items,
  };
}

/** Eighteen digits: the business time to the second, then six digits drawn from the merchant's ids (unique, checked by the database). */
function orderNumber(ctx: Context): string {
  const stamp = ctx.clock.now().toISOString().replace(/\D/g, '').slice(2, 14);
  return `${stamp}${String(ctx.ids.below(1_000_000)).padStart(6, '0')}`;
}
