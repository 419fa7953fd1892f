import type { Static } from 'typebox';
import { brandOf, type CheckedCard, readCard } from '../cards/card.js';
import { type Context, inTransaction } from '../context/context.js';
import { getCustomer } from '../customers/index.js';
import { AppError, invalid, isAppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { currencyOf, oneUnit, readCurrency } from '../platform/money/money.js';
import { localTime } from '../platform/time-zone.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { type AcquirerResult, type AutoDebitWallet, acquirerOf, type PayerOutcome } from '../rails/acquirer.js';
import { AnsweredBefore, type RailOperationKind, runRailOperation } from '../rails/operation.js';
import { cancelJob, scheduleJob } from '../scheduler/scheduler.js';
import { TOKEN_ERRORS } from './errors.js';
import { emitTokenEvent } from './events.js';
import type { BindTokenBody } from './schemas.js';
import {
  findTokenById,
  findTokenByIdempotencyKey,
  insertToken,
  interruptedBindings,
  type TokenRow,
  updateToken,
} from './store.js';

export type BindTokenInput = Static<typeof BindTokenBody>;

export const EXPIRE_BINDING_JOB = 'payment_tokens.expire_binding';
/** How long the cardholder has for the 3-D Secure challenge of a binding (business time), as for a payment. */
export const BINDING_LIFETIME_MS = 15 * 60 * 1000;
const expiryKey = (tokenId: string) => `${EXPIRE_BINDING_JOB}:${tokenId}`;

/**
 * Binds a payment token to a customer: a card (`card`), or a wallet auto-debit agreement (`alipay`, `wechatpay`).
 * As real binding does, a card is verified by authorising one unit of its billing currency (HKD 1.00), which is
 * voided at once; the issuer may ask for 3-D Secure, and then the token stays `pending` (with `verify_url`) until
 * the cardholder passes or fails. An agreement is pending until the payer allows it in the wallet's app (its
 * page is `verify_url`). Two phases like a payment: the token is recorded and committed before the acquirer is
 * called, and a binding whose answer was lost is settled by recovery (or by its expiry job). Only the masked card
 * is kept; the acquirer keeps the card itself.
 */
export async function bindPaymentToken(ctx: Context, customerUuid: string, input: BindTokenInput): Promise<TokenRow> {
  const acquirer = acquirerOf(ctx.rails);
  const named = (['card', 'alipay', 'wechatpay'] as const).filter((method) => input[method] !== undefined);
  if (named.length !== 1) {
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      named.length === 0
        ? 'Name what to bind: card, alipay or wechatpay.'
        : `The body names ${named.join(' and ')}: bind one.`,
    );
  }
  const customer = await getCustomer(ctx, customerUuid);
  const draft = input.card ? readCardBinding(ctx, input.card) : walletBinding(input.alipay ? 'alipay' : 'wechatpay');
  const id = ctx.ids.uuid();
  const nowMs = ctx.clock.now().getTime();
  const row: TokenRow = {
    ...draft.fields,
    id,
    merchant_id: ctx.merchant.id,
    customer_id: customer.id,
    token: ctx.ids.bytes(16).toString('hex'),
    state: 'pending',
    progress: 'sending',
    verify_uuid: ctx.ids.uuid(),
    verify_url: null,
    bind_reference: id,
    error_code: null,
    error_msg: null,
    app_id: ctx.actor.kind === 'app' ? ctx.actor.appId : null,
    rail_started_at: ctx.wallClock.now().getTime(),
    idempotency_key: ctx.idempotency?.key ?? null,
    idempotency_expires_at: ctx.idempotency?.expiresAt ?? null,
    deleted_at: null,
    created_at: nowMs,
    updated_at: nowMs,
  };
  return runRailOperation(ctx, {
    async begin() {
      const earlier = await inTransaction(ctx, async (tx) => {
        // A retry of a bind whose answer was lost (a 5xx frees its Idempotency-Key): the same binding, not a second.
        const before =
          tx.idempotency &&
          (await findTokenByIdempotencyKey(tx.db, tx.merchant.id, tx.idempotency.key, tx.wallClock.now().getTime()));
        if (before) {
          if (before.customer_id !== customer.id) throw new AppError(PLATFORM_ERRORS.idempotencyKeyReused);
          return before;
        }
        await insertToken(tx.db, row);
        // Settles a challenge nobody answered (and a binding whose answer recovery has not settled yet).
        await scheduleJob(tx, {
          kind: EXPIRE_BINDING_JOB,
          merchantId: tx.merchant.id,
          dueAt: nowMs + BINDING_LIFETIME_MS,
          payload: { tokenId: id },
          dedupeKey: expiryKey(id),
        });
        return undefined;
      });
      if (earlier && earlier.progress !== 'sending')
        return new AnsweredBefore(() => inTransaction(ctx, async () => earlier, { completesRequest: true }));
      const reference = earlier?.bind_reference ?? id;
      return { pending: reference, reference };
    },
    // The acquirer does an operation once: asked again about the same reference, it gives its first answer.
    call: (reference) =>
      draft.kind === 'card'
        ? acquirer.authorize({
            reference,
            merchantId: ctx.merchant.id,
            amount: draft.verificationAmount,
            currency: row.billing_currency,
            capture: false,
            card: draft.card,
            verification: true,
          })
        : acquirer.startWalletAgreement({ reference, merchantId: ctx.merchant.id, method: draft.wallet }),
    finish: (reference, result) => settleBinding(ctx, reference, result),
  });
}

