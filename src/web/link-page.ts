import { type Context, merchantContext, type PlatformContext } from '../context/context.js';
import { type LinkKind, linkUrl, openLink } from '../links/links.js';
import type { HostedLinkRow } from '../links/store.js';
import { findMerchant } from '../platform/tenants.js';
import { messagePage } from './layout.js';
import type { PageAnswer } from './pages.js';

export interface OpenLinkPage {
  ctx: Context;
  link: HostedLinkRow;
  /** The page's own address, under the public base URL. */
  url: string;
}

/**
 * The merchant's context behind an open link, or the page to answer instead: an unknown or altered link (404)
 * or an expired one (410, naming the merchant to ask for a new one).
 */
export async function openLinkPage(
  platform: PlatformContext,
  kind: LinkKind,
  token: string,
  requestId: string,
): Promise<OpenLinkPage | PageAnswer> {
  const sandbox = platform.config.mode === 'sandbox';
  const title = `${kind.label[0]!.toUpperCase()}${kind.label.slice(1)}`;
  const opened = await openLink(platform, kind, token);
  const merchant = opened.state === 'unknown' ? undefined : await findMerchant(platform.db, opened.link.merchant_id);
  if (opened.state === 'unknown' || !merchant) {
    return {
      status: 404,
      html: messagePage({
        title: `${title} not found`,
        heading: kind.heading,
        sandbox,
        message: `This ${kind.label} is not valid. Check that you copied all of it, or ask the merchant for a new one.`,
      }),
    };
  }
  if (opened.state === 'expired') {
    return {
      status: 410,
      html: messagePage({
        title: `${title} expired`,
        heading: merchant.name,
        sandbox,
        message: `This ${kind.label} has expired. Ask ${merchant.name} for a new one.`,
      }),
    };
  }
  return {
    ctx: merchantContext(platform, merchant, { kind: 'payer', page: kind.name }, requestId),
    link: opened.link,
    url: linkUrl(platform.config, kind, token),
  };
}

/** What a link's page says when what the link named (an order, a customer) no longer exists. */
export function goneAnswer(ctx: Context, what: string): PageAnswer {
  return {
    status: 404,
    html: messagePage({
      title: 'Not found',
      heading: ctx.merchant.name,
      sandbox: ctx.config.mode === 'sandbox',
      message: `This ${what} no longer exists.`,
    }),
  };
}

/**
 * A payer page's address that leads back to the page the payer came from (`checkoutToken`, the token of a payment
 * or binding link) once the payer is done there. Only our own pages get the token: another site's (a real
 * issuer's, a wallet's) must never see the link's capability.
 */
export function withCheckout(ctx: Context, url: string, checkoutToken: string): string {
  const ours = ['3ds', 'wallet'].some((kind) => url.startsWith(`${ctx.config.publicBaseUrl}/pay/${kind}/`));
  if (!ours || url.includes('?') || url.includes('#')) return url;
  return `${url}?checkout=${encodeURIComponent(checkoutToken)}`;
}
