import type { Context } from '../../context/context.js';
import { isUuid } from '../../platform/ids.js';
import { type CardTransactionRow, listCardTransactionRows } from './store.js';

/**
 * Operation 4: the merchant's card transactions, newest first: Authorized, Declined and Settled ones (a fully
 * reversed or expired authorisation has nothing left to show, and leaves the list). `card` narrows to one card; a
 * card that is not the merchant's has none.
 */
export async function listCardTransactions(
  ctx: Context,
  page: { offset: number; limit: number; card?: string | undefined },
): Promise<CardTransactionRow[]> {
  if (page.card !== undefined && !isUuid(page.card)) return [];
  return listCardTransactionRows(ctx.db, ctx.merchant.id, {
    offset: page.offset,
    limit: page.limit,
    ...(page.card !== undefined && { cardId: page.card }),
  });
}
