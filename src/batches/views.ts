import type { Static } from 'typebox';
import type { Context } from '../context/context.js';
import { findMerchantOrder, loadOrderView, type OrderView } from '../orders/index.js';
import type { Page } from '../platform/query/filters.js';
import { type BatchTransactionReply, presentBatchTransaction, presentRowError } from './present.js';
import type { BatchErrorsData } from './schemas.js';
import { type BatchRecord, failedRows, rowsWithTransactions } from './store.js';

/** Operation 5's page of transactions: those the batch's rows made, in row order, each with its order. */
export async function batchTransactions(
  ctx: Context,
  batch: BatchRecord,
  page: Page,
): Promise<BatchTransactionReply[]> {
  const rows = await rowsWithTransactions(ctx.db, ctx.merchant.id, batch.id, page);
  const views = new Map<string, OrderView>();
  const replies: BatchTransactionReply[] = [];
  for (const row of rows) {
    let view = views.get(row.order_id!);
    if (!view) {
      const order = await findMerchantOrder(ctx, { id: row.order_id! });
      if (!order) continue;
      view = await loadOrderView(ctx, order);
      views.set(order.id, view);
    }
    const transaction = view.transactions.find((t) => t.id === row.transaction_id);
    if (transaction)
      replies.push(presentBatchTransaction(view, transaction, { row: row.row_number, remark: row.remark }));
  }
  return replies;
}

export async function batchErrors(
  ctx: Context,
  batch: BatchRecord,
  page: Page,
): Promise<Static<typeof BatchErrorsData>> {
  const { rows, total } = await failedRows(ctx.db, ctx.merchant.id, batch.id, page);
  return { errors: rows.map(presentRowError), offset: page.offset, limit: page.limit, total };
}
