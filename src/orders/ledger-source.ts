import type { LedgerSource } from '../context/context.js';
import { succeededMoneyTransactionIds, succeededMoneyTransactions, type TransactionRow } from './transactions-store.js';

const PAGE_SIZE = 2_000;

/**
 * What the ledger's check reads of orders: every sale, capture and refund that went through (voided or not, settled
 * or not), a page at a time, each posting under its own id.
 */
export const TRANSACTION_LEDGER: LedgerSource = {
  type: 'transaction',
  async *pages(ctx) {
    let after = '';
    for (;;) {
      const page = await succeededMoneyTransactions(ctx.db, ctx.merchant.id, after, PAGE_SIZE);
      if (page.length > 0) {
        yield page.map((t) => ({
          subject: `transaction:${t.id}`,
          currency: t.currency,
          entryNames: [t.id],
          expected: (entries) =>
            expectedOfTransaction(t, entries.find((entry) => entry.type === 'settlement')?.fee ?? 0),
        }));
      }
      if (page.length < PAGE_SIZE) return;
      after = page.at(-1)!.id;
    }
  },
  among: (ctx, ids) => succeededMoneyTransactionIds(ctx.db, ctx.merchant.id, ids),
};

/**
 * What a transaction, as it stands now, should have posted in all. A settlement's fee is whatever the fee schedule
 * said then, within the transaction's amount: one outside it is a difference on `fees` (and on `available`).
 */
function expectedOfTransaction(t: TransactionRow, settlementFee: number): Record<string, number> {
  if (t.type === 'Refund') return { available: -t.amount, acquirer_clearing: t.amount };
  // Voided before settlement: its payment and its void cancel out.
  if (t.voided === 1) return {};
  const fee = Math.min(Math.max(settlementFee, 0), t.amount);
  if (t.settled_at !== null) return { acquirer_clearing: -t.amount, available: t.amount - fee, fees: fee };
  return { incoming: t.amount, acquirer_clearing: -t.amount };
}
