import { cardAttempts, returnCardAttempt, takeCardAttempt } from '../../cards/attempts.js';
import type { Context, PlatformContext } from '../../context/context.js';
import { AppError, isAppError } from '../../platform/errors.js';
import { WALLET_CURRENCIES, WALLET_METHODS, WALLET_NAMES, type WalletMethod } from '../../rails/acquirer.js';
import { RAIL_ERRORS } from '../../rails/errors.js';
import { cardFields, type PageCardForm, readPageCard } from '../../web/card-form.js';
import { type Html, html, trusted } from '../../web/html.js';
import { displayAmount, page } from '../../web/layout.js';
import { goneAnswer, openLinkPage, withCheckout } from '../../web/link-page.js';
import { isPageAnswer, type PageAnswer, type PageRoute } from '../../web/pages.js';
import { qrSvg } from '../../web/qr.js';
import { ORDER_ERRORS } from '../errors.js';
import { PAYMENT_LINK } from '../links.js';
import { loadOrderView } from '../lookup.js';
import type { StoredPayerAction } from '../payment-data.js';
import { completePayerAction, payOrder } from '../payments.js';
import type { OrderView } from '../present.js';
import { findOrder } from '../store.js';
import { orderTotals } from '../totals.js';
import type { TransactionRow } from '../transactions-store.js';

/** Fixed texts for the notices a redirect carries: the query names one, it never carries text of its own. */
const NOTICES = {
  declined: 'Your card was declined.',
  wallet_declined: 'The wallet payment was not made: nothing was charged. Choose how to pay.',
  locked: 'Too many declined cards: this order takes no more card payments.',
  cancelled: 'The payment was cancelled. Choose how to pay.',
  unavailable: 'The payment could not be made: nothing was charged. Please try again in a moment.',
} as const;
export type Notice = keyof typeof NOTICES;
export const isNotice = (text: unknown): text is Notice => typeof text === 'string' && Object.hasOwn(NOTICES, text);

interface Checkout {
  ctx: Context;
  view: OrderView;
  token: string;
  /** The checkout's own address, under the public base URL. */
  url: string;
  /** Card attempts counted against the order's cap (declined, or being tried). */
  cardAttempts: number;
}

/** The order behind an open payment link, or the page to answer instead (an unknown or expired link). */
async function openCheckout(
  platform: PlatformContext,
  token: string,
  requestId: string,
): Promise<Checkout | PageAnswer> {
  const opened = await openLinkPage(platform, PAYMENT_LINK, token, requestId);
  if (isPageAnswer(opened)) return opened;
  const { ctx, link, url } = opened;
  const order = await findOrder(ctx.db, ctx.merchant.id, { id: link.subject_id });
  if (!order) return goneAnswer(ctx, 'order');
  const cardsTried = await cardAttempts(ctx.db, ctx.merchant.id, { kind: 'order', id: order.id });
  return { ctx, view: await loadOrderView(ctx, order), token, url, cardAttempts: cardsTried };
}

/** The payment page, as the order stands now. */
export async function showCheckout(
  platform: PlatformContext,
  token: string,
  requestId: string,
  notice?: Notice,
): Promise<PageAnswer> {
  const checkout = await openCheckout(platform, token, requestId);
  if (isPageAnswer(checkout)) return checkout;
  const shown =
    notice === undefined
      ? undefined
      : { kind: notice === 'cancelled' ? ('info' as const) : ('error' as const), text: noticeText(checkout, notice) };
  // After a declined card the payer tries another: the name stays as they typed it (the number and code never do).
  const form = notice === 'declined' ? { holder_name: latestDeclinedCard(checkout)?.holder_name } : undefined;
  return renderCheckout(checkout, shown, form);
}

/** What is kept of the latest card this order declined (our own stored facts, never the query's). */
function latestDeclinedCard(checkout: Checkout): { resp_msg?: string; holder_name?: string } | undefined {
  const declined = [...checkout.view.transactions]
    .reverse()
    .find((t) => t.payment_method === 'credit_card' && t.status === 'failed');
  return declined && (JSON.parse(declined.payment_data) as { resp_msg?: string; holder_name?: string });
}

function noticeText(checkout: Checkout, notice: Notice): string {
  const { order } = checkout.view;
  if (notice === 'locked') {
    // Refused only because other attempts were in flight at that moment: the order is not locked.
    if (checkout.cardAttempts < checkout.ctx.config.pageDeclineLimit)
      return 'Another card payment for this order was being tried. Please try again.';
    return hasWallets(order.currency) ? `${NOTICES.locked} You can still pay with a wallet below.` : NOTICES.locked;
  }
  if (notice !== 'declined') return NOTICES[notice];
  // The acquirer's reason for the latest declined card, if there is one.
  const reason = latestDeclinedCard(checkout)?.resp_msg;
  return reason ? `${NOTICES.declined} (${reason}) Try another card.` : `${NOTICES.declined} Try another card.`;
}

