import { cardAttempts, returnCardAttempt, takeCardAttempt } from '../../cards/attempts.js';
import type { PlatformContext } from '../../context/context.js';
import { type CustomerRow, findCustomer } from '../../customers/index.js';
import { AppError } from '../../platform/errors.js';
import { cardFields, readPageCard } from '../../web/card-form.js';
import { type Html, html } from '../../web/html.js';
import { page } from '../../web/layout.js';
import { goneAnswer, type OpenLinkPage, openLinkPage, withCheckout } from '../../web/link-page.js';
import { isPageAnswer, type PageAnswer, type PageRoute } from '../../web/pages.js';
import { bindPaymentToken } from '../bind.js';
import { BINDING_LINK } from '../links.js';
import { customerTokens, findToken, type TokenRow } from '../store.js';

/**
 * The card-binding page ("wallet link"): a customer saves a card with the merchant without the merchant ever
 * touching card data. The card is bound exactly as `POST .../customers/{uuid}/payment_tokens` binds it (3-D
 * Secure included), and the page then shows the customer's saved cards.
 */
interface BindingPage extends OpenLinkPage {
  customer: CustomerRow;
}

async function openBindingPage(
  platform: PlatformContext,
  token: string,
  requestId: string,
): Promise<BindingPage | PageAnswer> {
  const opened = await openLinkPage(platform, BINDING_LINK, token, requestId);
  if (isPageAnswer(opened)) return opened;
  const { ctx, link } = opened;
  const customer = await findCustomer(ctx, link.subject_id);
  if (!customer) return goneAnswer(ctx, 'customer');
  return { ...opened, customer };
}

/** The page: the customer's saved cards, what became of the card just tried (`?token=`), and the form. */
export async function showBindingPage(
  platform: PlatformContext,
  token: string,
  requestId: string,
  justTried?: string,
  problem?: string,
): Promise<PageAnswer> {
  const opened = await openBindingPage(platform, token, requestId);
  if (isPageAnswer(opened)) return opened;
  const { ctx, customer } = opened;
  const tried = justTried === undefined ? undefined : await findToken(ctx.db, ctx.merchant.id, justTried, customer.id);
  const saved = (await customerTokens(ctx.db, ctx.merchant.id, customer.id)).filter(
    (t) => t.state === 'success' && t.token_type === 'CreditCard',
  );
  const locked =
    (await cardAttempts(ctx.db, ctx.merchant.id, { kind: 'link', id: opened.link.token_hash })) >=
    ctx.config.pageDeclineLimit;
  const notice =
    problem !== undefined
      ? html`<p class="notice error" role="alert" data-testid="notice">${problem}</p>`
      : tried &&
        html`<p class="notice ${tried.state === 'success' ? 'info' : 'error'}" role="alert" data-testid="notice">${triedText(tried)}</p>`;
  return {
    status: problem === undefined ? 200 : 422,
    html: page({
      title: `Save a card · ${ctx.merchant.name}`,
      heading: ctx.merchant.name,
      sandbox: ctx.config.mode === 'sandbox',
      body: html`<section class="panel">
<h2 data-testid="status">Save a card for ${customer.name}</h2>
<p class="muted">${ctx.merchant.name} can charge a saved card for your later orders. Your card is checked with your bank; a temporary hold is released at once.</p>
${notice}
${saved.length > 0 && html`<table class="items" data-testid="saved">${saved.map((t) => html`<tr><td>${t.card_brand ?? 'Card'} ending in ${t.card_last4 ?? ''}</td><td class="num">${t.exp_month}/${t.exp_year?.slice(-2)}</td></tr>`)}</table>`}
</section>
${
  locked
    ? html`<section class="panel"><p class="notice error" data-testid="locked">Too many cards could not be verified: this link takes no more cards. Ask ${ctx.merchant.name} for help.</p></section>`
    : cardForm(opened)
}`,
    }),
  };
}

function triedText(token: TokenRow): string {
  const card = `${token.card_brand ?? 'Card'} ending in ${token.card_last4 ?? ''}`;
  if (token.state === 'success') return `${card} is saved.`;
  if (token.state === 'pending') return `${card} is waiting for your bank's verification.`;
  return `${card} could not be verified${token.error_msg ? ` (${token.error_msg})` : ''}: it was not saved.`;
}

function cardForm(opened: BindingPage): Html {
  const sandbox = opened.ctx.config.mode === 'sandbox';
  return html`<section class="panel">
<h2>Add a card</h2>
<form method="post" action="${opened.url}/card" autocomplete="on" data-testid="card-form">
${cardFields({ holderRequired: true })}
<button type="submit" data-testid="save">Save card</button>
</form>
${
  sandbox &&
  html`<p class="muted">Sandbox cards: <code>4242 4242 4242 4242</code> asks for 3-D Secure, <code>4000 0000 0000 3055</code> is saved at once,
<code>4000 0000 0000 0002</code> is declined, <code>4000 0000 0000 0341</code> is saved at once but every later charge is declined.</p>`
}
</section>`;
}

/**
 * The customer's card, bound. Like the payment page, every attempt takes one of the link's declines first and
 * gives it back only if the card was saved.
 */
export async function bindFromPage(
  platform: PlatformContext,
  token: string,
  requestId: string,
  form: Record<string, string>,
): Promise<PageAnswer> {
  const opened = await openBindingPage(platform, token, requestId);
  if (isPageAnswer(opened)) return opened;
  const { ctx, customer } = opened;
  const card = readPageCard(ctx, form);
  if ('problem' in card) return showBindingPage(platform, token, requestId, undefined, card.problem);
  if (!card.input.holder_name)
    return showBindingPage(platform, token, requestId, undefined, 'Enter the name on the card.');
  const subject = { kind: 'link', id: opened.link.token_hash };
  if (!(await takeCardAttempt(ctx.db, ctx.merchant.id, subject, ctx.config.pageDeclineLimit)))
    return { redirect: opened.url };
  let saved = false;
  try {
    const bound = await bindPaymentToken(ctx, customer.id, {
      card: {
        number: card.input.number,
        exp_month: card.input.exp_month,
        exp_year: card.input.exp_year,
        cvv: card.input.cvv,
        holder_name: card.input.holder_name,
      },
    });
    saved = bound.state === 'success';
    if (bound.state === 'pending' && bound.verify_url !== null)
      return { redirect: withCheckout(ctx, bound.verify_url, token) };
    return { redirect: `${opened.url}?token=${encodeURIComponent(bound.token)}` };
  } catch (error) {
    if (error instanceof AppError && error.definition.status < 500)
      return showBindingPage(platform, token, requestId, undefined, 'The card could not be checked. Please try again.');
    throw error;
  } finally {
    if (saved) await returnCardAttempt(ctx.db, ctx.merchant.id, subject);
  }
}

/** The card-binding page of a binding ("wallet") link. */
export const BINDING_PAGES: PageRoute[] = [
  {
    method: 'GET',
    url: `${BINDING_LINK.path}/:token`,
    handle: (platform, { params, id, query }) => showBindingPage(platform, params.token!, id, query.token),
  },
  {
    method: 'POST',
    url: `${BINDING_LINK.path}/:token/card`,
    handle: (platform, { params, id, form }) => bindFromPage(platform, params.token!, id, form),
  },
];
