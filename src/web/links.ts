import { createHash, randomBytes } from 'node:crypto';
import type { Context, PlatformContext } from '../context/context.js';
import type { OrderView } from '../orders/present.js';
import { findPageLink, insertPageLink, type PageLinkRow } from './links-store.js';

export type LinkKind = PageLinkRow['kind'];

/** Where each kind of link points, under the configured public base URL (never the request's Host). */
export const LINK_PATHS: Record<LinkKind, string> = { payment: '/pay', receipt: '/receipts', binding: '/wallet' };

/** 128 random bits, base64url: 22 characters (the links' tokens, and the sandbox acquirer's payer pages'). */
export const isPageToken = (text: string) => /^[A-Za-z0-9_-]{22}$/.test(text);

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * A new link to an order's payment page or receipt, or to a customer's card-binding page, usable until its
 * wall-clock expiry (binding pages live as long as payment links).
 */
export async function issueLink(
  ctx: Context,
  kind: LinkKind,
  target: { orderId: string } | { customerId: string },
): Promise<{ url: string; expiresAt: number }> {
  const token = randomBytes(16).toString('base64url');
  const now = ctx.wallClock.now().getTime();
  const expiresAt = now + (kind === 'receipt' ? ctx.config.receiptLinkTtlMs : ctx.config.paymentLinkTtlMs);
  await insertPageLink(ctx.db, {
    token_hash: hashOf(token), kind, merchant_id: ctx.merchant.id,
    order_id: 'orderId' in target ? target.orderId : null,
    customer_id: 'customerId' in target ? target.customerId : null,
    created_at: now, expires_at: expiresAt,
  });
  return { url: `${ctx.config.publicBaseUrl}${LINK_PATHS[kind]}/${token}`, expiresAt };
}

export type OpenedLink =
  | { state: 'open'; link: PageLinkRow; token: string }
  | { state: 'expired'; link: PageLinkRow }
  | { state: 'unknown' };

/** What a token names: an open link, an expired one (kept a while, so the payer is told so), or nothing. */
export async function openLink(platform: PlatformContext, kind: LinkKind, token: string): Promise<OpenedLink> {
  if (!isPageToken(token)) return { state: 'unknown' };
  const link = await findPageLink(platform.db, hashOf(token));
  if (!link || link.kind !== kind || (link.order_id === null && link.customer_id === null)) return { state: 'unknown' };
  if (link.expires_at <= platform.wallClock.now().getTime()) return { state: 'expired', link };
  return { state: 'open', link, token };
}

/** How long expired links are kept so that a payer following one is told it expired rather than unknown. */
export const EXPIRED_LINKS_KEPT_MS = 30 * 24 * 60 * 60_000;

/** The order's view with new links of the kinds asked for (in the caller's transaction, if one is open). */
export async function withLinks(ctx: Context, view: OrderView, wanted: { payment?: boolean; receipt?: boolean }): Promise<OrderView> {
  if (!wanted.payment && !wanted.receipt) return view;
  const links: NonNullable<OrderView['links']> = {};
  if (wanted.payment) links.payment = (await issueLink(ctx, 'payment', { orderId: view.order.id })).url;
  if (wanted.receipt) links.receipt = (await issueLink(ctx, 'receipt', { orderId: view.order.id })).url;
  return { ...view, links };
}