async function renderCheckout(
  checkout: Checkout,
  notice?: { kind: 'error' | 'info'; text: string },
  form?: Partial<PageCardForm>,
  status = 200,
): Promise<PageAnswer> {
  const { ctx, view } = checkout;
  const { order } = view;
  const sandbox = ctx.config.mode === 'sandbox';
  const frame = (title: string, body: Html, refresh?: { seconds: number; to?: string }): PageAnswer => ({
    status,
    html: page({
      title: `${title} · ${ctx.merchant.name}`,
      heading: ctx.merchant.name,
      sandbox,
      body: html`${summary(view)}${body}`,
      ...(refresh && { refreshSeconds: refresh.seconds, refreshTo: refresh.to }),
    }),
  });
  const due = order.initial_total - order.paid_total;
  const amount = (minor: number) => displayAmount(minor, order.currency_exponent, order.currency);

  if (order.voided_at !== null) {
    return frame(
      'Order cancelled',
      html`<section class="panel result"><h2 data-testid="status">This order was cancelled</h2>
<p>${ctx.merchant.name} cancelled this order: there is nothing to pay.</p></section>`,
    );
  }
  if (!ctx.rails.acquirer) {
    return frame(
      'Payment unavailable',
      html`<section class="panel result"><h2 data-testid="status">Online payment is not available</h2>
<p>This platform has no payment connection set up yet. Ask ${ctx.merchant.name} for another way to pay.</p></section>`,
    );
  }
  const waiting = view.transactions.find(
    (t) => t.status === 'pending' && (t.type === 'Sales' || t.type === 'Authorization'),
  );
  // A wallet's payer pays on another device, and a payment being sent finishes by itself: the page looks again.
  if (waiting)
    return frame(
      'Waiting for your payment',
      await waitingPanel(checkout, waiting),
      waiting.payment_method === 'credit_card' && waiting.progress === 'awaiting_payer' ? undefined : { seconds: 3 },
    );
  if (due <= 0) {
    const back = order.return_url;
    return frame(
      'Paid',
      html`<section class="panel result">
<div class="mark" aria-hidden="true">✓</div>
<h2 data-testid="status">Payment received</h2>
<p>${amount(order.paid_total)} paid to ${ctx.merchant.name}. Thank you.</p>
${
  back !== null &&
  html`<a class="button" data-testid="return" href="${back}">Return to ${ctx.merchant.name}</a>
<p class="muted">Returning you to the merchant in a few seconds.</p>`
}
</section>`,
      back === null ? undefined : { seconds: 5, to: back },
    );
  }
  const payable = orderTotals(order, view.transactions).payable;
  if (payable <= 0) {
    return frame(
      'Being paid',
      html`<section class="panel result"><h2 data-testid="status">This order is being paid</h2>
<p>A payment for it is already under way. Ask ${ctx.merchant.name} if you think this is wrong.</p></section>`,
    );
  }
  const cardsLocked = checkout.cardAttempts >= ctx.config.pageDeclineLimit;
  const wallets = walletsFor(order.currency);
  const action = (path: string) => `${checkout.url}/${path}`;
  return frame(
    `Pay ${amount(payable)}`,
    html`
${notice && html`<div class="panel"><p class="notice ${notice.kind}" role="alert" data-testid="notice">${notice.text}</p></div>`}
${
  !cardsLocked &&
  html`<section class="panel">
<h2>Pay by card</h2>
<form method="post" action="${action('card')}" autocomplete="on" data-testid="card-form">
${cardFields({ holderName: form?.holder_name, holderRequired: false })}
<button type="submit" data-testid="pay">Pay ${amount(payable)}</button>
</form>
${
  sandbox &&
  html`<p class="muted">Sandbox cards: <code>4242 4242 4242 4242</code> pays, <code>4000 0000 0000 0002</code> is declined,
<code>4000 0000 0000 3220</code> asks for 3-D Secure. Any future expiry, any code.</p>`
}
</section>`
}
${
  wallets.length > 0 &&
  html`<section class="panel">
<h2>${cardsLocked ? 'Pay with a wallet' : 'Or pay with'}</h2>
<div class="wallets">${wallets.map(
    (method) => html`<form method="post" action="${action('wallet')}">
<input type="hidden" name="method" value="${method}"><button type="submit" data-testid="wallet-${method}">${WALLET_NAMES[method]}</button></form>`,
  )}</div>
</section>`
}`,
  );
}

