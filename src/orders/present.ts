import type { Static } from 'typebox';
import { iso } from '../platform/clock.js';
import { amountAsNumber, formatAmount } from '../platform/money/money.js';
import type { Merchant } from '../platform/tenants.js';
import type { PaymentData, StoredPayerAction } from './payment-data.js';
import { transactionFlags } from './rules.js';
import type { OrderSchema, PURCHASABLE_TYPES, TransactionSchema } from './schemas.js';
import type { LineItemRow, OrderRow } from './store.js';
import type { TransactionRow } from './transactions-store.js';

export type OrderReply = Static<typeof OrderSchema>;
export type TransactionReply = Static<typeof TransactionSchema>;

/** An order with what belongs to it, as the verbs hand it to the routes. */
export interface OrderView {
  order: OrderRow;
  items: LineItemRow[];
  transactions: TransactionRow[];
  merchant: Pick<Merchant, 'id' | 'name'>;
  customerUuid?: string | null;
  /** Links issued for this reply (with_payment_link, with_download_link). */
  links?: { payment?: string; receipt?: string };
}

export function presentOrder(view: OrderView): OrderReply {
  const { order } = view;
  const e = order.currency_exponent;
  const reply: OrderReply = {
    source: order.source,
    type: order.type,
    number: order.number,
    reference_number: order.reference_number,
    due_date: order.due_date,
    initial_total: amountAsNumber(order.initial_total, e),
    initial_tips: amountAsNumber(order.initial_tips, e),
    subtotal: amountAsNumber(order.subtotal, e),
    paid_total: formatAmount(order.paid_total, e),
    unpaid_total: formatAmount(order.initial_total - order.paid_total, e),
    state: order.state,
    correspondence_state: order.correspondence_state,
    currency: order.currency,
    note: order.note,
    business: { id: view.merchant.id, business_name: view.merchant.name },
    created_at: iso(order.created_at),
    updated_at: iso(order.updated_at),
    line_items:
      view.items.length === 0
        ? null
        : view.items.map((item) => ({
            uuid: item.id,
            purchasable_type: item.purchasable_type as (typeof PURCHASABLE_TYPES)[number],
            ...(item.purchase_id !== null && { purchase_id: item.purchase_id }),
            price: amountAsNumber(item.price, e),
            quantity: item.quantity,
            total: amountAsNumber(item.total, e),
            ...(item.label !== null && { label: item.label }),
          })),
    transactions: view.transactions.map((t) => presentTransaction(t, view.transactions, e)),
  };
  if (order.return_url !== null) reply.return_url = order.return_url;
  if (order.notify_url !== null) reply.notify_url = order.notify_url;
  if (view.customerUuid) reply.customer_uuid = view.customerUuid;
  return reply;
}

export function presentTransaction(
  transaction: TransactionRow,
  all: TransactionRow[],
  exponent: number,
): TransactionReply {
  const flags = transactionFlags(transaction, all);
  const reply: TransactionReply = {
    type: transaction.type,
    uuid: transaction.id,
    currency: transaction.currency,
    amount: amountAsNumber(transaction.amount, exponent),
    success: transaction.status === 'succeeded',
    is_pending: transaction.status === 'pending',
    captured: flags.captured,
    allow_void: flags.allowVoid,
    allow_refund: flags.allowRefund,
    void_is_pending: transaction.void_is_pending === 1,
    voided: transaction.voided === 1,
    payment_method: transaction.payment_method,
    note: transaction.note,
    payment_data: JSON.parse(transaction.payment_data) as PaymentData,
    original_transaction_uuid: transaction.original_transaction_id,
    created_at: iso(transaction.created_at),
    updated_at: iso(transaction.updated_at),
  };
  if (transaction.payer_action !== null && transaction.status === 'pending') {
    const action = JSON.parse(transaction.payer_action) as StoredPayerAction;
    if (action.kind === '3ds') {
      reply['3ds'] = { enrolled: 'Y', redirect_url: action.redirect_url };
    } else {
      const { kind: _kind, ...wallet } = action;
      reply.wallet = { ...wallet, expires_at: iso(transaction.expires_at!) };
    }
  }
  return reply;
}
