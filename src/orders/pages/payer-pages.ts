import { returnCardAttempt } from '../../cards/attempts.js';
import { type Context, merchantContext, type PlatformContext } from '../../context/context.js';
import { isPageToken, linkUrl, openLink } from '../../links/links.js';
import type { HostedLinkRow } from '../../links/store.js';
import {
  BINDING_LINK,
  bindingOfOperation,
  completeBinding,
  TOKEN_ERRORS,
  type TokenRow,
} from '../../payment-tokens/index.js';
import { isAppError } from '../../platform/errors.js';
import { exponentOf } from '../../platform/money/money.js';
import { findMerchant } from '../../platform/tenants.js';
import { type PayerOutcome, WALLET_NAMES, type WalletMethod } from '../../rails/acquirer.js';
import { SandboxAcquirer, type SandboxOperation } from '../../rails/sandbox/acquirer.js';
import { html } from '../../web/html.js';
import { displayAmount, messagePage, page } from '../../web/layout.js';
import type { PageAnswer, PageRoute } from '../../web/pages.js';
import { ORDER_ERRORS } from '../errors.js';
import { PAYMENT_LINK } from '../links.js';
import { completePayerAction } from '../payments.js';
import { findOrderOfTransaction } from '../queries.js';

/**
 * The pages that stand in, in the sandbox, for what lies outside the platform: the card issuer's 3-D Secure
 * challenge (`/pay/3ds/<token>`) and the payer's wallet app (`/pay/wallet/<token>`). The payer passes or fails
 * there, exactly as the sandbox API's succeed and fail routes would; a real acquirer serves its own.
 */
export type PayerPageKind = '3ds' | 'wallet';

interface Waiting {
  operation: SandboxOperation;
  merchantName: string;
  /** The merchant's context, the payer acting. */
  ctx: Context;
}

async function findWaiting(
  platform: PlatformContext,
  kind: PayerPageKind,
  token: string,
  requestId: string,
): Promise<Waiting | undefined> {
  const acquirer = platform.rails.acquirer;
  if (!(acquirer instanceof SandboxAcquirer) || !isPageToken(token)) return undefined;
  const operation = await acquirer.awaitingPayer(token);
  if (!operation || (operation.payment_method === 'credit_card') !== (kind === '3ds')) return undefined;
  const merchant = await findMerchant(platform.db, operation.merchant_id);
  return (
    merchant && {
      operation,
      merchantName: merchant.name,
      ctx: merchantContext(platform, merchant, { kind: 'payer', page: kind }, requestId),
    }
  );
}

/** Back to the payment page the payer came from, when `checkout` names an open link to the same order. */
async function checkoutUrl(
  platform: PlatformContext,
  checkout: string | undefined,
  waiting: Waiting | undefined,
): Promise<string | undefined> {
  if (checkout === undefined) return undefined;
  const opened = await openLink(platform, PAYMENT_LINK, checkout);
  if (opened.state !== 'open') return undefined;
  if (waiting) {
    const order = await findOrderOfTransaction(waiting.ctx, waiting.operation.reference);
    if (order?.id !== opened.link.subject_id || opened.link.merchant_id !== waiting.ctx.merchant.id) return undefined;
  }
  return linkUrl(platform.config, PAYMENT_LINK, opened.token);
}

