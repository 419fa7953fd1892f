import { type Context, inTransaction } from '../context/context.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { readMoney } from '../platform/money/money.js';
import { type AcquirerResult, acquirerOf } from '../rails/acquirer.js';
import { AnsweredBefore, runRailOperation } from '../rails/operation.js';
import { ORDER_ERRORS } from './errors.js';
import { type OrderReference, resolveTransaction } from './lookup.js';
import { newTransaction } from './new-transaction.js';
import {
  answerRetry,
  applyCapture,
  applyRefund,
  applyVoid,
  recordRailAnswer,
  type TransactionOutcome,
} from './outcomes.js';
import { inheritedCard } from './payment-data.js';
import { refreshOrder } from './refresh-order.js';
import { captureRefusal, refundable, voidRefusal } from './rules.js';
import type { OrderRow } from './store.js';
import { orderCurrency } from './totals.js';
import {
  findTransactionByIdempotencyKey,
  insertTransaction,
  orderTransactions,
  type TransactionRow,
  updateTransaction,
} from './transactions-store.js';

interface Target {
  order?: OrderReference;
  transactionId: string;
}

/**
 * Captures an authorisation, once, for up to the authorised amount (all of it when no amount is given); the rest
 * is released. Two captures of one authorisation cannot both pass: the first holds it from its first commit.
 */
export async function captureAuthorization(
  ctx: Context,
  target: Target,
  amountInput: string | number | undefined,
): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx.rails);
  const prepare = () =>
    inTransaction(ctx, async (tx) => {
      const { order, transaction } = await resolveTransaction(tx, target, { lock: true });
      const amount = amountInput === undefined ? transaction.amount : readAmount(amountInput, order, 'capture.amount');
      const earlier = await earlierOperation(tx, { type: 'Capture', originalId: transaction.id, amount });
      if (earlier) return { retry: true as const, transaction: earlier };
      const refusal = captureRefusal(
        transaction,
        await orderTransactions(tx.db, tx.merchant.id, order.id),
        tx.clock.now().getTime(),
      );
      if (refusal) throw new AppError(ORDER_ERRORS.transactionNotCapturable, refusal);
      if (amount > transaction.amount) throw new AppError(ORDER_ERRORS.captureExceedsAuthorized);
      const capture = followUp(tx, order, transaction, 'Capture', amount, null);
      await insertTransaction(tx.db, capture);
      await refreshOrder(tx, order);
      return { retry: false as const, transaction: capture };
    });
  return runRailOperation(ctx, {
    begin: async () => beginOrAnswer(ctx, await prepare()),
    call: (capture) =>
      acquirer.capture({ ...operationOf(ctx, capture), originalReference: capture.original_transaction_id! }),
    finish: (capture, result) => recordRailAnswer(ctx, capture.id, applyCapture(acquirer, result)),
  });
}

/** A follow-up recorded pending goes on to the acquirer; one an earlier request made is answered as it stands. */
function beginOrAnswer(ctx: Context, prepared: { retry: boolean; transaction: TransactionRow }) {
  if (prepared.retry) return new AnsweredBefore(() => answerRetry(ctx, prepared.transaction.id));
  return { pending: prepared.transaction, reference: prepared.transaction.id };
}

/**
 * Voids a transaction before settlement: a sale or capture (its money is never taken) or an open
 * authorisation (its hold is released). After settlement, refund instead. A retry of a void, named by its
 * Idempotency-Key, is answered with the void.
 */
export async function voidTransaction(ctx: Context, target: Target): Promise<TransactionOutcome> {
  const prepare = () =>
    inTransaction(ctx, async (tx) => {
      const { order, transaction } = await resolveTransaction(tx, target, { lock: true });
      const retried =
        tx.idempotency !== undefined &&
        transaction.void_idempotency_key === tx.idempotency.key &&
        (transaction.voided === 1 || transaction.void_is_pending === 1);
      if (retried) return { retry: true as const, transaction };
      const refusal = voidRefusal(transaction, await orderTransactions(tx.db, tx.merchant.id, order.id));
      if (refusal) throw new AppError(ORDER_ERRORS.transactionNotVoidable, refusal);
      return { retry: false as const, transaction: await beginVoid(tx, order, transaction, 'merchant') };
    });
  return runRailOperation(ctx, { begin: async () => beginOrAnswer(ctx, await prepare()), ...voidOnRail(ctx) });
}

/**
 * First phase of a void, in the caller's transaction: marks it pending with its reason, so nothing else acts on
 * it meanwhile and recovery knows why it was being voided.
 */
export async function beginVoid(
  ctx: Context,
  order: OrderRow,
  transaction: TransactionRow,
  reason: NonNullable<TransactionRow['void_reason']>,
): Promise<TransactionRow> {
  const updated = await updateTransaction(ctx.db, ctx.merchant.id, transaction.id, {
    void_is_pending: 1,
    void_reason: reason,
    void_idempotency_key: ctx.idempotency?.key ?? null,
    rail_started_at: ctx.wallClock.now().getTime(),
    updated_at: ctx.clock.now().getTime(),
  });
  await refreshOrder(ctx, order);
  return updated;
}

