import type { Context, LedgerSource } from '../context/context.js';
import {
  type CardTransactionRow,
  cardTransactionPages,
  cardTransactionsAmong,
  stepsAmong,
  stepsOf,
} from './transactions/store.js';

/**
 * What the ledger's check reads of issuing: every card transaction with the names of its entries (its own id for the
 * first, each later step's id for the rest), a page at a time, and which entry names are card transactions at all.
 */
export const CARD_TRANSACTION_LEDGER: LedgerSource = {
  type: 'card_transaction',
  async *pages(ctx) {
    for await (const page of cardTransactionPages(ctx.db, ctx.merchant.id)) {
      const steps = await stepsOf(
        ctx.db,
        ctx.merchant.id,
        page.map((row) => row.id),
      );
      yield page.map((transaction) => ({
        subject: `card_transaction:${transaction.id}`,
        currency: transaction.local_currency,
        entryNames: [transaction.id, ...steps.filter((s) => s.card_transaction_id === transaction.id).map((s) => s.id)],
        expected: () => expectedCardLines(transaction),
      }));
    }
  },
  async among(ctx: Context, ids: string[]) {
    const [steps, transactions] = await Promise.all([
      stepsAmong(ctx.db, ctx.merchant.id, ids),
      cardTransactionsAmong(ctx.db, ctx.merchant.id, ids),
    ]);
    return new Set([...steps, ...transactions]);
  },
};

/**
 * What a card transaction, as it stands, has moved in all (its lines summed over its steps' entries): an open
 * authorisation holds; a reversed, expired or declined one has moved nothing net; a settled purchase or a
 * withdrawal paid the network and the fee out of `available`; a refund came back from the network.
 */
function expectedCardLines(t: CardTransactionRow): Record<string, number> {
  if (t.status === 'Authorized') return { available: -t.held_amount, on_hold: t.held_amount };
  if (t.status !== 'Settled') return {};
  const settled = (t.final_local_amount ?? 0) - t.calculated_fee;
  if (t.type === 'Refund') return { available: settled, card_network: -settled };
  return { available: -(t.final_local_amount ?? 0), card_network: settled, fees: t.calculated_fee };
}
