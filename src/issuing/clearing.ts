import { type Context, inTransaction } from '../context/context.js';
import { postCardHold, postCardRelease, postCardSettlement } from '../ledger/index.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { isUuid } from '../platform/ids.js';
import { readCurrency, readMoney } from '../platform/money/money.js';
import { localDate } from '../platform/time-zone.js';
import { requireCard } from './cards.js';
import { ISSUING_ERRORS } from './errors.js';
import { convert, fxFee, rateOn } from './fx.js';
import { type NetworkOutcome, step } from './network.js';
import type { SettlementCurrency } from './program.js';
import { declineReason } from './spend-rules.js';
import { addSpend } from './spending.js';
import { emitCardTransactionEvent } from './transactions/events.js';
import {
  type CardTransactionRow,
  dueAuthorizations,
  findCardTransaction,
  updateCardTransaction,
} from './transactions/store.js';

/**
 * What follows an authorisation on the network: it grows (incremental authorisation), shrinks or goes (reversal),
 * clears (settlement, for less or more than authorised), or expires. Each is one transaction that locks the card
 * first, then the authorisation, and posts what it moves: a hold taken or let go, or the settled amount paid.
 */

/** Raises an authorisation by `amount`, approved by the same rules as a purchase; declined, it stays as it was. */
export async function incrementAuthorization(
  ctx: Context,
  id: string,
  input: { amount: string | number },
): Promise<NetworkOutcome> {
  return inTransaction(
    ctx,
    async (tx) => {
      const { card, authorization } = await lockOpen(tx, id);
      const extra = readMoney(
        input.amount,
        readCurrency(authorization.transaction_currency, 'currency'),
        'amount',
      ).minor;
      const total = termsAt(card.settlement_currency, authorization, authorization.transaction_amount + extra);
      const reason = await declineReason(
        tx,
        card,
        authorization.transaction_currency,
        total.local - authorization.local_amount,
        total.hold - authorization.held_amount,
        true,
      );
      if (reason) return { row: authorization, declineReason: reason };
      const grown = await updateCardTransaction(tx.db, tx.merchant.id, authorization.id, {
        transaction_amount: authorization.transaction_amount + extra,
        local_amount: total.local,
        calculated_fee: total.fee,
        held_amount: total.hold,
        updated_at: tx.clock.now().getTime(),
      });
      const stepId = await step(tx, grown, 'increment', extra, total.hold - authorization.held_amount);
      await postCardHold(tx, {
        entryName: stepId,
        currency: grown.local_currency,
        amount: total.hold - authorization.held_amount,
      });
      await addSpend(
        tx.db,
        tx.merchant.id,
        card.id,
        authorization.spend_date,
        total.local - authorization.local_amount,
      );
      await emitCardTransactionEvent(tx, 'card_transaction.incremented', grown);
      return { row: grown, declineReason: null };
    },
    { completesRequest: true },
  );
}

/** Reverses `amount` of an authorisation (all of it when absent): that much of the hold and of the limits is freed. */
export async function reverseAuthorization(
  ctx: Context,
  id: string,
  input: { amount?: string | number | undefined },
): Promise<NetworkOutcome> {
  return inTransaction(
    ctx,
    async (tx) => {
      const { authorization } = await lockOpen(tx, id);
      const amount =
        input.amount === undefined
          ? authorization.transaction_amount
          : readMoney(input.amount, readCurrency(authorization.transaction_currency, 'currency'), 'amount').minor;
      if (amount > authorization.transaction_amount) {
        throw new AppError(PLATFORM_ERRORS.validationFailed, 'amount is more than the authorisation holds now.');
      }
      const row = await release(tx, authorization, authorization.transaction_amount - amount, 'reversal');
      await emitCardTransactionEvent(tx, 'card_transaction.reversed', row);
      return { row, declineReason: null };
    },
    { completesRequest: true },
  );
}

/**
 * Clears an authorisation: `amount` (the authorised amount when absent; less or more, as clearing may be) converted at
 * the settlement's rate, plus the foreign-exchange fee, is debited; the hold is let go whatever the amount. What
 * it settles counts in the limit periods of the authorisation in place of what it held.
 */
export async function settleAuthorization(
  ctx: Context,
  id: string,
  input: { amount?: string | number | undefined; currency?: string | undefined },
): Promise<NetworkOutcome> {
  return inTransaction(
    ctx,
    async (tx) => {
      const { card, authorization } = await lockOpen(tx, id);
      const currency = readCurrency(authorization.transaction_currency, 'currency');
      if (input.currency !== undefined && readCurrency(input.currency, 'currency').code !== currency.code) {
        throw new AppError(PLATFORM_ERRORS.validationFailed, `currency must be the authorisation's, ${currency.code}.`);
      }
      const amount =
        input.amount === undefined
          ? authorization.transaction_amount
          : readMoney(input.amount, currency, 'amount').minor;
      const local = card.settlement_currency as SettlementCurrency;
      const now = tx.clock.now().getTime();
      const rate = rateOn(
        currency.code,
        local,
        daysBetween(authorization.spend_date, localDate(now, tx.merchant.timezone)),
      );
      const settled = convert(amount, currency.code, local, rate);
      const fee = fxFee(settled, currency.code === local);
      const row = await updateCardTransaction(tx.db, tx.merchant.id, authorization.id, {
        status: 'Settled',
        transaction_amount: amount,
        calculated_fee: fee,
        final_local_amount: settled + fee,
        held_amount: 0,
        settle_rate: rate,
        expires_at: null,
        updated_at: now,
      });
      const stepId = await step(tx, row, 'settlement', amount, settled);
      await postCardSettlement(tx, {
        entryName: stepId,
        currency: row.local_currency,
        amount: settled,
        held: authorization.held_amount,
        fee,
      });
      await addSpend(tx.db, tx.merchant.id, card.id, authorization.spend_date, settled - authorization.local_amount);
      await emitCardTransactionEvent(tx, 'card_transaction.settled', row);
      return { row, declineReason: null };
    },
    { completesRequest: true },
  );
}

