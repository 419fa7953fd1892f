import type { Static } from 'typebox';
import type { Context } from '../context/context.js';
import type { PaymentTokenSchema } from './schemas.js';
import type { CustomerRow } from './store.js';

export type PaymentTokenReply = Static<typeof PaymentTokenSchema>;

/**
 * A customer may name one of its payment tokens as its default (`default_payment_token`). Tokens are a capability
 * of their own that builds on customers (payment-tokens/); it gives these rules to this module when the modules
 * are composed, so that customers need not know how tokens are kept.
 */
export interface DefaultTokens {
  /**
   * The id of the customer's successfully bound token named `token`, locked until the transaction ends (the
   * customer is locked first, as deleting a token locks them); refused with 200103 otherwise.
   */
  claim(ctx: Context, customerId: string, token: string): Promise<string>;
  /** The customer's default token as replies show it, while it is still usable. */
  present(ctx: Context, customer: CustomerRow): Promise<PaymentTokenReply | undefined>;
}
