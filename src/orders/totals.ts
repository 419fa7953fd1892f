import { type Currency, sumMinor } from '../platform/money/money.js';
import type { CorrespondenceState, OrderState } from './tables.js';
import type { TransactionRow } from './transactions-store.js';

/** The currency an order's amounts are in. */
export function orderCurrency(order: { currency: string; currency_exponent: number }): Currency {
  return { code: order.currency, exponent: order.currency_exponent };
}

/**
 * Everything an order's totals and states follow from, derived from its transactions every time they change
 * (compatibility.md sections 3 to 5). Amounts are minor units.
 */
export interface OrderTotals {
  paidTotal: number;
  state: OrderState;
  correspondence: CorrespondenceState;
  /** What a payment "of the unpaid total" may still take: unpaid, less what pending payments and open
   * authorisations already hold. */
  payable: number;
}

type Money = Pick<
  TransactionRow,
  'id' | 'type' | 'amount' | 'status' | 'voided' | 'captured' | 'original_transaction_id'
>;

const isMoneyIn = (t: Money) => t.type === 'Sales' || t.type === 'Capture';

export function orderTotals(
  order: { initial_total: number; voided_at: number | null },
  transactions: Money[],
): OrderTotals {
  const succeeded = transactions.filter((t) => t.status === 'succeeded');
  const paidIn = sumMinor(succeeded.filter((t) => isMoneyIn(t) && t.voided === 0).map((t) => t.amount));
  const refunded = sumMinor(succeeded.filter((t) => t.type === 'Refund' && t.voided === 0).map((t) => t.amount));
  const paidTotal = paidIn - refunded;
  const everPaid = succeeded.some(isMoneyIn);
  const openAuthorisations = succeeded.filter((t) => t.type === 'Authorization' && t.voided === 0 && t.captured === 0);
  const pendingPayments = transactions.filter(
    (t) => t.status === 'pending' && (t.type === 'Sales' || t.type === 'Authorization'),
  );
  const held = sumMinor([...openAuthorisations, ...pendingPayments].map((t) => t.amount));
  const payable = order.voided_at === null ? order.initial_total - paidTotal - held : 0;
  const total = order.initial_total;

  const [state, correspondence] = ((): [OrderState, CorrespondenceState] => {
    if (order.voided_at !== null) return ['voided', 'unpaid'];
    if (paidTotal > total) return ['completed', 'over_paid'];
    if (paidTotal === total) return ['completed', 'paid'];
    if (paidTotal > 0) return ['in_completed', 'partial_paid'];
    if (everPaid && refunded > 0) return ['completed', 'refunded'];
    if (everPaid) return ['completed', 'voided'];
    if (openAuthorisations.length > 0) return ['invoiced', 'authorized'];
    return ['invoiced', 'unpaid'];
  })();
  return { paidTotal, state, correspondence, payable };
}

/**
 * Every payment and authorisation the order has taken or is taking, refunded or voided ones too: what bounds
 * each of its totals. Kept within MAX_MINOR, so that every total of the order is exact.
 */
export function paymentsTaken(transactions: Money[]): number {
  return sumMinor(
    transactions
      .filter((t) => (t.type === 'Sales' || t.type === 'Authorization') && t.status !== 'failed')
      .map((t) => t.amount),
  );
}