const walletsFor = (currency: string) =>
  WALLET_METHODS.filter((method) => WALLET_CURRENCIES[method].includes(currency));
const hasWallets = (currency: string) => walletsFor(currency).length > 0;

/** The order's lines and totals, at the top of every state of the page. */
function summary(view: OrderView): Html {
  const { order } = view;
  const amount = (minor: number) => displayAmount(minor, order.currency_exponent, order.currency);
  const due = order.initial_total - order.paid_total;
  return html`<section class="panel">
<p class="muted">Order ${order.reference_number} · No. ${order.number}</p>
${order.note !== null && html`<p data-testid="note">${order.note}</p>`}
<table class="items" data-testid="items">
${view.items
  .filter((item) => item.purchasable_type !== 'RearTips')
  .map(
    (item) => html`<tr>
<td>${item.label ?? item.purchasable_type}${item.quantity !== 1 && html` × ${item.quantity}`}</td><td class="num">${amount(item.total)}</td></tr>`,
  )}
${order.initial_tips > 0 && html`<tr><td>Tips</td><td class="num">${amount(order.initial_tips)}</td></tr>`}
<tr class="total"><td>Total</td><td class="num" data-testid="total">${amount(order.initial_total)}</td></tr>
${order.paid_total !== 0 && html`<tr><td>Paid</td><td class="num">${amount(order.paid_total)}</td></tr>`}
${due > 0 && html`<tr class="due"><td>Amount due</td><td class="num" data-testid="due">${amount(due)}</td></tr>`}
</table>
</section>`;
}

