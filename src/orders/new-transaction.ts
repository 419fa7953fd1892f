import type { Context } from '../context/context.js';
import type { CardAcquirer } from '../rails/acquirer.js';
import { buildPaymentData, type CardFacts } from './payment-data.js';
import type { TransactionType } from './tables.js';
import type { TransactionRow } from './transactions-store.js';

/**
 * A transaction about to be sent to the acquirer (a payment, a capture, a refund): pending, its rail call
 * beginning now, nothing captured, voided or settled yet, and its payment_data what is known before the answer.
 */
export function newTransaction(
  ctx: Context,
  acquirer: Pick<CardAcquirer, 'name' | 'type'>,
  fields: {
    orderId: string;
    type: TransactionType;
    paymentMethod: string;
    currency: string;
    amount: number;
    /** The authorisation a capture captures, the sale or capture a refund gives back. */
    originalId: string | null;
    paymentUuid: string | null;
    /** While its record lasts, a retry of the request with this Idempotency-Key finds this transaction. */
    idempotency: { key: string; expiresAt: number } | undefined;
    note: string | null;
    card: Partial<CardFacts> & { token?: string };
  },
): TransactionRow {
  // Sortable, as an order's id: the indexes that name a transaction (the acquirer's reference, its ledger entries) grow
  // at their end.
  const id = ctx.ids.sortable(ctx.wallClock.now().getTime());
  const now = ctx.clock.now().getTime();
  return {
    id,
    merchant_id: ctx.merchant.id,
    order_id: fields.orderId,
    type: fields.type,
    payment_method: fields.paymentMethod,
    currency: fields.currency,
    amount: fields.amount,
    status: 'pending',
    progress: 'sending',
    captured: 0,
    voided: 0,
    void_reason: null,
    voided_at: null,
    void_is_pending: 0,
    settled_at: null,
    expires_at: null,
    original_transaction_id: fields.originalId,
    payment_uuid: fields.paymentUuid,
    idempotency_key: fields.idempotency?.key ?? null,
    idempotency_expires_at: fields.idempotency?.expiresAt ?? null,
    void_idempotency_key: null,
    payer_action_idempotency_key: null,
    note: fields.note,
    payment_data: JSON.stringify(
      buildPaymentData({
        transactionId: id,
        merchantId: ctx.merchant.id,
        acquirer,
        method: fields.paymentMethod,
        card: fields.card,
      }),
    ),
    payer_action: null,
    rail_started_at: ctx.wallClock.now().getTime(),
    created_at: now,
    updated_at: now,
  };
}
