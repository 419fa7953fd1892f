import type { Context } from '../context/context.js';
import { cardTransactionPages, stepsAmong, stepsOf, type CardTransactionRow } from './transactions-store.js';

/**
 * What the ledger's check reads of issuing: every card transaction with the steps that posted for it (each step's id
 * names its entry), a page at a time, and which entry names are steps at all.
 */
export async function* cardTransactionsWithSteps(ctx: Context): AsyncGenerator<Array<{ transaction: CardTransactionRow; stepIds: string[] }>> {
  for await (const page of cardTransactionPages(ctx.db, ctx.merchant.id)) {
    const steps = await stepsOf(ctx.db, ctx.merchant.id, page.map((row) => row.id));
    yield page.map((transaction) => ({ transaction, stepIds: steps.filter((s) => s.card_transaction_id === transaction.id).map((s) => s.id) }));
  }
}

export function cardStepsAmong(ctx: Context, ids: string[]): Promise<Set<string>> {
  return stepsAmong(ctx.db, ctx.merchant.id, ids);
}

/**
 * What a card transaction, as it stands, has moved in all (its lines summed over its steps' entries): an open
 * authorisation holds; a reversed, expired or declined one has moved nothing net; a settled purchase or a
 * withdrawal paid the network and the fee out of `available`; a refund came back from the network.
 */
export function expectedCardLines(t: CardTransactionRow): Record<string, number> {
  if (t.status === 'Authorized') return { available: -t.held_amount, on_hold: t.held_amount };
  if (t.status !== 'Settled') return {};
  const settled = (t.final_local_amount ?? 0) - t.calculated_fee;
  if (t.type === 'Refund') return { available: settled, card_network: -settled };
  return { available: -(t.final_local_amount ?? 0), card_network: settled, fees: t.calculated_fee };
}