/**
 * The rest of a void once `beginVoid` has committed: asks the acquirer and records its answer; a refused void is
 * an error to the caller.
 */
export function voidOnRail(ctx: Context) {
  const acquirer = acquirerOf(ctx.rails);
  return {
    call: (transaction: TransactionRow) =>
      acquirer.void({
        ...operationOf(ctx, transaction),
        reference: voidReference(transaction.id),
        originalReference: transaction.id,
      }),
    async finish(transaction: TransactionRow, result: AcquirerResult): Promise<TransactionOutcome> {
      const approved = result.status === 'approved';
      const outcome = await recordRailAnswer(ctx, transaction.id, applyVoid(result), { completesRequest: approved });
      if (!approved)
        throw new AppError(
          ORDER_ERRORS.transactionNotVoidable,
          `The acquirer refused the void: ${result.responseMessage}.`,
        );
      return outcome;
    },
  };
}

export function voidReference(transactionId: string): string {
  return `${transactionId}:void`;
}

/**
 * Refunds part or all of a settled sale or capture (or of a captured authorisation, through its capture).
 * Repeated refunds never add up to more than was captured: refunds still pending count, so two at once
 * cannot both pass. The request's Idempotency-Key names the refund: a retry returns it.
 */
export async function refundTransaction(
  ctx: Context,
  target: Target,
  input: { amount: string | number; note?: string | null; reason?: string | null },
): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx.rails);
  const prepare = () =>
    inTransaction(ctx, async (tx) => {
      const { order, transaction } = await resolveTransaction(tx, target, { lock: true });
      const all = await orderTransactions(tx.db, tx.merchant.id, order.id);
      const amount = readAmount(input.amount, order, 'refund.amount');
      // A captured authorisation stands for its capture: the money to refund is the capture's.
      const { money, refusal, left } = refundable(transaction, all);
      const earlier = await earlierOperation(tx, { type: 'Refund', originalId: money?.id ?? transaction.id, amount });
      if (earlier) return { retry: true as const, transaction: earlier };
      if (refusal) throw new AppError(ORDER_ERRORS.transactionNotRefundable, refusal);
      if (amount > left) throw new AppError(ORDER_ERRORS.refundExceedsCaptured);
      const refund = followUp(tx, order, money!, 'Refund', amount, input.note ?? input.reason ?? null);
      await insertTransaction(tx.db, refund);
      await refreshOrder(tx, order);
      return { retry: false as const, transaction: refund };
    });
  return runRailOperation(ctx, {
    begin: async () => beginOrAnswer(ctx, await prepare()),
    call: (refund) =>
      acquirer.refund({ ...operationOf(ctx, refund), originalReference: refund.original_transaction_id! }),
    finish: (refund, result) => recordRailAnswer(ctx, refund.id, applyRefund(acquirer, result)),
  });
}

/**
 * The capture or refund an earlier request with this Idempotency-Key made (its reply lost to a crash or a
 * missing answer): a retry returns it. The key naming any other operation is a reuse, refused.
 */
async function earlierOperation(
  ctx: Context,
  expected: { type: 'Capture' | 'Refund'; originalId: string; amount: number },
): Promise<TransactionRow | undefined> {
  if (!ctx.idempotency) return undefined;
  const earlier = await findTransactionByIdempotencyKey(
    ctx.db,
    ctx.merchant.id,
    ctx.idempotency.key,
    ctx.wallClock.now().getTime(),
  );
  if (!earlier) return undefined;
  const same =
    earlier.type === expected.type &&
    earlier.original_transaction_id === expected.originalId &&
    earlier.amount === expected.amount;
  if (!same) throw new AppError(PLATFORM_ERRORS.idempotencyKeyReused);
  return earlier;
}

/** A pending capture or refund acting on `original`, ready to insert. */
function followUp(
  ctx: Context,
  order: OrderRow,
  original: TransactionRow,
  type: 'Capture' | 'Refund',
  amount: number,
  note: string | null,
): TransactionRow {
  return newTransaction(ctx, acquirerOf(ctx.rails), {
    orderId: order.id,
    type,
    paymentMethod: original.payment_method,
    currency: order.currency,
    amount,
    originalId: original.id,
    paymentUuid: null,
    idempotency: ctx.idempotency,
    note,
    card: inheritedCard(original.payment_data),
  });
}

function readAmount(input: string | number, order: OrderRow, field: string): number {
  return readMoney(input, orderCurrency(order), field).minor;
}

function operationOf(ctx: Context, transaction: TransactionRow) {
  return {
    reference: transaction.id,
    merchantId: ctx.merchant.id,
    amount: transaction.amount,
    currency: transaction.currency,
  };
}
