import type { Static } from 'typebox';
import { type CheckedCard, readCard } from '../cards/card.js';
import { type Context, inTransaction } from '../context/context.js';
import { chargeableToken, type TokenRow } from '../payment-tokens/index.js';
import { isUniqueViolation } from '../platform/database/database-errors.js';
import { AppError, invalid, isAppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { type Currency, formatAmount, MAX_MINOR, readMoney, withinMaximum } from '../platform/money/money.js';
import { localTime } from '../platform/time-zone.js';
import {
  type AcquirerResult,
  acquirerOf,
  type CardAcquirer,
  type PayerOutcome,
  WALLET_CURRENCIES,
  WALLET_METHODS,
  type WalletMethod,
} from '../rails/acquirer.js';
import { AnsweredBefore, runRailOperation } from '../rails/operation.js';
import { ORDER_ERRORS } from './errors.js';
import { hasOrderReference, type OrderReference, resolveOrder } from './lookup.js';
import { newTransaction } from './new-transaction.js';
import { answerRetry, applyPayment, recordRailAnswer, type TransactionOutcome } from './outcomes.js';
import { type CardFacts, cardFacts, inheritedCard } from './payment-data.js';
import type { OpenPaymentBody } from './schemas.js';
import { lockOrderOfTransaction, type OrderRow } from './store.js';
import { orderCurrency, orderTotals, paymentsTaken } from './totals.js';
import {
  findPaymentByUuid,
  findTransaction,
  findTransactionByIdempotencyKey,
  insertTransaction,
  orderTransactions,
  type TransactionRow,
  updateTransaction,
} from './transactions-store.js';

export type OpenPaymentInput = Static<typeof OpenPaymentBody>;

/** How the payer pays: by card (read and checked), or with a wallet. */
type Method =
  | { kind: 'credit_card'; card: CheckedCard; capture: boolean }
  | { kind: 'wallet'; wallet: WalletMethod }
  | { kind: 'payment_token'; token: string; capture: boolean; entry: 'cit' | 'mit' };

/** The wallet whose currencies an auto-debit token takes. */
const AUTO_DEBIT_WALLETS: Partial<Record<TokenRow['token_type'], WalletMethod>> = {
  AlipayAutoDebit: 'alipay',
  WechatPayAutoDebit: 'wechatpay',
};

/** A payment token's stored card, once found usable for this order. */
type StoredToken = Pick<
  TokenRow,
  | 'token'
  | 'token_type'
  | 'bind_reference'
  | 'card_first6'
  | 'card_last4'
  | 'card_brand'
  | 'holder_name'
  | 'exp_month'
  | 'exp_year'
>;

/**
 * Pays an order by card or with a wallet, in two phases: the transaction is recorded pending and committed, the
 * acquirer is called with no transaction open, and its answer is recorded in a second transaction. A crash
 * between the two leaves a pending record that recovery settles by asking the acquirer. `payment.uuid`, or else
 * the request's Idempotency-Key, names the payment: a retry returns it instead of charging again. A wallet
 * payment (always a sale) stays pending until the payer pays in the wallet's app, fails, or lets it expire.
 */
export async function payOrder(ctx: Context, input: OpenPaymentInput): Promise<TransactionOutcome> {
  return runRailOperation(ctx, {
    async begin() {
      // The same payment.uuid sent for two orders at once: the order locks do not serialise them, the unique key
      // does. The loser looks again and finds the winner's payment.
      const start = await beginPayment(ctx, input).catch((error: unknown) => {
        if (isUniqueViolation(error)) return beginPayment(ctx, input);
        throw error;
      });
      // A retry of a payment made before: the same payment is answered, as it stands once the acquirer's answer is in.
      if ('before' in start) return new AnsweredBefore(() => answerRetry(ctx, start.before.id));
      return { pending: start.begun, reference: start.begun.transaction.id };
    },
    call: (begun) => sendPayment(ctx, begun),
    finish: (begun, result) => finishPayment(ctx, { begun }, result),
  });
}

/** A payment recorded pending by its first phase, ready to be sent. */
export interface BegunPayment {
  transaction: TransactionRow;
  method: Method;
  stored: StoredToken | undefined;
}

/** What the first phase of a payment found: a new payment to send, or the one made before under its name. */
export type PaymentStart = { begun: BegunPayment } | { before: TransactionRow };

/** What the caller of {@link beginPayment} has just found or made in the same transaction: not looked up again. */
export interface KnownToPayment {
  /** The payment token, found chargeable for the order's customer. */
  token?: TokenRow;
  /** The order, made by this transaction (so locked by it, and without transactions). */
  madeOrder?: OrderRow;
}

/** Whether every name given for the order is this order's. */
function names(reference: OrderReference[], order: OrderRow): boolean {
  return reference.every(
    (name) =>
      (name.number === undefined || name.number === order.number) &&
      (name.reference_number === undefined || name.reference_number === order.reference_number),
  );
}

/**
 * The first phase of {@link payOrder}, in the caller's transaction (or one of its own): checks the payment and
 * records it pending. Several payments begun in one transaction are sent after it commits, and finished together
 * (a charge round, `charge-round.ts`). A refusal writes nothing.
 */
export async function beginPayment(
  ctx: Context,
  input: OpenPaymentInput,
  known: KnownToPayment = {},
): Promise<PaymentStart> {
  const acquirer = acquirerOf(ctx.rails);
  const method = readMethod(ctx, input.payment);
  const type = method.kind !== 'wallet' && !method.capture ? 'Authorization' : 'Sales';
  // The order may be named at the top level, under order{}, or both: every name must name the same order.
  const reference: OrderReference[] = [
    input.order,
    { number: input.number, reference_number: input.reference_number },
  ].filter(hasOrderReference);
  if (reference.length === 0)
    throw new AppError(ORDER_ERRORS.orderReferenceMissing, 'Name the order to pay: number or reference_number.');
  return inTransaction(ctx, async (tx) => {
    const made = known.madeOrder !== undefined && names(reference, known.madeOrder) ? known.madeOrder : undefined;
    const order = made ?? (await resolveOrder(tx, reference, true));
    if (method.kind === 'wallet' && !(WALLET_CURRENCIES[method.wallet] as readonly string[]).includes(order.currency)) {
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        `payment.${method.wallet} takes ${WALLET_CURRENCIES[method.wallet].join(', ')}; the order is in ${order.currency}.`,
      );
    }
    const requested = requestedAmount(input.payment, orderCurrency(order));
    const earlier =
      input.payment.uuid !== undefined
        ? await findPaymentByUuid(tx.db, tx.merchant.id, input.payment.uuid)
        : tx.idempotency &&
          (await findTransactionByIdempotencyKey(
            tx.db,
            tx.merchant.id,
            tx.idempotency.key,
            tx.wallClock.now().getTime(),
          ));
    if (earlier) {
      // (Before the token is looked at: a retry answers the payment made, even if the token was deleted since.)
      const same =
        earlier.order_id === order.id &&
        earlier.type === type &&
        earlier.payment_method === methodName(method) &&
        (requested === undefined || requested === earlier.amount) &&
        (method.kind !== 'payment_token' || inheritedCard(earlier.payment_data).token === method.token);
      if (!same)
        throw new AppError(
          input.payment.uuid !== undefined ? ORDER_ERRORS.paymentUuidReused : PLATFORM_ERRORS.idempotencyKeyReused,
        );
      return { before: earlier };
    }
    const stored =
      method.kind !== 'payment_token'
        ? undefined
        : known.token?.token === method.token && known.token.customer_id === order.customer_id
          ? known.token
          : await chargeableToken(tx, method.token, order.customer_id);
    const wallet = stored && AUTO_DEBIT_WALLETS[stored.token_type];
    if (wallet && type !== 'Sales') {
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        'A wallet auto-debit token is charged as a sale: payment_token.consume_mode must be sales.',
      );
    }
    if (wallet && !(WALLET_CURRENCIES[wallet] as readonly string[]).includes(order.currency)) {
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        `This ${stored.token_type} token takes ${WALLET_CURRENCIES[wallet].join(', ')}; the order is in ${order.currency}.`,
      );
    }
    if (order.voided_at !== null) throw new AppError(ORDER_ERRORS.orderVoided);
    const transactions = made ? [] : await orderTransactions(tx.db, tx.merchant.id, order.id);
    const amount = requested ?? orderTotals(order, transactions).payable;
    if (amount <= 0) throw new AppError(ORDER_ERRORS.orderNothingToPay);
    if (!withinMaximum(paymentsTaken(transactions) + amount)) {
      const most = `${formatAmount(MAX_MINOR, order.currency_exponent)} ${order.currency}`;
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        `payment.amount would take this order's payments past ${most}, the most one order can take.`,
      );
    }
    // A pending payment changes none of the order's totals or states: nothing to recompute yet.
    const transaction = pendingPayment(tx, order, amount, type, method, acquirer, input, stored);
    await insertTransaction(tx.db, transaction);
    return { begun: { transaction, method, stored } };
  });
}

