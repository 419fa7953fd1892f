import type { LedgerSource } from '../context/context.js';
import { executedPayoutPages, executedPayoutsAmong, type PayoutRow } from './store.js';

/**
 * What the ledger's check reads of payouts: every payout that ran, posting each of its steps under its own id. What
 * it should have moved in all, as its transfer stands: reserved while the bank works on it or returns it, paid to
 * the bank once settled, nothing net once terminated or refunded.
 */
export const PAYOUT_LEDGER: LedgerSource = {
  type: 'payout_request',
  async *pages(ctx) {
    for await (const page of executedPayoutPages(ctx.db, ctx.merchant.id)) {
      yield page.map((payout) => ({
        subject: `payout_request:${payout.id}`,
        currency: payout.currency,
        entryNames: [payout.id],
        expected: () => expectedOf(payout),
      }));
    }
  },
  among: (ctx, ids) => executedPayoutsAmong(ctx.db, ctx.merchant.id, ids),
};

function expectedOf(payout: PayoutRow): Record<string, number> {
  switch (payout.transfer_status) {
    case 'Settled':
      return { available: -payout.amount, bank: payout.amount };
    case 'Terminated':
    case 'Refunded':
      return {};
    default:
      return { available: -payout.amount, reserved: payout.amount };
  }
}
