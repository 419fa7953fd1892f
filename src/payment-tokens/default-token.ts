import { type DefaultTokens, unusable } from '../customers/index.js';
import { presentToken } from './present.js';
import { findTokenById, lockToken } from './store.js';

/** The rules of a customer's default token, as this capability keeps tokens (given to customers when composed). */
export const DEFAULT_TOKENS: DefaultTokens = {
  async claim(ctx, customerId, token) {
    // Locked, so that a concurrent delete cannot leave the default naming a deleted token.
    const row = await lockToken(ctx.db, ctx.merchant.id, token, customerId);
    if (row?.state !== 'success') throw unusable(token);
    return row.id;
  },
  async present(ctx, customer) {
    const id = customer.default_payment_token_id;
    const token = id === null ? undefined : await findTokenById(ctx.db, ctx.merchant.id, id);
    return token && token.deleted_at === null && token.state === 'success' ? presentToken(token, id) : undefined;
  },
};