type TokenFields = Pick<
  TokenRow,
  | 'token_type'
  | 'card_first6'
  | 'card_last4'
  | 'card_brand'
  | 'exp_month'
  | 'exp_year'
  | 'holder_name'
  | 'billing_currency'
  | 'billing_address'
  | 'success_return_url'
  | 'fail_return_url'
>;
type Draft =
  | { kind: 'card'; card: CheckedCard; verificationAmount: number; fields: TokenFields }
  | { kind: 'wallet'; wallet: AutoDebitWallet; fields: TokenFields };

/** The card, checked as a payment's is, and what is kept of it. */
function readCardBinding(ctx: Context, input: NonNullable<BindTokenInput['card']>): Draft {
  const now = localTime(ctx.clock.now().getTime(), ctx.merchant.timezone);
  const card = readCard(
    {
      number: input.number,
      exp_month: input.exp_month,
      exp_year: input.exp_year,
      cvv: input.cvv,
      holder_name: input.holder_name,
    },
    { year: now.year, month: now.month },
    'card',
  );
  if ('field' in card) throw invalid(card.field, `${card.message}`);
  const currency = readCurrency(input.billing_currency ?? 'HKD', 'card.billing_currency');
  const returns = input['3ds'] ?? {};
  for (const [field, url] of Object.entries(returns))
    if (url) checkMerchantUrl(url, `card.3ds.${field}`, ctx.config.mode);
  return {
    kind: 'card',
    card,
    verificationAmount: oneUnit(currency),
    fields: {
      token_type: 'CreditCard',
      card_first6: card.number.slice(0, 6),
      card_last4: card.number.slice(-4),
      card_brand: brandOf(card.number),
      exp_month: String(card.expMonth).padStart(2, '0'),
      exp_year: String(card.expYear),
      holder_name: input.holder_name,
      billing_currency: currency.code,
      billing_address: input.billing_address === undefined ? null : JSON.stringify(input.billing_address),
      success_return_url: returns.success_return_url || null,
      fail_return_url: returns.fail_return_url || null,
    },
  };
}

function walletBinding(wallet: AutoDebitWallet): Draft {
  return {
    kind: 'wallet',
    wallet,
    fields: {
      token_type: wallet === 'alipay' ? 'AlipayAutoDebit' : 'WechatPayAutoDebit',
      card_first6: null,
      card_last4: null,
      card_brand: null,
      exp_month: null,
      exp_year: null,
      holder_name: null,
      billing_currency: 'HKD',
      billing_address: null,
      success_return_url: null,
      fail_return_url: null,
    },
  };
}

/**
 * Records what the acquirer answered about a binding's verification: approved (the authorisation is voided and
 * the token succeeds), refused (the token fails with the acquirer's code and message), or a challenge to pass.
 */