/** A payment that waits for the payer: the 3-D Secure step to finish, or a wallet's QR code to pay. */
async function waitingPanel(checkout: Checkout, transaction: TransactionRow): Promise<Html> {
  const { ctx } = checkout;
  const action =
    transaction.payer_action === null ? undefined : (JSON.parse(transaction.payer_action) as StoredPayerAction);
  const cancel = html`<form method="post" action="${checkout.url}/cancel">
<input type="hidden" name="transaction" value="${transaction.id}">
<button type="submit" class="secondary" data-testid="cancel">Choose another way to pay</button></form>`;
  if (!action || transaction.progress !== 'awaiting_payer') {
    return html`<section class="panel result"><h2 data-testid="status">Processing your payment…</h2>
<p class="muted">This page refreshes by itself.</p></section>`;
  }
  if (action.kind === '3ds') {
    return html`<section class="panel">
<h2 data-testid="status">Verify your card</h2>
<p>Your bank asks you to confirm this payment.</p>
<a class="button" data-testid="continue-3ds" href="${withCheckout(ctx, action.redirect_url, checkout.token)}">Continue to your bank</a>
${cancel}</section>`;
  }
  const name = WALLET_NAMES[transaction.payment_method as WalletMethod] ?? transaction.payment_method;
  const simulate = await ctx.rails.acquirer?.simulatedPayerPage?.(transaction.id);
  return html`<section class="panel result">
<h2 data-testid="status">Scan to pay with ${name}</h2>
${action.qr_code !== undefined && html`<div data-testid="qr">${trusted(await qrSvg(action.qr_code))}</div>`}
<p class="muted">Open ${name} on your phone and scan the code. This page updates once you have paid.</p>
${action.redirect_url !== undefined && html`<a class="button" data-testid="open-wallet" href="${withCheckout(ctx, action.redirect_url, checkout.token)}">Open ${name}</a>`}
${simulate !== undefined && action.redirect_url === undefined && html`<a class="button secondary" data-testid="simulate-wallet" href="${withCheckout(ctx, simulate, checkout.token)}">Sandbox: open the payer's ${name} app</a>`}
${cancel}</section>`;
}

/**
 * The payer pays the amount due by card. Every attempt takes one of the order's declines first, so card testers
 * meet the cap however many cards they send at once, and gives it back only if the card paid (or nothing was
 * tried): a refused card keeps it, and so does one sent to 3-D Secure, since reaching a challenge already tells
 * a tester the number is live (if the challenge passes, the order is paid and the cap no longer matters).
 */
export async function payByCard(
  platform: PlatformContext,
  token: string,
  requestId: string,
  form: Record<string, string>,
): Promise<PageAnswer> {
  const checkout = await openCheckout(platform, token, requestId);
  if (isPageAnswer(checkout)) return checkout;
  const { ctx, view } = checkout;
  const card = readPageCard(ctx, form);
  if ('problem' in card) return renderCheckout(checkout, { kind: 'error', text: card.problem }, card.form, 422);
  if (
    !(await takeCardAttempt(ctx.db, ctx.merchant.id, { kind: 'order', id: view.order.id }, ctx.config.pageDeclineLimit))
  ) {
    return { redirect: `${checkout.url}?notice=locked` };
  }
  let counted = false;
  try {
    const { transaction } = await payOrder(ctx, {
      order: { number: view.order.number },
      payment: { credit_card: card.input },
    });
    counted = transaction.status !== 'succeeded';
    if (transaction.status === 'pending' && transaction.payer_action !== null) {
      const action = JSON.parse(transaction.payer_action) as StoredPayerAction;
      // Straight on to our own challenge page; another site's comes from the page's link (CSP form-action 'self').
      if (action.kind === '3ds' && action.redirect_url.startsWith(`${ctx.config.publicBaseUrl}/`)) {
        return { redirect: withCheckout(ctx, action.redirect_url, token) };
      }
    }
    return { redirect: transaction.status === 'failed' ? `${checkout.url}?notice=declined` : checkout.url };
  } catch (error) {
    if (isAppError(error, RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer)) {
      return { redirect: `${checkout.url}?notice=unavailable` };
    }
    // Paid, voided or already being paid meanwhile: the page shows which.
    if (error instanceof AppError && error.definition.status < 500) return { redirect: checkout.url };
    throw error;
  } finally {
    if (!counted) await returnCardAttempt(ctx.db, ctx.merchant.id, { kind: 'order', id: view.order.id });
  }
}

/** The payer chose a wallet: the payment waits for the payer, and the page shows its QR code. */
export async function payByWallet(
  platform: PlatformContext,
  token: string,
  requestId: string,
  form: Record<string, string>,
): Promise<PageAnswer> {
  const checkout = await openCheckout(platform, token, requestId);
  if (isPageAnswer(checkout)) return checkout;
  const method = WALLET_METHODS.find((m) => m === form.method);
  if (!method) return { redirect: checkout.url };
  try {
    await payOrder(checkout.ctx, { order: { number: checkout.view.order.number }, payment: { [method]: {} } });
  } catch (error) {
    if (isAppError(error, RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer)) {
      return { redirect: `${checkout.url}?notice=unavailable` };
    }
    // Not offered for this currency, paid or voided meanwhile: the page shows what is possible now.
    if (!(error instanceof AppError && error.definition.status < 500)) throw error;
  }
  return { redirect: checkout.url };
}

/** The payer gives up a payment still waiting for them (a challenge not finished, a QR code not paid). */
export async function cancelWaitingPayment(
  platform: PlatformContext,
  token: string,
  requestId: string,
  form: Record<string, string>,
): Promise<PageAnswer> {
  const checkout = await openCheckout(platform, token, requestId);
  if (isPageAnswer(checkout)) return checkout;
  const waiting = checkout.view.transactions.find((t) => t.id === form.transaction && t.progress === 'awaiting_payer');
  if (!waiting) return { redirect: checkout.url };
  try {
    await completePayerAction(checkout.ctx, waiting.id, 'abandoned');
  } catch (error) {
    // Finished meanwhile (paid, failed or expired): the page shows how.
    if (!isAppError(error, ORDER_ERRORS.transactionNotPending)) throw error;
  }
  return { redirect: `${checkout.url}?notice=cancelled` };
}

/** The payment page of a payment link: the order's checkout, its card and wallet forms. */
export const CHECKOUT_PAGES: PageRoute[] = [
  {
    method: 'GET',
    url: `${PAYMENT_LINK.path}/:token`,
    handle: (platform, { params, id, query }) =>
      showCheckout(platform, params.token!, id, isNotice(query.notice) ? query.notice : undefined),
  },
  {
    method: 'POST',
    url: `${PAYMENT_LINK.path}/:token/card`,
    handle: (platform, { params, id, form }) => payByCard(platform, params.token!, id, form),
  },
  {
    method: 'POST',
    url: `${PAYMENT_LINK.path}/:token/wallet`,
    handle: (platform, { params, id, form }) => payByWallet(platform, params.token!, id, form),
  },
  {
    method: 'POST',
    url: `${PAYMENT_LINK.path}/:token/cancel`,
    handle: (platform, { params, id, form }) => cancelWaitingPayment(platform, params.token!, id, form),
  },
];
