import type { Static } from 'typebox';
import { inTransaction, type Context } from '../platform/context.js';
import { isUniqueViolation } from '../platform/database/database.js';
import { AppError } from '../platform/errors.js';
import { isUuid, newId } from '../platform/ids.js';
import { describeAmountProblem, parseAmount } from '../platform/money/money.js';
import { localTime } from '../platform/time-zone.js';
import type { AcquirerResult, CardAcquirer } from '../rails/acquirer.js';
import { readCard, type CardInput } from './card.js';
import { hasOrderReference, resolveOrder, type OrderReference } from './lookup.js';
import { applyPayment, recordRailAnswer, type TransactionOutcome } from './outcomes.js';
import { cardFacts, cardPaymentData } from './payment-data.js';
import type { OpenPaymentBody } from './schemas.js';
import { orderTotals } from './totals.js';
import { findTransaction, findTransactionByKey, insertTransaction, orderTransactions, type TransactionRow } from './transactions-store.js';

export type OpenPaymentInput = Static<typeof OpenPaymentBody>;

export function acquirerOf(ctx: Context): CardAcquirer {
  if (!ctx.rails.acquirer) throw new AppError('acquirerUnavailable');
  return ctx.rails.acquirer;
}

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
  const reference: OrderReference = hasOrderReference(input.order) ? input.order : { number: input.number, reference_number: input.reference_number };
  if (!hasOrderReference(reference)) throw new AppError('orderReferenceMissing', 'Name the order to pay: number or reference_number.');

  const prepare = () => inTransaction(ctx, async (tx) => {
    const order = await resolveOrder(tx, reference, true);
    const requested = input.payment.amount === undefined ? undefined : parseAmount(input.payment.amount, order.currency_exponent);
    if (typeof requested === 'string') {
      throw new AppError('validationFailed', `payment.amount ${describeAmountProblem(requested, order.currency_exponent)}.`);
    }
    const key = { paymentUuid: input.payment.uuid, idempotencyKey: input.payment.uuid === undefined ? tx.idempotencyKey : undefined };
    const earlier = await findTransactionByKey(tx.db, tx.merchant.id, key);
    if (earlier) {
      const same = earlier.order_id === order.id && earlier.type === (capture ? 'Sales' : 'Authorization') &&
        (requested === undefined || requested === earlier.amount);
      if (!same) throw new AppError('paymentUuidReused');
      return { earlier, order };
    }
    if (order.voided_at !== null) throw new AppError('orderVoided');
    const amount = requested ?? orderTotals(order, await orderTransactions(tx.db, tx.merchant.id, order.id)).payable;
    if (amount <= 0) throw new AppError('orderNothingToPay');
    // A pending payment changes none of the order's totals or states: nothing to recompute yet.
    const transaction = pendingPayment(tx, order.id, order.currency, amount, capture, card, acquirer, input, key);
    await insertTransaction(tx.db, transaction);
    return { transaction, order };
  });
  // The same payment.uuid sent for two orders at once: the order locks do not serialise them, the unique key
  // does. The loser looks again and finds the winner's payment.
  const prepared = await prepare().catch((error: unknown) => {
    if (isUniqueViolation(error)) return prepare();
    throw error;
  });

  // A retry of a payment made before: the same payment is answered, whatever became of it.
  if ('earlier' in prepared) return recordRailAnswer(ctx, prepared.earlier!.id, nothingToApply);
  const { transaction } = prepared;
  // The pending record is on disk before any money can move: recovery can always find what the acquirer did.
  await ctx.database.durable();
  let result: AcquirerResult;
  try {
    result = await acquirer.authorize({
      reference: transaction.id, merchantId: ctx.merchant.id, amount: transaction.amount, currency: transaction.currency, capture, card,
    });
  } catch (error) {
    // The acquirer's answer is unknown: the transaction stays pending, and recovery asks the acquirer later.
    ctx.log.error({ err: error, transaction_id: transaction.id }, 'acquirer call failed; left for recovery');
    return recordRailAnswer(ctx, transaction.id, nothingToApply);
  }
  return recordRailAnswer(ctx, transaction.id, applyPayment(acquirer, result));
}

const nothingToApply = async (): Promise<void> => {};

function pendingPayment(
  ctx: Context,
  orderId: string,
  currency: string,
  amount: number,
  capture: boolean,
  card: CardInput,
  acquirer: CardAcquirer,
  input: OpenPaymentInput,
  key: { paymentUuid?: string; idempotencyKey?: string },
): TransactionRow {
  const id = newId();
  const now = ctx.clock.now().getTime();
  return {
    id,
    merchant_id: ctx.merchant.id,
    order_id: orderId,
    type: capture ? 'Sales' : 'Authorization',
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
    payment_uuid: key.paymentUuid ?? null,
    idempotency_key: key.idempotencyKey ?? null,
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
 * the sandbox API standing in for it).
 */
export async function completeChallenge(ctx: Context, transactionId: string, passed: boolean): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx);
  const transaction = isUuid(transactionId) ? await findTransaction(ctx.db, ctx.merchant.id, transactionId) : undefined;
  if (!transaction) throw new AppError('transactionNotFound');
  if (transaction.status !== 'pending' || transaction.progress !== 'challenge') throw new AppError('transactionNotPending');
  const result = await acquirer.completeChallenge(transaction.id, passed);
  // Two answers at once (a pass and a fail): the one recorded second finds it answered, and is refused.
  return recordRailAnswer(ctx, transaction.id, applyPayment(acquirer, result), { completesRequest: true, onlyIfAwaited: true });
}
