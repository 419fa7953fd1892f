import type { Static } from 'typebox';
import { type OrderView, presentTransaction } from '../orders/index.js';
import { iso } from '../platform/clock.js';
import { amountAsNumber, formatAmount } from '../platform/money/money.js';
import type { BatchInfoSchema, BatchRowErrorSchema, BatchTransactionSchema } from './schemas.js';
import type { BatchRecord, BatchRowRecord } from './store.js';

export type BatchTransactionReply = Static<typeof BatchTransactionSchema>;
export type BatchInfoReply = Static<typeof BatchInfoSchema>;

/** paygate has one store per merchant; the seed gives every batch the number of its store. */
export const STORE_ID = 1;

/**
 * A batch as `batch_info` shows it (interface.md, operation 5), with paygate's own skipped_records and failure_reason.
 */
export function presentBatchInfo(batch: BatchRecord): BatchInfoReply {
  return {
    id: batch.id,
    created_at: iso(batch.created_at),
    updated_at: iso(batch.updated_at),
    deleted_at: batch.deleted_at === null ? '' : iso(batch.deleted_at),
    store_id: STORE_ID,
    batch_name: batch.batch_name,
    upload_status: batch.upload_status,
    total_records: batch.total_records,
    successful_records: batch.successful_records,
    failed_records: batch.failed_records,
    skipped_records: batch.skipped_records,
    failure_reason: batch.failure_reason ?? '',
    created_by: batch.created_by,
  };
}

/** A failed row: where in the file, and why. */
export function presentRowError(row: BatchRowRecord): Static<typeof BatchRowErrorSchema> {
  return {
    row: row.row_number,
    column: row.error_column ?? '',
    reason: row.error_reason ?? row.outcome ?? '',
    action: row.action ?? '',
    transaction_id: row.transaction_id ?? '',
  };
}

/** The seed types a batch transaction's `type` as an integer; these are the numbers (docs/batches.md). */
export const BATCH_TRANSACTION_TYPES = { Sales: 1, Authorization: 2, Capture: 3, Refund: 4 } as const;

type TransactionOfView = OrderView['transactions'][number];

/**
 * One transaction a batch row made, in operation 5's shape: the order's transaction as operations 1 and 8 show
 * it, with what the batch shape adds (the integer type, refunded amount, the order summarised with no line items,
 * no transactions and an empty customer, as the seed fixes them). `row` is the file's row that made it.
 */
export function presentBatchTransaction(
  view: OrderView,
  transaction: TransactionOfView,
  row?: { row: number; remark: string | null },
): BatchTransactionReply {
  const { order } = view;
  const e = order.currency_exponent;
  const shown = presentTransaction(transaction, view.transactions, e);
  const original =
    transaction.original_transaction_id === null
      ? undefined
      : view.transactions.find((t) => t.id === transaction.original_transaction_id);
  const refunded = view.transactions
    .filter((t) => t.type === 'Refund' && t.status === 'succeeded' && t.original_transaction_id === transaction.id)
    .reduce((sum, t) => sum + t.amount, 0);
  const paymentData = shown.payment_data;
  return {
    type: BATCH_TRANSACTION_TYPES[transaction.type],
    source: 'batch',
    success: shown.success,
    is_pending: shown.is_pending,
    captured: shown.captured,
    allow_void: shown.allow_void,
    allow_refund: shown.allow_refund,
    void_is_pending: shown.void_is_pending,
    voided: shown.voided,
    refunded_amount: amountAsNumber(refunded, e),
    amount: amountAsNumber(transaction.amount, e),
    change_amount: 0,
    original_currency_amount: amountAsNumber(transaction.amount, e),
    tips_amount: 0,
    payment_method: transaction.payment_method,
    currency: transaction.currency,
    uuid: transaction.id,
    note: transaction.note ?? '',
    voided_at: transaction.voided_at === null ? '' : iso(transaction.voided_at),
    device_sn: '',
    original_device_sn: '',
    acquirer_response_body: JSON.stringify({
      resp_code: paymentData.resp_code ?? null,
      resp_msg: paymentData.resp_msg ?? null,
      transaction_state: paymentData.transaction_state ?? null,
    }),
    created_at: iso(transaction.created_at),
    reference_id: order.reference_number,
    original_transaction_reference_id: original ? order.reference_number : '',
    payment_data: shown.payment_data,
    extra: row ? { row: row.row, remark: row.remark } : null,
    '3ds': shown['3ds'] ?? { enrolled: 'N', redirect_url: '' },
    original_transaction_uuid: transaction.original_transaction_id,
    order: {
      source: order.source,
      type: order.type,
      number: order.number,
      due_date: order.due_date ?? '',
      paid_total: formatAmount(order.paid_total, e),
      unpaid_total: formatAmount(order.initial_total - order.paid_total, e),
      reference_number: order.reference_number,
      state: order.state,
      correspondence_state: order.correspondence_state,
      currency: order.currency,
      note: order.note ?? '',
      auth_code: paymentData.auth_code ?? '',
      created_at: iso(order.created_at),
      updated_at: iso(order.updated_at),
      initial_total: amountAsNumber(order.initial_total, e),
      initial_tips: amountAsNumber(order.initial_tips, e),
      subtotal: amountAsNumber(order.subtotal, e),
      payment_method_option: { online: {} },
      business: { id: view.merchant.id, business_name: view.merchant.name },
      line_items: null,
      transactions: null,
      customer: {
        uuid: null,
        name: null,
        email: null,
        phone: null,
        dial_code: null,
        payer_company_name: null,
        reference_number: null,
        p_created_at: null,
        p_updated_at: null,
      },
    },
  };
}
