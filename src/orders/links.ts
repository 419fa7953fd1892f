import type { Context } from '../context/context.js';
import { issueLink, type LinkKind } from '../links/links.js';
import type { OrderView } from './present.js';

/** The hosted payment page of an order (docs/hosted-pages.md). */
export const PAYMENT_LINK: LinkKind = {
  name: 'payment',
  path: '/pay',
  ttlMs: (config) => config.paymentLinkTtlMs,
  label: 'payment link',
  heading: 'Payment',
};

/** An order's PDF receipt. */
export const RECEIPT_LINK: LinkKind = {
  name: 'receipt',
  path: '/receipts',
  ttlMs: (config) => config.receiptLinkTtlMs,
  label: 'receipt link',
  heading: 'Receipt',
};

/** The order's view with new links of the kinds asked for (in the caller's transaction, if one is open). */
export async function withLinks(
  ctx: Context,
  view: OrderView,
  wanted: { payment?: boolean; receipt?: boolean },
): Promise<OrderView> {
  if (!wanted.payment && !wanted.receipt) return view;
  const links: NonNullable<OrderView['links']> = {};
  if (wanted.payment) links.payment = (await issueLink(ctx, PAYMENT_LINK, view.order.id)).url;
  if (wanted.receipt) links.receipt = (await issueLink(ctx, RECEIPT_LINK, view.order.id)).url;
  return { ...view, links };
}