/**
 * The expiry job: every authorisation of the merchant still open 7 days of business time after it was made lets its
 * hold go, each in a transaction of its own (the card, then the authorisation, locked as every change locks them).
 */
const EXPIRY_PAGE = 200;

export async function expireAuthorizations(ctx: Context): Promise<void> {
  // A page at a time, the event loop let go between pages: a day of held purchases expiring at once holds
  // neither the memory nor the process. An expired one leaves the due set, so each page is the next. One that
  // cannot expire keeps no other from it: the rest expire, and the job then fails, to be tried again for that one.
  const failed = new Map<string, unknown>();
  for (;;) {
    const page = await dueAuthorizations(ctx.db, ctx.merchant.id, ctx.clock.now().getTime(), EXPIRY_PAGE + failed.size);
    const due = page.filter((authorization) => !failed.has(authorization.id));
    let ended = 0;
    for (const one of due) {
      try {
        await inTransaction(ctx, async (tx) => {
          await requireCard(tx, one.card_id, true);
          const authorization = (await findCardTransaction(tx.db, tx.merchant.id, one.id, true))!;
          if (
            authorization.status !== 'Authorized' ||
            authorization.expires_at === null ||
            authorization.expires_at > tx.clock.now().getTime()
          )
            return;
          const row = await release(tx, authorization, 0, 'expiry');
          await emitCardTransactionEvent(tx, 'card_transaction.expired', row);
        });
      } catch (error) {
        ctx.log.error(
          { err: error, card_transaction_id: one.id },
          'an authorisation could not expire; its job will try again',
        );
        failed.set(one.id, error);
      }
      ended += 1;
    }
    // Every due one seen (a page not full), or none left to try: done.
    if (page.length < EXPIRY_PAGE + failed.size || ended === 0) break;
    await yieldToEventLoop();
  }
  const [first] = failed.entries();
  if (first)
    throw new Error(
      `${failed.size} authorisation(s) could not expire, first ${first[0]}: ${first[1] instanceof Error ? first[1].message : String(first[1])}`,
    );
}

/** Lowers an authorisation to `remaining` (of the transaction currency); at 0 it is Reversed (or Expired). */
async function release(
  ctx: Context,
  authorization: CardTransactionRow,
  remaining: number,
  kind: 'reversal' | 'expiry',
): Promise<CardTransactionRow> {
  const left = termsAt(authorization.local_currency, authorization, remaining);
  const freed = authorization.held_amount - left.hold;
  const done = remaining === 0;
  const row = await updateCardTransaction(ctx.db, ctx.merchant.id, authorization.id, {
    transaction_amount: remaining,
    local_amount: left.local,
    calculated_fee: left.fee,
    held_amount: left.hold,
    ...(done && { status: kind === 'expiry' ? 'Expired' : 'Reversed', expires_at: null }),
    updated_at: ctx.clock.now().getTime(),
  });
  const stepId = await step(ctx, row, kind, authorization.transaction_amount - remaining, freed);
  await postCardRelease(ctx, { entryName: stepId, currency: row.local_currency, amount: freed });
  await addSpend(
    ctx.db,
    ctx.merchant.id,
    authorization.card_id,
    authorization.spend_date,
    left.local - authorization.local_amount,
  );
  return row;
}

/** The card and its open authorisation, locked in that order; anything but an open (Authorized) one is refused. */
async function lockOpen(
  ctx: Context,
  id: string,
): Promise<{ card: Awaited<ReturnType<typeof requireCard>>; authorization: CardTransactionRow }> {
  const found = isUuid(id) ? await findCardTransaction(ctx.db, ctx.merchant.id, id) : undefined;
  if (found?.type !== 'Sales' || found.status === 'Declined') throw new AppError(ISSUING_ERRORS.authorizationNotFound);
  const card = await requireCard(ctx, found.card_id, true);
  const authorization = (await findCardTransaction(ctx.db, ctx.merchant.id, id, true))!;
  if (authorization.status !== 'Authorized') {
    throw new AppError(
      ISSUING_ERRORS.authorizationClosed,
      `The authorisation is ${authorization.status.toLowerCase()}: nothing is left to change.`,
    );
  }
  return { card, authorization };
}

/** An authorisation's amount converted at its own rate, with its fee, and what it holds. */
function termsAt(
  localCurrency: string,
  authorization: CardTransactionRow,
  amount: number,
): { local: number; fee: number; hold: number } {
  const local = convert(amount, authorization.transaction_currency, localCurrency, authorization.auth_rate);
  const fee = fxFee(local, authorization.transaction_currency === localCurrency);
  return { local, fee, hold: local + fee };
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
