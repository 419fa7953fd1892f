import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { postCardHold, postCardRefund, postCardWithdrawal } from '../ledger/index.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { readCurrency, readMoney } from '../platform/money/money.js';
import { localDate } from '../platform/time-zone.js';
import { requireCard } from './cards.js';
import { authorizationEndpointOf, decideAtEndpoint } from './decisions.js';
import { scheduleExpiry } from './expiry.js';
import { convert, rateOn, takesCurrency } from './fx.js';
import type { SettlementCurrency } from './program.js';
import { type DeclineReason, declineReason, termsOf } from './spend-rules.js';
import { addSpend } from './spending.js';
import type { CardRow } from './store.js';
import { emitCardTransactionEvent } from './transactions/events.js';
import type { SimulatedSpendBody } from './transactions/schemas.js';
import { type CardTransactionRow, insertCardTransaction, insertStep } from './transactions/store.js';

export type SpendInput = Static<typeof SimulatedSpendBody>;
export type NetworkOutcome = { row: CardTransactionRow; declineReason: DeclineReason | null };

/** An authorisation not settled within this much business time expires: its hold is released. */
export const AUTHORIZATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A purchase arrives from the card network: approved or declined by the issuer's rules (spend-rules.ts), then, if
 * the merchant has an authorisation endpoint, by its answer (which may approve less). Approved, the amount is held:
 * `available` to `on_hold`, and counted in the card's limit periods, in the transaction that records it; the
 * rules are checked again there, under the card's lock and the available account's.
 */
export async function authorizePurchase(ctx: Context, input: SpendInput): Promise<NetworkOutcome> {
  const { amount, currency } = readAmount(input);
  if (ctx.rails.faults) {
    // The sandbox lab's rule for the next authorisation of a card of the merchant's: declined with its reason,
    // whatever the rules would say (a purchase naming no card is refused first, and takes no use of the rule).
    const card = await requireCard(ctx, input.card_id);
    const fault = await ctx.rails.faults.take(ctx.merchant.id, 'card-authorisation');
    if (fault?.kind === 'decline')
      return recordDecline(ctx, card, input, amount, currency, fault.code as DeclineReason, 'sandbox_fault_rule');
  }
  let approved = amount;
  let decidedBy = 'rules';
  // Only a merchant with an endpoint pays for a first look before the locks: the endpoint is asked only about
  // purchases the rules would approve.
  const endpoint = takesCurrency(currency) ? await authorizationEndpointOf(ctx) : undefined;
  if (endpoint) {
    const card = await requireCard(ctx, input.card_id);
    const terms = termsOf(card, amount, currency);
    if ((await declineReason(ctx, card, currency, terms.local, terms.local + terms.fee, false)) === undefined) {
      const decision = await decideAtEndpoint(ctx, endpoint, card, { amount, currency, merchant: input.merchant });
      decidedBy = decision.by;
      if (decision.decision === 'decline')
        return recordDecline(ctx, card, input, amount, currency, 'declined_by_authorization_endpoint', decidedBy);
      approved = Math.min(decision.amount ?? amount, amount);
    }
  }
  return inTransaction(
    ctx,
    async (tx) => {
      const locked = await requireCard(tx, input.card_id, true);
      const terms = takesCurrency(currency) ? termsOf(locked, approved, currency) : { rate: '1', local: 0, fee: 0 };
      const reason = await declineReason(tx, locked, currency, terms.local, terms.local + terms.fee, true);
      if (reason) return declined(tx, locked, input, approved, currency, reason, decidedBy);
      const row = newRow(tx, locked, input, {
        type: 'Sales',
        status: 'Authorized',
        amount: approved,
        currency,
        terms,
        decidedBy,
      });
      row.held_amount = terms.local + terms.fee;
      row.expires_at = row.created_at + AUTHORIZATION_LIFETIME_MS;
      await insertCardTransaction(tx.db, row);
      // The transaction's first entry is named by the transaction itself; what follows, by its steps.
      await postCardHold(tx, { entryName: row.id, currency: row.local_currency, amount: row.held_amount });
      await addSpend(tx.db, tx.merchant.id, locked.id, row.spend_date, terms.local);
      await scheduleExpiry(tx, row.expires_at);
      await emitCardTransactionEvent(tx, 'card_transaction.authorized', row);
      return { row, declineReason: null };
    },
    { completesRequest: true },
  );
}

/** A cash withdrawal: the purchase's rules, then paid out at once (single message: no hold), with its fee. */
export async function withdrawCash(ctx: Context, input: SpendInput): Promise<NetworkOutcome> {
  const { card, amount, currency } = await readSpend(ctx, input);
  return inTransaction(
    ctx,
    async (tx) => {
      const locked = await requireCard(tx, card.id, true);
      const terms = takesCurrency(currency) ? termsOf(locked, amount, currency) : { rate: '1', local: 0, fee: 0 };
      const reason = await declineReason(tx, locked, currency, terms.local, terms.local + terms.fee, true);
      if (reason) return declined(tx, locked, input, amount, currency, reason, 'rules', 'Withdrawal');
      const row = newRow(tx, locked, input, {
        type: 'Withdrawal',
        status: 'Settled',
        amount,
        currency,
        terms,
        decidedBy: 'rules',
      });
      row.final_local_amount = terms.local + terms.fee;
      row.settle_rate = terms.rate;
      await insertCardTransaction(tx.db, row);
      await postCardWithdrawal(tx, {
        entryName: row.id,
        currency: row.local_currency,
        amount: terms.local,
        fee: terms.fee,
      });
      await addSpend(tx.db, tx.merchant.id, locked.id, row.spend_date, terms.local);
      await emitCardTransactionEvent(tx, 'card_transaction.withdrawn', row);
      return { row, declineReason: null };
    },
    { completesRequest: true },
  );
}