export async function showPayerPage(
  platform: PlatformContext,
  kind: PayerPageKind,
  token: string,
  checkout: string | undefined,
  requestId: string,
): Promise<PageAnswer> {
  const waiting = await findWaiting(platform, kind, token, requestId);
  if (!waiting) {
    // Finished already (the payer came back, or answered in another tab): the page they came from shows how it ended.
    const back = (await checkoutUrl(platform, checkout, undefined)) ?? (await openBindingLink(platform, checkout))?.url;
    if (back) return { redirect: back };
    return {
      status: 404,
      html: messagePage({
        title: kind === '3ds' ? 'Verification finished' : 'Payment finished',
        heading: kind === '3ds' ? 'Card verification' : 'Wallet',
        sandbox: true,
        message: 'There is nothing left to do here: this step is finished, has expired, or the link is not valid.',
      }),
    };
  }
  const { operation, merchantName } = waiting;
  const amount = displayAmount(operation.amount, exponentOf(operation.currency), operation.currency);
  const action = `${platform.config.publicBaseUrl}/pay/${kind}/${token}${checkout === undefined ? '' : `?checkout=${encodeURIComponent(checkout)}`}`;
  const choice = (outcome: PayerOutcome, label: string, style: string) => html`<form method="post" action="${action}">
<input type="hidden" name="outcome" value="${outcome}"><button type="submit" class="${style}" data-testid="${outcome}">${label}</button></form>`;
  if (kind === '3ds') {
    const binding = await bindingOfOperation(waiting.ctx, operation.reference);
    const cardName = operation.card_brand === null ? 'card' : `${operation.card_brand} card`;
    return {
      status: 200,
      html: page({
        title: 'Verify your payment',
        heading: 'Card verification (3-D Secure)',
        sandbox: true,
        body: html`<section class="panel">
<h2 data-testid="status">Confirm this payment</h2>
${
  binding
    ? html`<p>${merchantName} asks to save your ${cardName} ending in ${operation.card_last4 ?? '····'} for later payments. To check the card, <strong data-testid="amount">${amount}</strong> is held and released at once.</p>`
    : html`<p>${merchantName} asks for <strong data-testid="amount">${amount}</strong> from your ${cardName} ending in ${operation.card_last4 ?? '····'}.</p>`
}
<p class="muted">Sandbox stand-in for the card issuer's challenge: choose what the cardholder does.</p>
${choice('passed', 'Confirm: I made this payment', '')}
${choice('failed', 'Fail the verification', 'danger')}
</section>`,
      }),
    };
  }
  const wallet = WALLET_NAMES[operation.payment_method as WalletMethod] ?? operation.payment_method;
  if (operation.kind === 'agreement') {
    return {
      status: 200,
      html: page({
        title: `${wallet}: allow auto-debit`,
        heading: `${wallet} (sandbox)`,
        sandbox: true,
        body: html`<section class="panel">
<h2 data-testid="status">Allow ${merchantName} to charge your ${wallet}</h2>
<p>${merchantName} asks for an auto-debit agreement: later payments are taken from your ${wallet} without asking you each time.</p>
<p class="muted">Sandbox stand-in for the payer's ${wallet} app: choose what the payer does.</p>
${choice('passed', 'Allow', '')}
${choice('failed', 'Decline', 'danger')}
</section>`,
      }),
    };
  }
  return {
    status: 200,
    html: page({
      title: `${wallet}: confirm payment`,
      heading: `${wallet} (sandbox)`,
      sandbox: true,
      body: html`<section class="panel">
<h2 data-testid="status">Pay ${merchantName}</h2>
<p>Amount: <strong data-testid="amount">${amount}</strong></p>
<p class="muted">Sandbox stand-in for the payer's ${wallet} app: choose what the payer does.</p>
${choice('passed', `Pay ${amount}`, '')}
${choice('failed', 'Decline', 'danger')}
</section>`,
    }),
  };
}

/** The payer's choice on a stand-in page, recorded as the sandbox API's succeed or fail would. */
export async function answerPayerPage(
  platform: PlatformContext,
  kind: PayerPageKind,
  token: string,
  checkout: string | undefined,
  form: Record<string, string>,
  requestId: string,
): Promise<PageAnswer> {
  const outcome = form.outcome === 'passed' || form.outcome === 'failed' ? form.outcome : undefined;
  const waiting = outcome && (await findWaiting(platform, kind, token, requestId));
  if (!outcome || !waiting) return showPayerPage(platform, kind, token, checkout, requestId);
  const { ctx } = waiting;
  const binding = await bindingOfOperation(ctx, waiting.operation.reference);
  if (binding) return answerBinding(ctx, binding, outcome, checkout, waiting.merchantName);
  let paid = outcome === 'passed';
  try {
    const { transaction } = await completePayerAction(ctx, waiting.operation.reference, outcome);
    paid = transaction.status === 'succeeded';
  } catch (error) {
    // Answered (or expired) meanwhile: say what became of it below.
    if (!isAppError(error, ORDER_ERRORS.transactionNotPending)) throw error;
  }
  const back = await checkoutUrl(platform, checkout, waiting);
  if (back) return { redirect: paid ? back : `${back}?notice=${kind === '3ds' ? 'declined' : 'wallet_declined'}` };
  // Sent here by the merchant's own integration: the order's return address, if it has one, is the way back.
  const order = await findOrderOfTransaction(ctx, waiting.operation.reference);
  const returnUrl = order?.return_url ?? undefined;
  return {
    status: 200,
    html: messagePage({
      title: paid ? 'Payment confirmed' : 'Payment not confirmed',
      heading: waiting.merchantName,
      sandbox: true,
      message: paid
        ? `You confirmed the payment to ${waiting.merchantName}.`
        : `The payment to ${waiting.merchantName} was not confirmed: nothing was charged.`,
      ...(returnUrl !== undefined && { action: { href: returnUrl, label: `Return to ${waiting.merchantName}` } }),
    }),
  };
}

