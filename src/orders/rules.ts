import { sumMinor } from '../platform/money/money.js';
import type { TransactionRow } from './transactions-store.js';

/**
 * What may be done to a transaction now, and if not, why: written once, for the verbs that refuse (void,
 * capture, refund) and for the flags every reply shows (`allow_void`, `allow_refund`), so the two never disagree.
 * `all` are the transactions of its order.
 */

/** Why `transaction` cannot be voided now, or undefined if it can. */
export function voidRefusal(transaction: TransactionRow, all: TransactionRow[]): string | undefined {
  if (transaction.type === 'Refund') return 'A refund cannot be voided.';
  if (transaction.status === 'pending') return 'The transaction is still pending.';
  if (transaction.status === 'failed') return 'The transaction did not succeed: there is nothing to void.';
  if (transaction.voided === 1) return 'The transaction is voided already.';
  if (transaction.void_is_pending === 1) return 'A void of this transaction is already in progress.';
  if (transaction.type !== 'Authorization' && transaction.settled_at !== null)
    return 'The transaction is settled: refund it instead.';
  if (transaction.type === 'Authorization') {
    const capture = captureOf(transaction, all);
    if (capture?.status === 'pending') return 'The authorisation is being captured.';
    if (capture) return 'The authorisation has been captured: void or refund its capture.';
  }
  return undefined;
}

/**
 * The transaction whose money a refund of `transaction` gives back (a captured authorisation stands for its
 * capture), and why it cannot be refunded now, if it cannot.
 */
export function refundable(
  transaction: TransactionRow,
  all: TransactionRow[],
): { money: TransactionRow | undefined; refusal: string | undefined; left: number } {
  const money = transaction.type === 'Authorization' ? captureOf(transaction, all) : transaction;
  if (!money) return { money, refusal: 'The authorisation has not been captured: void it instead.', left: 0 };
  const refusal = refundRefusal(money);
  return { money, refusal, left: refusal === undefined ? leftToRefund(money, all) : 0 };
}

function refundRefusal(money: TransactionRow): string | undefined {
  if (money.type === 'Refund') return 'A refund cannot be refunded.';
  if (money.status === 'pending') return 'The transaction is still pending.';
  if (money.status !== 'succeeded') return 'The transaction did not succeed: there is nothing to refund.';
  if (money.voided === 1) return 'The transaction was voided: there is nothing to refund.';
  if (money.void_is_pending === 1) return 'The transaction is being voided.';
  if (money.settled_at === null) return 'The transaction is not settled yet: void it instead.';
  return undefined;
}

/** What refunds (made or in flight) have not yet given back of a sale or capture. */
function leftToRefund(money: TransactionRow, all: TransactionRow[]): number {
  const refunds = all.filter(
    (t) => t.type === 'Refund' && t.original_transaction_id === money.id && t.status !== 'failed' && t.voided === 0,
  );
  return money.amount - sumMinor(refunds.map((t) => t.amount));
}

/** Why `transaction` cannot be captured at business time `now`, or undefined if it can. */
export function captureRefusal(transaction: TransactionRow, all: TransactionRow[], now: number): string | undefined {
  if (transaction.type !== 'Authorization')
    return 'Only an authorisation (consume_mode pre_authorize) can be captured.';
  if (transaction.status !== 'succeeded') return 'The authorisation did not succeed.';
  if (transaction.voided === 1)
    return transaction.void_reason === 'expired' ? 'The authorisation has expired.' : 'The authorisation was voided.';
  if (transaction.void_is_pending === 1) return 'The authorisation is being voided.';
  // Its expiry job may not have run yet: the deadline is what counts.
  if (transaction.expires_at !== null && transaction.expires_at <= now) return 'The authorisation has expired.';
  const capture = captureOf(transaction, all);
  if (capture)
    return capture.status === 'pending'
      ? 'The authorisation is being captured.'
      : 'The authorisation has been captured already (once only).';
  return undefined;
}

/** The flags the interface shows for one transaction, true to the moment they are read. */
export interface TransactionFlags {
  captured: boolean;
  allowVoid: boolean;
  allowRefund: boolean;
}

export function transactionFlags(transaction: TransactionRow, all: TransactionRow[]): TransactionFlags {
  const refund = refundable(transaction, all);
  const captured =
    transaction.type === 'Sales' || transaction.type === 'Capture'
      ? transaction.status === 'succeeded'
      : transaction.type === 'Authorization' && refund.money?.status === 'succeeded';
  return {
    captured,
    allowVoid: voidRefusal(transaction, all) === undefined,
    allowRefund: refund.refusal === undefined && refund.left > 0,
  };
}

/** An authorisation's capture, made or in flight (a failed one does not count): there is only ever one. */
export function captureOf(
  authorization: Pick<TransactionRow, 'id'>,
  all: TransactionRow[],
): TransactionRow | undefined {
  return all.find(
    (t) => t.type === 'Capture' && t.original_transaction_id === authorization.id && t.status !== 'failed',
  );
}
