import { type Context, inTransaction } from '../context/context.js';
import { getCustomer, lockCustomerOf, setDefaultToken } from '../customers/index.js';
import { issueLink } from '../links/links.js';
import { AppError } from '../platform/errors.js';
import { TOKEN_ERRORS } from './errors.js';
import { emitTokenEvent } from './events.js';
import { BINDING_LINK } from './links.js';
import { customerTokens, findToken, findTokenById, lockToken, type TokenRow, updateToken } from './store.js';

export type { TokenRow };

/** A token with whether it is its customer's default, as every reply shows it. */
export interface TokenView {
  row: TokenRow;
  defaultTokenId: string | null;
}

/**
 * Operation 8: a token's state, by its value (with `verify_uuid`, which must then be the token's own). The
 * interface's path names the customer with the literal segment `uuid`; a real customer uuid there must be the
 * token's customer.
 */
export async function checkToken(
  ctx: Context,
  customerSegment: string,
  ref: { token: string; verify_uuid?: string },
): Promise<TokenView> {
  const customerId = customerSegment === 'uuid' ? undefined : (await getCustomer(ctx, customerSegment)).id;
  const row = await findToken(ctx.db, ctx.merchant.id, ref.token, customerId);
  if (!row || (ref.verify_uuid !== undefined && ref.verify_uuid !== row.verify_uuid))
    throw new AppError(TOKEN_ERRORS.paymentTokenNotFound);
  return { row, defaultTokenId: await defaultTokenOf(ctx, row.customer_id) };
}

export async function listTokens(ctx: Context, customerUuid: string): Promise<TokenView[]> {
  const customer = await getCustomer(ctx, customerUuid);
  const rows = await customerTokens(ctx.db, ctx.merchant.id, customer.id);
  return rows.map((row) => ({ row, defaultTokenId: customer.default_payment_token_id }));
}

/**
 * Deletes a token of the customer; the customer's default, if it was this one, is cleared with it. A binding
 * still pending fails with it, and its challenge (or wallet agreement) is abandoned at the acquirer.
 */
export async function deleteToken(ctx: Context, customerUuid: string, token: string): Promise<TokenView> {
  const view = await inTransaction(
    ctx,
    async (tx) => {
      // Customer first, then token: the same order as setting a default, so the two cannot deadlock.
      const customer = await lockCustomerOf(tx, customerUuid);
      const row = await lockToken(tx.db, tx.merchant.id, token, customer.id);
      if (!row) throw new AppError(TOKEN_ERRORS.paymentTokenNotFound);
      const now = tx.clock.now().getTime();
      const deleted = await updateToken(tx.db, tx.merchant.id, row.id, {
        deleted_at: now,
        updated_at: now,
        ...(row.state === 'pending' && {
          state: 'failed' as const,
          error_code: 'deleted',
          error_msg: 'Deleted before the binding finished',
        }),
      });
      if (customer.default_payment_token_id === row.id) {
        await setDefaultToken(tx, customer, null);
      }
      await emitTokenEvent(tx, 'payment_token.deleted', deleted);
      return {
        row: deleted,
        defaultTokenId: null,
        abandon: row.state === 'pending' && row.progress === 'awaiting_payer',
      };
    },
    { completesRequest: true },
  );
  if (view.abandon && ctx.rails.acquirer) {
    // Best effort: a challenge left open at the acquirer can no longer change the token, which is settled.
    await ctx.rails.acquirer.completePayerAction(view.row.bind_reference, 'abandoned').catch((error: unknown) => {
      ctx.log.warn({ err: error, payment_token_id: view.row.id }, 'could not abandon the challenge of a deleted token');
    });
  }
  return { row: view.row, defaultTokenId: view.defaultTokenId };
}

/**
 * A token an order may be charged with: the merchant's own, not deleted, successfully bound, and the order's
 * customer's when the order names one (another customer's token is not found, as another merchant's is).
 */
export async function chargeableToken(ctx: Context, token: string, orderCustomerId: string | null): Promise<TokenRow> {
  const row = await findToken(ctx.db, ctx.merchant.id, token);
  if (!row || (orderCustomerId !== null && row.customer_id !== orderCustomerId)) {
    throw new AppError(
      TOKEN_ERRORS.paymentTokenNotFound,
      orderCustomerId === null ? undefined : "Payment token not found for the order's customer.",
    );
  }
  if (row.state !== 'success') throw new AppError(TOKEN_ERRORS.paymentTokenNotChargeable);
  return row;
}

/** The merchant's token of this value (not deleted), or the refusal. */
export async function requireToken(ctx: Context, token: string): Promise<TokenRow> {
  const row = await findToken(ctx.db, ctx.merchant.id, token);
  if (!row) throw new AppError(TOKEN_ERRORS.paymentTokenNotFound);
  return row;
}

/**
 * The token whose binding an acquirer operation verifies (a 3-D Secure page knows only the operation): a
 * binding's operation is named by the token's id.
 */
export async function bindingOfOperation(ctx: Context, reference: string): Promise<TokenRow | undefined> {
  return findTokenById(ctx.db, ctx.merchant.id, reference);
}

async function defaultTokenOf(ctx: Context, customerId: string): Promise<string | null> {
  const customer = await getCustomer(ctx, customerId);
  return customer.default_payment_token_id;
}

/** A link to the hosted page where the customer binds a card themselves (docs/payment-tokens.md). */
export async function bindingLink(
  ctx: Context,
  customerUuid: string,
): Promise<{ wallet_link: string; expires_at: string }> {
  const customer = await getCustomer(ctx, customerUuid);
  const { url, expiresAt } = await issueLink(ctx, BINDING_LINK, customer.id);
  return { wallet_link: url, expires_at: new Date(expiresAt).toISOString() };
}
