import { formatAmount } from '../platform/money/money.js';
import { type Html, html } from './html.js';
import { ICON_PATH } from './icon.js';

export const STYLESHEET_PATH = '/pay/assets/pages.css';

export interface PageOptions {
  title: string;
  /** Shown above the card: whose page this is (the merchant, or a sandbox stand-in such as the card issuer). */
  heading: string;
  body: Html;
  /** Sandbox mode: a banner says no real money moves. */
  sandbox: boolean;
  /** Reload (or go to `refreshTo`) after this many seconds: how a page waiting for a wallet payment notices it. */
  refreshSeconds?: number;
  refreshTo?: string;
}

/** The start of every page we serve, up to its body: no script, our own stylesheet and icon, no referrer. */
export function documentHead(options: { title: string; stylesheet: string; refresh?: string }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${options.refresh !== undefined && html`<meta http-equiv="refresh" content="${options.refresh}">`}
<title>${options.title}</title>
<link rel="icon" type="image/svg+xml" href="${ICON_PATH}">
<link rel="stylesheet" href="${options.stylesheet}">
</head>`;
}

/** The frame of every hosted page: no script anywhere, one stylesheet of our own, readable on a phone. */
export function page(options: PageOptions): string {
  const refresh =
    options.refreshSeconds === undefined
      ? undefined
      : `${options.refreshSeconds}${options.refreshTo === undefined ? '' : `; url=${options.refreshTo}`}`;
  return html`${documentHead({ title: options.title, stylesheet: STYLESHEET_PATH, ...(refresh !== undefined && { refresh }) })}
<body>
${options.sandbox && html`<div class="sandbox" role="note">Sandbox: test mode, no real money moves.</div>`}
<main class="sheet">
<header class="merchant"><h1 data-testid="heading">${options.heading}</h1></header>
${options.body}
</main>
<footer class="footer">Secured by paygate</footer>
</body>
</html>
`.text;
}

/** An amount for people: currency code, thousands grouped, the currency's own decimals (never via a float). */
export function displayAmount(minor: number, exponent: number, currency: string): string {
  const [whole, fraction] = formatAmount(minor, exponent).split('.') as [string, string | undefined];
  const sign = whole.startsWith('-') ? '-' : '';
  const grouped = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${currency} ${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A whole page that only says something (an expired link, a finished challenge). */
export function messagePage(options: {
  title: string;
  heading: string;
  message: string;
  sandbox: boolean;
  action?: { href: string; label: string };
  /** Follow `action` by itself after a few seconds (how a page moves on to another site after a form). */
  followAction?: boolean;
}): string {
  return page({
    title: options.title,
    heading: options.heading,
    sandbox: options.sandbox,
    ...(options.followAction && options.action && { refreshSeconds: 3, refreshTo: options.action.href }),
    body: html`<section class="panel message">
<h2 data-testid="status">${options.title}</h2>
<p>${options.message}</p>
${options.action && html`<p><a class="button" data-testid="action" href="${options.action.href}">${options.action.label}</a></p>`}
</section>`,
  });
}
