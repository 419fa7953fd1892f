import { randomBytes } from 'node:crypto';
import type { Context } from '../../context/context.js';
import { AppError, PLATFORM_ERRORS } from '../../platform/errors.js';
import { roleAllows } from '../../platform/roles.js';
import { formTokenField, problemPage } from '../../web/dashboard/frame.js';
import type { ScreenAnswer, SignedIn, SignedInScreen } from '../../web/dashboard/screen.js';
import { type Html, html } from '../../web/html.js';
import { captureAuthorization, refundTransaction, voidTransaction } from '../adjustments.js';
import { presentOrder } from '../present.js';
import { checkOrder, listMerchantOrders } from '../queries.js';
import { ORDER_STATES } from '../tables.js';
import type { TransactionRow } from '../transactions-store.js';

export const ORDERS_PATH = '/dashboard/orders';
const PAGE_SIZE = 50;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The list's filters, as its address carries them: what a bookmark or a shared link keeps. */
interface OrderFilters {
  state?: string;
  reference?: string;
  customer?: string;
  currency?: string;
  min?: string;
  max?: string;
  from?: string;
  to?: string;
}

const FILTER_NAMES = ['state', 'reference', 'customer', 'currency', 'min', 'max', 'from', 'to'] as const;

function filtersOf(query: Record<string, string | undefined>): OrderFilters {
  const filters: OrderFilters = {};
  for (const name of FILTER_NAMES) {
    const value = query[name]?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The filters in the API's query language (docs/orders.md): the same conditions the signed list takes. */
function queryLanguage(filters: OrderFilters): Record<string, string> {
  const dateOf = (name: 'from' | 'to', value: string) => {
    if (!DATE.test(value)) throw new AppError(PLATFORM_ERRORS.validationFailed, `${name} must be a date (YYYY-MM-DD).`);
    return name === 'from' ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`;
  };
  return {
    ...(filters.state && { 'filter[state][_eq]': filters.state }),
    ...(filters.reference && { 'filter[reference_number][_contains]': filters.reference }),
    ...(filters.customer && { 'filter[customer.uuid][_eq]': filters.customer }),
    ...(filters.currency && { 'filter[currency][_eq]': filters.currency.toUpperCase() }),
    ...(filters.min && { 'filter[initial_total][_gte]': filters.min }),
    ...(filters.max && { 'filter[initial_total][_lte]': filters.max }),
    ...(filters.from && { 'filter[created_at][_gte]': dateOf('from', filters.from) }),
    ...(filters.to && { 'filter[created_at][_lte]': dateOf('to', filters.to) }),
  };
}

function addressOf(filters: OrderFilters, offset: number): string {
  const query = new URLSearchParams(filters as Record<string, string>);
  if (offset > 0) query.set('offset', String(offset));
  const text = query.toString();
  return text ? `${ORDERS_PATH}?${text}` : ORDERS_PATH;
}

async function ordersPage(ctx: Context, query: Record<string, string | undefined>): Promise<ScreenAnswer> {
  const filters = filtersOf(query);
  const offset = /^\d{1,9}$/.test(query.offset ?? '') ? Number(query.offset) : 0;
  let listed: { rows: Html; total: number } | { problem: string };
  try {
    const { views, total } = await listMerchantOrders(ctx, queryLanguage(filters), { offset, limit: PAGE_SIZE });
    listed = { rows: html`${views.map((view) => orderRow(presentOrder(view)))}`, total };
  } catch (error) {
    if (!(error instanceof AppError) || error.definition.status >= 500) throw error;
    listed = { problem: error.message };
  }
  const field = (name: keyof OrderFilters, label: string, type = 'text') =>
    html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" value="${filters[name] ?? ''}"></div>`;
  return {
    status: 'problem' in listed ? 400 : 200,
    page: {
      title: 'Payments',
      body: html`<h1>Payments</h1>
<form method="get" action="${ORDERS_PATH}" class="card filters" role="search" aria-label="Filter orders">
<div><label for="f-state">State</label><select id="f-state" name="state"><option value="">any</option>${ORDER_STATES.map(
        (state) => html`<option value="${state}"${filters.state === state ? html` selected` : ''}>${state}</option>`,
      )}</select></div>
${field('reference', 'Reference contains')}
${field('customer', 'Customer (uuid)')}
${field('currency', 'Currency')}
${field('min', 'Amount at least')}
${field('max', 'Amount at most')}
${field('from', 'Created from', 'date')}
${field('to', 'Created to', 'date')}
<div><button type="submit">Filter</button> <a href="${ORDERS_PATH}">Clear</a></div>
</form>
${
  'problem' in listed
    ? html`<p class="notice error" role="alert" data-testid="problem">${listed.problem}</p>`
    : html`<p class="muted" data-testid="total">${listed.total} order${listed.total === 1 ? '' : 's'}${listed.total > PAGE_SIZE ? html`, ${offset + 1} to ${Math.min(offset + PAGE_SIZE, listed.total)} shown` : ''}</p>
<table class="list" data-testid="orders">
<thead><tr><th>Number</th><th>Reference</th><th>State</th><th>Amount</th><th>Paid</th><th>Created (UTC)</th></tr></thead>
<tbody>${listed.rows}</tbody>
</table>
<nav aria-label="Pages">
${offset > 0 && html`<a href="${addressOf(filters, Math.max(0, offset - PAGE_SIZE))}" rel="prev">Newer</a>`}
${offset + PAGE_SIZE < listed.total && html` <a href="${addressOf(filters, offset + PAGE_SIZE)}" rel="next">Older</a>`}
</nav>`
}`,
    },
  };
}

type OrderReply = ReturnType<typeof presentOrder>;

function orderRow(order: OrderReply): Html {
  return html`<tr data-testid="order">
<td data-label="Number"><a href="${ORDERS_PATH}/${order.number}">${order.number}</a></td>
<td data-label="Reference">${order.reference_number}</td>
<td data-label="State">${order.state}</td>
<td data-label="Amount">${order.currency} ${String(order.initial_total)}</td>
<td data-label="Paid">${order.currency} ${order.paid_total}</td>
<td data-label="Created">${order.created_at.replace('T', ' ').slice(0, 19)}</td>
</tr>`;
}

async function orderPage(ctx: Context, number: string, signedIn: SignedIn): Promise<ScreenAnswer> {
  const order = presentOrder(await checkOrder(ctx, { order: { number } }));
  // Money actions are an admin's or an owner's: a viewer is offered none (and refused by the server if it posts one).
  const acts = roleAllows(signedIn.role, 'admin');
  const facts: Array<[string, Html | string]> = [
    ['State', order.state],
    ['Reference', order.reference_number],
    ['Amount', `${order.currency} ${String(order.initial_total)}`],
    ['Paid', `${order.currency} ${order.paid_total}`],
    ['Unpaid', `${order.currency} ${order.unpaid_total}`],
    ['Customer', order.customer_uuid ?? 'none'],
    ['Due date', order.due_date ?? 'none'],
    ['Note', order.note ?? ''],
    ['Created (UTC)', order.created_at.replace('T', ' ').slice(0, 19)],
  ];
  return {
    status: 200,
    page: {
      title: `Order ${order.number}`,
      body: html`<p><a href="${ORDERS_PATH}">Payments</a></p>
<h1>Order ${order.number}</h1>
<table data-testid="order-facts"><tbody>${facts.map(([name, value]) => html`<tr><th scope="row">${name}</th><td>${value}</td></tr>`)}</tbody></table>
<h2>Transactions</h2>
${
  order.transactions.length === 0
    ? html`<p>None yet.</p>`
    : html`<table class="list" data-testid="transactions">
<thead><tr><th>Type</th><th>Amount</th><th>Outcome</th><th>Id</th>${acts && html`<th>Actions</th>`}</tr></thead>
<tbody>${order.transactions.map(
        (t) => html`<tr data-testid="transaction">
<td data-label="Type">${t.type}</td>
<td data-label="Amount">${t.currency} ${String(t.amount)}</td>
<td data-label="Outcome">${t.voided ? 'voided' : t.is_pending ? 'pending' : t.success ? 'succeeded' : 'failed'}</td>
<td data-label="Id">${t.uuid}</td>
${acts && html`<td data-label="Actions">${actionForms(order.number, t, signedIn)}</td>`}
</tr>`,
      )}</tbody>
</table>`
}
${
  order.line_items !== null &&
  html`<h2>Line items</h2>
<table class="list" data-testid="line-items">
<thead><tr><th>Item</th><th>Price</th><th>Quantity</th><th>Total</th></tr></thead>
<tbody>${order.line_items.map(
    (item) =>
      html`<tr><td data-label="Item">${item.label ?? item.purchasable_type}</td><td data-label="Price">${String(item.price)}</td><td data-label="Quantity">${String(item.quantity)}</td><td data-label="Total">${String(item.total)}</td></tr>`,
  )}</tbody>
</table>`
}`,
    },
  };
}

/** The merchant's payments: the orders list with the query language's filters and paging, and an order's page. */
export const ORDER_SCREENS: readonly SignedInScreen[] = [
  {
    method: 'GET',
    url: ORDERS_PATH,
    access: 'viewer',
    menu: 'Payments',
    handle: (ctx, request) => ordersPage(ctx, request.query),
  },
  {
    method: 'GET',
    url: `${ORDERS_PATH}/:number`,
    access: 'viewer',
    handle: (ctx, request) => orderPage(ctx, request.params.number!, request.signedIn),
  },
  ...(['refund', 'void', 'capture'] as const).map(
    (action): SignedInScreen => ({
      method: 'POST',
      url: `${ORDERS_PATH}/:number/transactions/:uuid/${action}`,
      access: 'admin',
      handle: (ctx, request) =>
        takeAction(ctx, action, request.params.number!, request.params.uuid!, request.form, request.signedIn),
    }),
  ),
];

type Action = 'refund' | 'void' | 'capture';

const ACTIONS: Record<Action, { label: string; done: string; takesAmount: boolean }> = {
  refund: { label: 'Refund', done: 'transaction.refunded', takesAmount: true },
  void: { label: 'Void', done: 'transaction.voided', takesAmount: false },
  capture: { label: 'Capture', done: 'transaction.captured', takesAmount: true },
};

type TransactionReply = OrderReply['transactions'][number];

/** The actions the transaction allows now, as the API's flags say; the verb refuses anything else all the same. */
function actionForms(number: string, t: TransactionReply, signedIn: SignedIn): Html {
  const capturable = t.type === 'Authorization' && t.success && !t.captured && !t.voided && !t.void_is_pending;
  const offered: Action[] = [
    ...(t.allow_refund ? (['refund'] as const) : []),
    ...(capturable ? (['capture'] as const) : []),
    ...(t.allow_void ? (['void'] as const) : []),
  ];
  return html`${offered.map(
    (action) => html`<form method="post" action="${ORDERS_PATH}/${number}/transactions/${t.uuid}/${action}">
${formTokenField(signedIn.formToken)}
${
  ACTIONS[action].takesAmount &&
  html`<label class="muted" for="${action}-${t.uuid}">${ACTIONS[action].label} amount</label><input id="${action}-${t.uuid}" name="amount" type="text" inputmode="decimal" value="${String(t.amount)}" size="10">`
}
<button type="submit"${action === 'void' ? html` class="danger"` : ''}>${ACTIONS[action].label}…</button>
</form>`,
  )}`;
}

/**
 * A money action behind a confirmation: the first post shows what will happen and asks; the confirmed one calls the
 * API's own verb (refused as the API refuses it, with the same message) and goes back to the order.
 */
async function takeAction(
  ctx: Context,
  action: Action,
  number: string,
  uuid: string,
  form: Record<string, string>,
  signedIn: SignedIn,
): Promise<ScreenAnswer> {
  const order = presentOrder(await checkOrder(ctx, { order: { number } }));
  const transaction = order.transactions.find((t) => t.uuid === uuid);
  if (!transaction) await checkOrder(ctx, { order: { number }, transaction: { uuid } });
  const amount = ACTIONS[action].takesAmount ? (form.amount ?? '').trim() : undefined;
  const what = `${ACTIONS[action].label} ${amount === undefined ? '' : `${order.currency} ${amount} of `}transaction ${uuid} of order ${number}`;
  if (form.confirm !== 'yes') {
    return {
      status: 200,
      page: {
        title: `${ACTIONS[action].label}?`,
        body: html`<h1>${ACTIONS[action].label}?</h1>
<p data-testid="confirm-question">${what}?</p>
<form method="post" action="${ORDERS_PATH}/${number}/transactions/${uuid}/${action}">
${formTokenField(signedIn.formToken)}
${amount !== undefined && html`<input type="hidden" name="amount" value="${amount}">`}
<input type="hidden" name="confirm" value="yes">
<input type="hidden" name="once" value="${randomBytes(18).toString('base64url')}">
<button type="submit"${action === 'void' ? html` class="danger"` : ''}>Yes, ${ACTIONS[action].label.toLowerCase()}</button>
</form>
<p><a href="${ORDERS_PATH}/${number}">No, back to the order</a></p>`,
      },
    };
  }
  // The confirmation's one-time key is the action's idempotency key, as an API client's would be: a second post of
  // the same confirmation (a double click, a retry after an error) finds the first action instead of acting again.
  const once = form.once ?? '';
  if (!ONCE.test(once))
    throw new AppError(PLATFORM_ERRORS.validationFailed, 'The form is incomplete: open the order again and retry.');
  const acting: Context = {
    ...ctx,
    idempotency: { key: `dashboard:${once}`, expiresAt: ctx.wallClock.now().getTime() + ACTION_KEY_TTL_MS },
  };
  const target = { order: { number }, transactionId: uuid };
  let row: TransactionRow;
  try {
    const outcome =
      action === 'refund'
        ? await refundTransaction(acting, target, { amount: amount! })
        : action === 'capture'
          ? await captureAuthorization(acting, target, amount === '' ? undefined : amount)
          : await voidTransaction(acting, target);
    row = outcome.transaction;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    // Refused as the API refuses it, with its status and message; and in the audit log, as an attempt.
    const unknown = error.definition.status >= 500;
    return {
      status: error.definition.status,
      page: problemPage(
        unknown ? 'Outcome not known yet' : 'Refused',
        unknown ? `${error.message} Check the order in a moment before trying again.` : error.message,
      ),
      audit: {
        action: `${ACTIONS[action].done}.${unknown ? 'unknown' : 'refused'}`,
        subject: `${what}: ${error.message}`,
      },
    };
  }
  // A void changes the transaction itself; a refund or a capture is a transaction of its own, with its outcome.
  const result =
    action === 'void' ? (row.voided === 1 ? 'voided' : row.void_is_pending === 1 ? 'pending' : row.status) : row.status;
  return {
    redirect: `${ORDERS_PATH}/${number}`,
    audit: { action: ACTIONS[action].done, subject: `${what}: ${result}` },
  };
}

const ONCE = /^[A-Za-z0-9_-]{16,64}$/;
/** As long as an API client's Idempotency-Key is kept. */
const ACTION_KEY_TTL_MS = 24 * 60 * 60_000;
