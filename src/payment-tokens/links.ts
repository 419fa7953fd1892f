import type { LinkKind } from '../links/links.js';

/**
 * A customer's hosted card-binding page, the "wallet link" (docs/payment-tokens.md); lives as long as a payment link.
 */
export const BINDING_LINK: LinkKind = {
  name: 'binding',
  path: '/wallet',
  ttlMs: (config) => config.paymentLinkTtlMs,
  label: 'link',
  heading: 'Save a card',
};