/**
 * The cardholder's answer to a binding's challenge. Back to the hosted binding page when the payer came from it;
 * else to the merchant's `3ds.success_return_url` or `fail_return_url`, by a page that moves on by itself (a
 * redirect straight after the form would be another site, which the pages' form-action policy forbids).
 */
async function answerBinding(
  ctx: Context,
  token: TokenRow,
  outcome: 'passed' | 'failed',
  checkout: string | undefined,
  merchantName: string,
): Promise<PageAnswer> {
  let settled = token;
  try {
    settled = await completeBinding(ctx, token.id, outcome);
  } catch (error) {
    // Settled meanwhile (or deleted): the token as it stands says what became of it.
    if (!isAppError(error, TOKEN_ERRORS.paymentTokenNotPending, TOKEN_ERRORS.paymentTokenNotFound)) throw error;
    settled = (await bindingOfOperation(ctx, token.id)) ?? token;
  }
  const bindingPage = await openBindingLink(ctx, checkout, settled);
  if (bindingPage) {
    // A card saved after its challenge gives back the page's attempt (only cards not saved count).
    if (settled.state === 'success')
      await returnCardAttempt(ctx.db, ctx.merchant.id, { kind: 'link', id: bindingPage.link.token_hash });
    return { redirect: `${bindingPage.url}?token=${encodeURIComponent(settled.token)}` };
  }
  const verified = settled.state === 'success';
  const card = settled.token_type === 'CreditCard';
  const returnUrl = (verified ? settled.success_return_url : settled.fail_return_url) ?? undefined;
  return {
    status: 200,
    html: messagePage({
      title: card
        ? verified
          ? 'Card verified'
          : 'Card not verified'
        : verified
          ? 'Auto-debit allowed'
          : 'Auto-debit not allowed',
      heading: merchantName,
      sandbox: true,
      message: card
        ? verified
          ? `Your card ending in ${settled.card_last4 ?? ''} is saved with ${merchantName} for later payments.`
          : 'Your card could not be verified: it was not saved, and nothing was charged.'
        : verified
          ? `${merchantName} may now charge your wallet for later payments.`
          : `${merchantName} may not charge your wallet: nothing was set up.`,
      ...(returnUrl !== undefined && {
        action: { href: returnUrl, label: `Return to ${merchantName}` },
        followAction: true,
      }),
    }),
  };
}

/** The hosted binding page the cardholder came from, when `checkout` names an open one (of the token's customer). */
async function openBindingLink(
  platform: PlatformContext,
  checkout: string | undefined,
  token?: TokenRow,
): Promise<{ url: string; link: HostedLinkRow } | undefined> {
  if (checkout === undefined) return undefined;
  const opened = await openLink(platform, BINDING_LINK, checkout);
  if (opened.state !== 'open') return undefined;
  if (token && (opened.link.merchant_id !== token.merchant_id || opened.link.subject_id !== token.customer_id))
    return undefined;
  return { url: linkUrl(platform.config, BINDING_LINK, opened.token), link: opened.link };
}

/** The stand-ins for the card issuer's 3-D Secure page and the wallet's app. */
export const PAYER_PAGES: PageRoute[] = (['3ds', 'wallet'] as const).flatMap((kind): PageRoute[] => [
  {
    method: 'GET',
    url: `/pay/${kind}/:token`,
    handle: (platform, { params, query, id }) => showPayerPage(platform, kind, params.token!, query.checkout, id),
  },
  {
    method: 'POST',
    url: `/pay/${kind}/:token`,
    handle: (platform, { params, query, form, id }) =>
      answerPayerPage(platform, kind, params.token!, query.checkout, form, id),
  },
]);
