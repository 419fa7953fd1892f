import type { Context } from '../context/context.js';
import { acquirerOf } from '../rails/acquirer.js';
import type { RailOperationKind } from '../rails/operation.js';
import { voidReference } from './adjustments.js';
import { applyCapture, applyPayment, applyRefund, applyVoid, recordRailAnswer } from './outcomes.js';
import { findTransaction, interruptedTransactions } from './transactions-store.js';

/**
 * An order's transactions as operations on the acquirer: a payment, capture or refund whose answer was never
 * recorded, or a void in flight. Recovery asks the acquirer what became of each (cancelling it there if it never
 * arrived) and records that answer as the request would have.
 */
export const TRANSACTION_OPERATIONS: RailOperationKind<Context> = {
  name: 'orders.transactions',
  interrupted: interruptedTransactions,
  async recover(ctx, transactionId) {
    const transaction = await findTransaction(ctx.db, ctx.merchant.id, transactionId);
    if (!transaction) return;
    const acquirer = acquirerOf(ctx.rails);
    const operation = { merchantId: ctx.merchant.id, amount: transaction.amount, currency: transaction.currency };
    if (transaction.void_is_pending === 1) {
      const result = await acquirer.resolve({ ...operation, reference: voidReference(transaction.id), kind: 'void' });
      await recordRailAnswer(ctx, transaction.id, applyVoid(result), { completesRequest: false });
      return;
    }
    const kind = transaction.type === 'Capture' ? 'capture' : transaction.type === 'Refund' ? 'refund' : 'authorize';
    const result = await acquirer.resolve({ ...operation, reference: transaction.id, kind });
    const apply =
      transaction.type === 'Capture'
        ? applyCapture(acquirer, result)
        : transaction.type === 'Refund'
          ? applyRefund(acquirer, result)
          : applyPayment(acquirer, result);
    await recordRailAnswer(ctx, transaction.id, apply, { completesRequest: false });
  },
};