export async function settleBinding(ctx: Context, tokenId: string, result: AcquirerResult): Promise<TokenRow> {
  // Nothing is left to release for a wallet, or for a card whose verification was voided now.
  let released = true;
  if (result.status === 'approved') {
    // Voided whatever became of the token meanwhile (deleted, say): the acquirer voids a reference once.
    const row = await findTokenById(ctx.db, ctx.merchant.id, tokenId);
    if (row && row.token_type === 'CreditCard')
      released = await releaseVerification(ctx, row).then(
        () => true,
        () => false,
      );
  }
  return inTransaction(
    ctx,
    async (tx) => {
      const row = await findTokenById(tx.db, tx.merchant.id, tokenId, true);
      if (!row) throw new AppError(TOKEN_ERRORS.paymentTokenNotFound);
      // Settled already (a retry, the expiry job racing the cardholder, or deleted meanwhile): the first answer stands.
      if (row.state !== 'pending' || row.deleted_at !== null) return row;
      const now = tx.clock.now().getTime();
      const action = result.status === 'awaiting_payer' ? result.payerAction : undefined;
      if (action) {
        // A wallet's QR code is a page only when it is an address (a real wallet's may be a payload to scan).
        const page =
          action.kind === '3ds'
            ? action.url
            : (action.redirectUrl ?? (action.qrCode && /^https?:\/\//.test(action.qrCode) ? action.qrCode : null));
        return updateToken(tx.db, tx.merchant.id, tokenId, {
          progress: 'awaiting_payer',
          verify_url: page,
          updated_at: now,
        });
      }
      const succeeded = result.status === 'approved';
      const settled = await updateToken(tx.db, tx.merchant.id, tokenId, {
        state: succeeded ? 'success' : 'failed',
        progress: 'done',
        error_code: succeeded ? null : result.responseCode,
        error_msg: succeeded ? null : result.responseMessage,
        updated_at: now,
      });
      await emitTokenEvent(tx, succeeded ? 'payment_token.succeeded' : 'payment_token.failed', settled);
      // Settled, and any hold released: the expiry job would find nothing to do (and a sandbox clock moved past
      // thousands of such jobs would stop at each).
      if (released) await cancelJob(tx, expiryKey(tokenId));
      return settled;
    },
    { completesRequest: true },
  );
}

/**
 * The verification authorisation is not a charge: it is voided as soon as it is approved. If that fails, the
 * card is bound all the same, and the binding's job (due 15 minutes later) voids it again until it succeeds.
 */
async function releaseVerification(ctx: Context, row: TokenRow): Promise<void> {
  try {
    await acquirerOf(ctx.rails).void({
      reference: `${row.bind_reference}:void`,
      originalReference: row.bind_reference,
      merchantId: ctx.merchant.id,
      amount: oneUnit(currencyOf(row.billing_currency)),
      currency: row.billing_currency,
    });
  } catch (error) {
    ctx.log.warn(
      { err: error, payment_token_id: row.id },
      'could not void the verification authorisation of a binding; its job will try again',
    );
    throw error;
  }
}

/**
 * The cardholder passed or failed the binding's 3-D Secure challenge (on the challenge page, or through the
 * sandbox API standing in for it). Refused once the challenge's time is up, as for a payment.
 */
export async function completeBinding(
  ctx: Context,
  tokenId: string,
  outcome: PayerOutcome,
  options: { expiring?: boolean } = {},
): Promise<TokenRow> {
  const acquirer = acquirerOf(ctx.rails);
  return runRailOperation(ctx, {
    async begin() {
      await inTransaction(ctx, async (tx) => {
        const row = await findTokenById(tx.db, tx.merchant.id, tokenId, true);
        if (!row || row.deleted_at !== null) throw new AppError(TOKEN_ERRORS.paymentTokenNotFound);
        const late = row.created_at + BINDING_LIFETIME_MS <= tx.clock.now().getTime();
        if (row.state !== 'pending' || row.progress !== 'awaiting_payer' || (late && !options.expiring))
          throw new AppError(TOKEN_ERRORS.paymentTokenNotPending);
        await updateToken(tx.db, tx.merchant.id, tokenId, {
          progress: 'sending',
          rail_started_at: tx.wallClock.now().getTime(),
          updated_at: tx.clock.now().getTime(),
        });
      });
      return { pending: tokenId, reference: tokenId };
    },
    call: (reference) => acquirer.completePayerAction(reference, outcome),
    finish: (reference, result) => settleBinding(ctx, reference, result),
  });
}

/**
 * A binding still pending when its time is up: a challenge nobody answered fails as abandoned; a binding whose
 * acquirer answer was lost (and that recovery has not settled yet) is resolved with the acquirer, which cancels
 * it if it never arrived, and a challenge it had reached is abandoned.
 */
export async function expireBinding(ctx: Context, payload: { tokenId: string }): Promise<void> {
  const row = await findTokenById(ctx.db, ctx.merchant.id, payload.tokenId);
  if (!row) return;
  // A bound card's verification hold is voided again (a no-op if it was): a void that failed earlier is retried
  // by this job's own retries.
  if (row.state === 'success' && row.token_type === 'CreditCard') return releaseVerification(ctx, row);
  if (row.state !== 'pending' || row.deleted_at !== null) return;
  if (row.progress === 'awaiting_payer') {
    await completeBinding(ctx, row.id, 'abandoned', { expiring: true }).catch((error: unknown) => {
      if (!isAppError(error, TOKEN_ERRORS.paymentTokenNotPending, TOKEN_ERRORS.paymentTokenNotFound)) throw error;
    });
    return;
  }
  let result = await resolveBinding(ctx, row);
  if (result.status === 'awaiting_payer')
    result = await acquirerOf(ctx.rails).completePayerAction(row.bind_reference, 'abandoned');
  await settleBinding(ctx, row.id, result);
}

/**
 * The expiry given up on: a binding still waiting for its cardholder fails as abandoned, recorded without waiting for
 * the acquirer, which is told once this has committed (best effort, as when a pending token is deleted). A binding
 * whose acquirer call is in flight is recovery's to end; a bound card whose verification hold could not be voided
 * keeps it until it lapses at the issuer.
 */
export async function abandonBinding(ctx: Context, { tokenId }: { tokenId: string }): Promise<void> {
  const row = await findTokenById(ctx.db, ctx.merchant.id, tokenId, true);
  if (row?.state !== 'pending' || row.deleted_at !== null || row.progress !== 'awaiting_payer') return;
  await settleBinding(ctx, row.id, {
    status: 'declined',
    responseCode: '05',
    rrn: '',
    responseMessage:
      row.token_type === 'CreditCard'
        ? '3-D Secure challenge abandoned: not completed in time'
        : 'The wallet agreement expired: the payer did not agree in time',
  });
  ctx.afterCommit?.(
    () =>
      void acquirerOf(ctx.rails)
        .completePayerAction(row.bind_reference, 'abandoned')
        .catch((error: unknown) => {
          ctx.log.warn(
            { err: error, payment_token_id: row.id },
            'could not abandon the challenge of a binding given up on',
          );
        }),
  );
}

/** What the acquirer did with a binding's operation (it cancels one that never arrived, so that this is final). */
function resolveBinding(ctx: Context, row: TokenRow): Promise<AcquirerResult> {
  return acquirerOf(ctx.rails).resolve({
    kind: 'authorize',
    reference: row.bind_reference,
    merchantId: ctx.merchant.id,
    amount: oneUnit(currencyOf(row.billing_currency)),
    currency: row.billing_currency,
  });
}

/**
 * Bindings as operations on the acquirer: one whose call began and whose answer was never recorded (a crash, a
 * lost answer) is settled with what the acquirer says, as the request would have (a challenge it reached waits
 * for the cardholder again, until its expiry job).
 */
export const BINDING_OPERATIONS: RailOperationKind<Context> = {
  name: 'payment_tokens.bindings',
  interrupted: interruptedBindings,
  async recover(ctx, tokenId) {
    const row = await findTokenById(ctx.db, ctx.merchant.id, tokenId);
    if (row?.progress !== 'sending') return;
    await settleBinding(ctx, row.id, await resolveBinding(ctx, row));
  },
};
