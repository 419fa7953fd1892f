import type { Static } from 'typebox';
import { inTransaction, type Context } from '../platform/context.js';
import { isUniqueViolation } from '../platform/database/database.js';
import { AppError } from '../platform/errors.js';
import { isUuid, newId } from '../platform/ids.js';
import { describeAmountProblem, parseAmount } from '../platform/money/money.js';
import { localTime } from '../platform/time-zone.js';
import type { CardAcquirer, ChallengeOutcome } from '../rails/acquirer.js';
import { readCard, type CardInput } from './card.js';
import { hasOrderReference, resolveOrder, type OrderReference } from './lookup.js';
import { applyPayment, recordRailAnswer, type TransactionOutcome } from './outcomes.js';
import { cardFacts, cardPaymentData } from './payment-data.js';
import type { OpenPaymentBody } from './schemas.js';
import { orderTotals } from './totals.js';
import { acquirerOf, callAcquirer } from './rail-call.js';
import { lockOrderOfTransaction } from './store.js';
import {
  findPaymentByUuid,
  findTransaction,
  findTransactionByIdempotencyKey,
  insertTransaction,
  orderTransactions,
  updateTransaction,
  type TransactionRow,
} from './transactions-store.js';

export type OpenPaymentInput = Static<typeof OpenPaymentBody>;

/**
 * Pays an order by card, in two phases: the transaction is recorded pending and committed, the acquirer is
 * called with no transaction open, and its answer is recorded in a second transaction. A crash between the two
 * leaves a pending record that recovery settles by asking the acquirer. `payment.uuid`, or else the request's
 * Idempotency-Key, names the payment: a retry returns it instead of charging again.
 */
export async function payOrder(ctx: Context, input: OpenPaymentInput): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx);
  const cardInput = input.payment.credit_card;
  if (!cardInput) throw new AppError('paymentMethodMissing', 'payment.credit_card is required (the payment methods taken here: credit_card).');
  const now = localTime(ctx.clock.now().getTime(), ctx.merchant.timezone);
  const card = readCard(cardInput, { year: now.year, month: now.month }, 'payment.credit_card');
  if ('field' in card) throw new AppError('validationFailed', `${card.field} ${card.message}.`);
  const capture = cardInput.consume_mode !== 'pre_authorize' && cardInput.consume_mode !== 'preauth';
  const type = capture ? 'Sales' : 'Authorization';
  const reference: OrderReference = hasOrderReference(input.order) ? input.order : { number: input.number, reference_number: input.reference_number };
  if (!hasOrderReference(reference)) throw new AppError('orderReferenceMissing', 'Name the order to pay: number or reference_number.');

  const prepare = () => inTransaction(ctx, async (tx) => {
    const order = await resolveOrder(tx, reference, true);
    const requested = input.payment.amount === undefined ? undefined : parseAmount(input.payment.amount, order.currency_exponent);
    if (typeof requested === 'string') {
      throw new AppError('validationFailed', `payment.amount ${describeAmountProblem(requested, order.currency_exponent)}.`);
    }
    const earlier = input.payment.uuid !== undefined
      ? await findPaymentByUuid(tx.db, tx.merchant.id, input.payment.uuid)
      : tx.idempotency && (await findTransactionByIdempotencyKey(tx.db, tx.merchant.id, tx.idempotency.key, tx.wallClock.now().getTime()));
    if (earlier) {
      const same = earlier.order_id === order.id && earlier.type === type && (requested === undefined || requested === earlier.amount);
      if (!same) throw new AppError(input.payment.uuid !== undefined ? 'paymentUuidReused' : 'idempotencyKeyReused');
      return { retry: true as const, transaction: earlier };
    }
    if (order.voided_at !== null) throw new AppError('orderVoided');
    const amount = requested ?? orderTotals(order, await orderTransactions(tx.db, tx.merchant.id, order.id)).payable;
    if (amount <= 0) throw new AppError('orderNothingToPay');
    // A pending payment changes none of the order's totals or states: nothing to recompute yet.
    const transaction = pendingPayment(tx, order.id, order.currency, amount, type, card, acquirer, input);
    await insertTransaction(tx.db, transaction);
    return { retry: false as const, transaction };
  });
  // The same payment.uuid sent for two orders at once: the order locks do not serialise them, the unique key
  // does. The loser looks again and finds the winner's payment.
  const prepared = await prepare().catch((error: unknown) => {
    if (isUniqueViolation(error)) return prepare();
    throw error;
  });

  // A retry of a payment made before: the same payment is answered, whatever became of it.
  if (prepared.retry) return recordRailAnswer(ctx, prepared.transaction.id, nothingToApply);
  const { transaction } = prepared;
  const result = await callAcquirer(ctx, transaction.id, () => acquirer.authorize({
    reference: transaction.id, merchantId: ctx.merchant.id, amount: transaction.amount, currency: transaction.currency, capture, card,
  }));
  return recordRailAnswer(ctx, transaction.id, applyPayment(acquirer, result));
}