/** The middle phase: the acquirer asked to make the payment (no transaction open, the pending record durable). */
export function sendPayment(ctx: Context, { transaction, method, stored }: BegunPayment): Promise<AcquirerResult> {
  const acquirer = acquirerOf(ctx.rails);
  const operation = {
    reference: transaction.id,
    merchantId: ctx.merchant.id,
    amount: transaction.amount,
    currency: transaction.currency,
  };
  switch (method.kind) {
    case 'credit_card':
      return acquirer.authorize({ ...operation, capture: method.capture, card: method.card });
    case 'payment_token':
      return acquirer.authorize({
        ...operation,
        capture: method.capture,
        card: { storedReference: stored!.bind_reference, entry: method.entry },
      });
    case 'wallet':
      return acquirer.startWalletPayment({ ...operation, method: method.wallet });
  }
}

/**
 * The second phase, in the caller's transaction (or one of its own): the acquirer's answer, or the payment made before.
 */
export function finishPayment(ctx: Context, start: PaymentStart, answer?: AcquirerResult): Promise<TransactionOutcome> {
  if ('before' in start) return recordRailAnswer(ctx, start.before.id, nothingToApply);
  if (!answer) throw new Error(`payment ${start.begun.transaction.id} finished without the acquirer's answer`);
  return recordRailAnswer(ctx, start.begun.transaction.id, applyPayment(acquirerOf(ctx.rails), answer));
}