/**
 * A refund from a card's merchant (a credit): always accepted for a card the merchant has, whatever its status, as
 * networks force credits through; converted at the day's rate, with no fee. Limits are not given back: a refund is
 * no reversal.
 */
export async function creditRefund(ctx: Context, input: SpendInput): Promise<NetworkOutcome> {
  const { card, amount, currency } = await readSpend(ctx, input);
  if (!takesCurrency(currency))
    throw new AppError(PLATFORM_ERRORS.validationFailed, `currency ${currency} is not one the card program takes.`);
  return inTransaction(
    ctx,
    async (tx) => {
      const locked = await requireCard(tx, card.id, true);
      const local = locked.settlement_currency as SettlementCurrency;
      const rate = rateOn(currency, local);
      const terms = { rate, local: convert(amount, currency, local, rate), fee: 0 };
      const row = newRow(tx, locked, input, {
        type: 'Refund',
        status: 'Settled',
        amount,
        currency,
        terms,
        decidedBy: 'rules',
      });
      row.final_local_amount = terms.local;
      row.settle_rate = rate;
      await insertCardTransaction(tx.db, row);
      await postCardRefund(tx, { entryName: row.id, currency: row.local_currency, amount: terms.local });
      await emitCardTransactionEvent(tx, 'card_transaction.refunded', row);
      return { row, declineReason: null };
    },
    { completesRequest: true },
  );
}

async function readSpend(
  ctx: Context,
  input: SpendInput,
): Promise<{ card: CardRow; amount: number; currency: string }> {
  const card = await requireCard(ctx, input.card_id);
  return { card, ...readAmount(input) };
}

function readAmount(input: SpendInput): { amount: number; currency: string } {
  const currency = readCurrency(input.currency, 'currency');
  return { currency: currency.code, amount: readMoney(input.amount, currency, 'amount').minor };
}

async function recordDecline(
  ctx: Context,
  card: CardRow,
  input: SpendInput,
  amount: number,
  currency: string,
  reason: DeclineReason,
  decidedBy: string,
): Promise<NetworkOutcome> {
  return inTransaction(ctx, (tx) => declined(tx, card, input, amount, currency, reason, decidedBy), {
    completesRequest: true,
  });
}

async function declined(
  ctx: Context,
  card: CardRow,
  input: SpendInput,
  amount: number,
  currency: string,
  reason: DeclineReason,
  decidedBy: string,
  type = 'Sales',
): Promise<NetworkOutcome> {
  const terms = takesCurrency(currency) ? termsOf(card, amount, currency) : { rate: '0', local: 0, fee: 0 };
  const row = newRow(ctx, card, input, {
    type,
    status: 'Declined',
    amount,
    currency,
    terms: { ...terms, fee: 0 },
    decidedBy,
  });
  row.decline_reason = reason;
  await insertCardTransaction(ctx.db, row);
  await emitCardTransactionEvent(ctx, 'card_transaction.declined', row);
  return { row, declineReason: reason };
}

function newRow(
  ctx: Context,
  card: CardRow,
  input: SpendInput,
  fields: {
    type: string;
    status: string;
    amount: number;
    currency: string;
    terms: { rate: string; local: number; fee: number };
    decidedBy: string;
  },
): CardTransactionRow {
  const now = ctx.clock.now().getTime();
  return {
    id: ctx.ids.uuid(),
    merchant_id: ctx.merchant.id,
    card_id: card.id,
    user_id: card.user_id,
    type: fields.type,
    status: fields.status,
    decline_reason: null,
    transaction_currency: fields.currency,
    transaction_amount: fields.amount,
    local_currency: card.settlement_currency,
    local_amount: fields.terms.local,
    held_amount: 0,
    calculated_fee: fields.terms.fee,
    final_local_amount: null,
    auth_rate: fields.terms.rate,
    settle_rate: null,
    network_merchant_id: input.merchant.id,
    merchant_name: input.merchant.name,
    merchant_city: input.merchant.city,
    merchant_country: input.merchant.country.toUpperCase(),
    merchant_category: input.merchant.category,
    spend_date: localDate(now, ctx.merchant.timezone),
    decided_by: fields.decidedBy,
    expires_at: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Records a step of an authorisation after the first (an increment, a reversal, an expiry, the settlement); its id
 * names the ledger entry the step posts. The transaction's own first entry is named by the transaction's id.
 */
export async function step(
  ctx: Context,
  row: CardTransactionRow,
  kind: string,
  transactionAmount: number,
  localAmount: number,
): Promise<string> {
  const id = ctx.ids.uuid();
  await insertStep(ctx.db, {
    id,
    merchant_id: ctx.merchant.id,
    card_transaction_id: row.id,
    kind,
    transaction_amount: transactionAmount,
    local_amount: localAmount,
    created_at: ctx.clock.now().getTime(),
  });
  return id;
}
