import type { Context } from '../context/context.js';
import { type MoneyMovement, postPayment, postRefund, postSettlements, postVoid } from '../ledger/index.js';
import type { TransactionRow } from './transactions-store.js';

const movementOf = (
  transaction: Pick<TransactionRow, 'id' | 'currency' | 'amount' | 'payment_method'>,
): MoneyMovement => ({
  transactionId: transaction.id,
  currency: transaction.currency,
  amount: transaction.amount,
  method: transaction.payment_method,
});

const bringsMoneyIn = (transaction: Pick<TransactionRow, 'type'>) =>
  transaction.type === 'Sales' || transaction.type === 'Capture';

/**
 * What a transaction's change posts to the ledger, in the change's transaction: a sale or capture that went through
 * credits `incoming`; voided, it is taken back; a refund that went through debits `available`. An authorisation
 * moves no money: its capture does.
 */
export async function postTransactionChange(
  ctx: Context,
  before: TransactionRow,
  after: TransactionRow,
): Promise<void> {
  if (before.status !== 'succeeded' && after.status === 'succeeded') {
    if (bringsMoneyIn(after)) await postPayment(ctx, movementOf(after), after.type === 'Sales' ? 'payment' : 'capture');
    else if (after.type === 'Refund') await postRefund(ctx, movementOf(after));
  }
  if (before.voided === 0 && after.voided === 1 && after.status === 'succeeded' && bringsMoneyIn(after))
    await postVoid(ctx, movementOf(after));
}

/** The settlement's sales and captures move to `available`, less their fees; refunds were taken from it when made. */
export async function postSettled(
  ctx: Context,
  settled: Array<Pick<TransactionRow, 'id' | 'type' | 'currency' | 'amount' | 'payment_method'>>,
): Promise<void> {
  await postSettlements(ctx, settled.filter(bringsMoneyIn).map(movementOf));
}