/** The one payment method the payment names, checked; a card's expiry is read on the merchant's clock. */
function readMethod(ctx: Context, payment: OpenPaymentInput['payment']): Method {
  const named = [
    ...(payment.credit_card ? ['credit_card'] : []),
    ...(payment.payment_token ? ['payment_token'] : []),
    ...WALLET_METHODS.filter((wallet) => payment[wallet] !== undefined),
  ];
  if (named.length === 0) {
    throw new AppError(
      ORDER_ERRORS.paymentMethodMissing,
      `Name one payment method: payment.credit_card, payment.payment_token, ${WALLET_METHODS.map((w) => `payment.${w}`).join(', ')}.`,
    );
  }
  if (named.length > 1)
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      `payment names ${named.join(' and ')}: name one payment method.`,
    );
  const tokenInput = payment.payment_token;
  if (tokenInput) {
    const capture = tokenInput.consume_mode !== 'pre_authorize' && tokenInput.consume_mode !== 'preauth';
    return { kind: 'payment_token', token: tokenInput.token, capture, entry: tokenInput.entry_type ?? 'cit' };
  }
  const cardInput = payment.credit_card;
  if (!cardInput) return { kind: 'wallet', wallet: named[0] as WalletMethod };
  const now = localTime(ctx.clock.now().getTime(), ctx.merchant.timezone);
  const card = readCard(cardInput, { year: now.year, month: now.month }, 'payment.credit_card');
  if ('field' in card) throw invalid(card.field, `${card.message}`);
  return {
    kind: 'credit_card',
    card,
    capture: cardInput.consume_mode !== 'pre_authorize' && cardInput.consume_mode !== 'preauth',
  };
}

function methodName(method: Method): string {
  return method.kind === 'wallet' ? method.wallet : method.kind;
}

/** `payment.amount`, or `payment.payment_token.amount`: both may be sent, but then must be the same amount. */
function requestedAmount(payment: OpenPaymentInput['payment'], currency: Currency): number | undefined {
  const read = (field: string, text: string | number | undefined) =>
    text === undefined ? undefined : readMoney(text, currency, field).minor;
  const direct = read('payment.amount', payment.amount);
  const viaToken = read('payment.payment_token.amount', payment.payment_token?.amount);
  if (direct !== undefined && viaToken !== undefined && direct !== viaToken) {
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      'payment.amount and payment.payment_token.amount differ: send one, or the same amount in both.',
    );
  }
  return direct ?? viaToken;
}

const nothingToApply = async (): Promise<void> => {};

function pendingPayment(
  ctx: Context,
  order: { id: string; currency: string },
  amount: number,
  type: 'Sales' | 'Authorization',
  method: Method,
  acquirer: CardAcquirer,
  input: OpenPaymentInput,
  stored?: StoredToken,
): TransactionRow {
  return newTransaction(ctx, acquirer, {
    orderId: order.id,
    type,
    paymentMethod: methodName(method),
    currency: order.currency,
    amount,
    originalId: null,
    paymentUuid: input.payment.uuid ?? null,
    // payment.uuid names a payment for good; without one, the request's Idempotency-Key names it for a while.
    idempotency: input.payment.uuid === undefined ? ctx.idempotency : undefined,
    note: input.payment.note ?? null,
    card: method.kind === 'credit_card' ? cardFacts(method.card) : stored ? storedCardFacts(stored) : {},
  });
}

/**
 * The payer did (or refused, or abandoned) what a pending payment waits for: the 3-D Secure challenge, or the
 * payment in the wallet's app (in the sandbox, the simulation endpoints stand in for both). Two phases like
 * the payment itself: the transaction is marked as sending (so a second answer is refused and a crash is
 * recovered), then the acquirer is told.
 */