const nothingToApply = async (): Promise<void> => {};

function pendingPayment(
  ctx: Context,
  orderId: string,
  currency: string,
  amount: number,
  type: 'Sales' | 'Authorization',
  card: CardInput,
  acquirer: CardAcquirer,
  input: OpenPaymentInput,
): TransactionRow {
  const id = newId();
  const now = ctx.clock.now().getTime();
  const byIdempotencyKey = input.payment.uuid === undefined && ctx.idempotency !== undefined;
  return {
    id,
    merchant_id: ctx.merchant.id,
    order_id: orderId,
    type,
    payment_method: 'credit_card',
    currency,
    amount,
    status: 'pending',
    progress: 'sending',
    captured: 0,
    voided: 0,
    void_reason: null,
    voided_at: null,
    void_is_pending: 0,
    settled_at: null,
    expires_at: null,
    original_transaction_id: null,
    payment_uuid: input.payment.uuid ?? null,
    idempotency_key: byIdempotencyKey ? ctx.idempotency!.key : null,
    idempotency_expires_at: byIdempotencyKey ? ctx.idempotency!.expiresAt : null,
    void_idempotency_key: null,
    note: input.payment.note ?? null,
    payment_data: JSON.stringify(cardPaymentData({ transactionId: id, merchantId: ctx.merchant.id, acquirer, card: cardFacts(card) })),
    three_ds: null,
    rail_started_at: ctx.wallClock.now().getTime(),
    created_at: now,
    updated_at: now,
  };
}

/**
 * The cardholder passed or failed the 3-D Secure challenge of a pending payment (the hosted challenge page, or
 * the sandbox API standing in for it), or let it lapse. Two phases like the payment itself: the transaction is
 * marked as sending (so a second answer is refused and a crash is recovered), then the acquirer is told.
 */
export async function completeChallenge(
  ctx: Context,
  transactionId: string,
  outcome: ChallengeOutcome,
): Promise<TransactionOutcome> {
  return answerChallenge(ctx, transactionId, outcome, () => true);
}

async function answerChallenge(
  ctx: Context,
  transactionId: string,
  outcome: ChallengeOutcome,
  stillDue: (transaction: TransactionRow) => boolean,
): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx);
  if (!isUuid(transactionId)) throw new AppError('transactionNotFound');
  const started = await inTransaction(ctx, async (tx) => {
    const order = await lockOrderOfTransaction(tx.db, tx.merchant.id, transactionId);
    const transaction = order && (await findTransaction(tx.db, tx.merchant.id, transactionId));
    if (!transaction) throw new AppError('transactionNotFound');
    if (transaction.status !== 'pending' || transaction.progress !== 'awaiting_payer' || !stillDue(transaction)) {
      throw new AppError('transactionNotPending');
    }
    return updateTransaction(tx.db, tx.merchant.id, transaction.id, {
      progress: 'sending', rail_started_at: tx.wallClock.now().getTime(), updated_at: tx.clock.now().getTime(),
    });
  });
  const result = await callAcquirer(ctx, started.id, () => acquirer.completeChallenge(started.id, outcome));
  return recordRailAnswer(ctx, started.id, applyPayment(acquirer, result));
}

/** A challenge nobody completed fails as abandoned once its time is up. */
export async function expireChallenge(ctx: Context, payload: { transactionId: string }): Promise<void> {
  try {
    // A challenge put back to the payer by recovery has a later deadline, and its own expiry job.
    await answerChallenge(ctx, payload.transactionId, 'abandoned', (t) => t.expires_at !== null && t.expires_at <= ctx.clock.now().getTime());
  } catch (error) {
    // Completed (or failed) meanwhile: nothing left to expire.
    if (!(error instanceof AppError && error.kind === 'transactionNotPending')) throw error;
  }
}