export async function completePayerAction(
  ctx: Context,
  transactionId: string,
  outcome: PayerOutcome,
): Promise<TransactionOutcome> {
  // The deadline is what counts, not whether its expiry job has run yet: too late is too late.
  return answerPayerAction(
    ctx,
    transactionId,
    outcome,
    (t) => t.expires_at === null || t.expires_at > ctx.clock.now().getTime(),
  );
}

async function answerPayerAction(
  ctx: Context,
  transactionId: string,
  outcome: PayerOutcome,
  stillDue: (transaction: TransactionRow) => boolean,
): Promise<TransactionOutcome> {
  const acquirer = acquirerOf(ctx.rails);
  if (!isUuid(transactionId)) throw new AppError(ORDER_ERRORS.transactionNotFound);
  return runRailOperation(ctx, {
    async begin() {
      const started = await inTransaction(ctx, async (tx) => {
        const order = await lockOrderOfTransaction(tx.db, tx.merchant.id, transactionId);
        const transaction = order && (await findTransaction(tx.db, tx.merchant.id, transactionId));
        if (!transaction) throw new AppError(ORDER_ERRORS.transactionNotFound);
        // A retry of the request that answered it (its reply lost to a crash).
        if (tx.idempotency !== undefined && transaction.payer_action_idempotency_key === tx.idempotency.key)
          return { before: transaction };
        if (transaction.status !== 'pending' || transaction.progress !== 'awaiting_payer' || !stillDue(transaction)) {
          throw new AppError(ORDER_ERRORS.transactionNotPending);
        }
        return updateTransaction(tx.db, tx.merchant.id, transaction.id, {
          progress: 'sending',
          rail_started_at: tx.wallClock.now().getTime(),
          updated_at: tx.clock.now().getTime(),
          payer_action_idempotency_key: tx.idempotency?.key ?? null,
        });
      });
      if ('before' in started) return new AnsweredBefore(() => answerRetry(ctx, started.before.id));
      return { pending: started, reference: started.id };
    },
    call: (started) => acquirer.completePayerAction(started.id, outcome),
    finish: (started, result) => recordRailAnswer(ctx, started.id, applyPayment(acquirer, result)),
  });
}

/**
 * The expiry given up on: a payment still waiting for its payer fails as abandoned, recorded without waiting for the
 * acquirer, which is told once this has committed (best effort: its challenge can no longer change the payment,
 * which is settled). One whose answer is on its way is recovery's to end.
 */
export async function abandonPayerAction(ctx: Context, { transactionId }: { transactionId: string }): Promise<void> {
  const order = await lockOrderOfTransaction(ctx.db, ctx.merchant.id, transactionId);
  const transaction = order && (await findTransaction(ctx.db, ctx.merchant.id, transactionId));
  if (transaction?.status !== 'pending' || transaction.progress !== 'awaiting_payer') return;
  const card = transaction.payment_method === 'credit_card';
  const acquirer = acquirerOf(ctx.rails);
  await recordRailAnswer(
    ctx,
    transactionId,
    applyPayment(acquirer, {
      status: 'declined',
      responseCode: '05',
      rrn: '',
      responseMessage: card
        ? '3-D Secure challenge abandoned: not completed in time'
        : 'The wallet payment expired: the payer did not pay in time',
    }),
    { completesRequest: false },
  );
  ctx.afterCommit?.(
    () =>
      void acquirer.completePayerAction(transactionId, 'abandoned').catch((error: unknown) => {
        ctx.log.warn(
          { err: error, transaction_id: transactionId },
          'could not abandon the payer action of a payment given up on',
        );
      }),
  );
}

/** A challenge nobody passed, or a wallet payment nobody made, fails as abandoned once its time is up. */
export async function expirePayerAction(ctx: Context, payload: { transactionId: string }): Promise<void> {
  try {
    // A payment put back to the payer by recovery has a later deadline, and its own expiry job.
    await answerPayerAction(
      ctx,
      payload.transactionId,
      'abandoned',
      (t) => t.expires_at !== null && t.expires_at <= ctx.clock.now().getTime(),
    );
  } catch (error) {
    // Completed (or failed) meanwhile: nothing left to expire.
    if (!isAppError(error, ORDER_ERRORS.transactionNotPending)) throw error;
  }
}

/** What a charge of a token shows of its card: the masked parts kept at binding, and the token itself. */
function storedCardFacts(stored: StoredToken): Partial<CardFacts> & { token: string } {
  return {
    token: stored.token,
    ...(stored.card_first6 !== null && { first_6_digits: stored.card_first6 }),
    ...(stored.card_last4 !== null && { last_4_digits: stored.card_last4 }),
    ...(stored.card_brand !== null && { credit_card_type: stored.card_brand }),
    ...(stored.holder_name !== null && { holder_name: stored.holder_name }),
    ...(stored.exp_month !== null && { exp_month: stored.exp_month }),
    ...(stored.exp_year !== null && { exp_year: stored.exp_year }),
  };
}
