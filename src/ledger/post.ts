import { type Context, inTransaction } from '../context/context.js';
import { currencyExponent } from '../platform/money/currencies.js';
import { feeOf } from '../platform/money/fees.js';
import type { Minor } from '../platform/money/money.js';
import { nextLocalHour } from '../platform/time-zone.js';
import { type Account, type EntryType, isMerchantAccount, type SourceType } from './accounts.js';
import { accountDeltas, addToAccounts, type EntryRecord, insertEntries, type Lines } from './store.js';

/**
 * The one way money moves (docs/ledger.md): a journal entry whose lines sum to zero, written in the transaction of
 * the change that causes it. The functions below are what each change posts; later capabilities (card holds,
 * payouts) add theirs here, on the same `post`.
 */
export interface Posting {
  type: EntryType;
  currency: string;
  source: { type: SourceType; id: string };
  /** What each account gains (negative: loses). Zero lines are left out. */
  lines: Partial<Record<Account, Minor>>;
  /** The fee the entry takes: its merchant lines then change the funds by amount less fee. */
  fee?: Minor;
  /** When the funds become available, if not now. */
  availableOn?: number | null;
}

/** A transaction of an order that moved money, as the ledger needs it. */
export interface MoneyMovement {
  transactionId: string;
  currency: string;
  amount: Minor;
  /** The payment method (credit_card, payment_token, a wallet): what the fee schedule is keyed by. */
  method: string;
}

/** What a transaction has still to add to its accounts, by transaction: added once, just before it commits. */
const pendingDeltas = new WeakMap<object, ReturnType<typeof accountDeltas>>();

/**
 * Posts entries; each (source, type) once: one posted before is left as it was. Answers the entries written. Their
 * lines are added to the accounts at the end of the transaction (one statement for all its postings), unless
 * `accountsNow` asks for it at once (to read the balance back in the same transaction).
 */
export async function post(
  ctx: Context,
  postings: Posting[],
  options: { accountsNow?: boolean } = {},
): Promise<EntryRecord[]> {
  if (!ctx.config.ledgerPosting || postings.length === 0) return [];
  const now = ctx.clock.now().getTime();
  const entries: EntryRecord[] = [];
  for (const posting of postings) {
    const id = ctx.ids.sortable(now);
    let total = 0;
    let funds = 0;
    const lines: Lines = {};
    for (const [account, amount] of Object.entries(posting.lines) as Array<[Account, Minor]>) {
      if (amount === 0) continue;
      if (!Number.isSafeInteger(amount))
        throw new RangeError(`ledger line ${account} of ${amount} is not whole minor units`);
      total += amount;
      if (isMerchantAccount(account)) funds += amount;
      lines[account] = amount;
    }
    // A programming error, never the caller's: an unbalanced entry is refused before anything is written.
    if (total !== 0)
      throw new Error(
        `ledger entry ${posting.type} of ${posting.source.type} ${posting.source.id} does not balance: ${total}`,
      );
    const fee = posting.fee ?? 0;
    entries.push({
      id,
      merchant_id: ctx.merchant.id,
      currency: posting.currency,
      currency_exponent: currencyExponent(posting.currency) ?? 2,
      type: posting.type,
      amount: funds + fee,
      fee,
      source_type: posting.source.type,
      source_id: posting.source.id,
      available_on: posting.availableOn === undefined ? now : posting.availableOn,
      lines: JSON.stringify(lines),
      created_at: now,
    });
  }
  return inTransaction(ctx, async (tx) => {
    const written = await insertEntries(tx.db, entries);
    const deltas = accountDeltas(tx.merchant.id, written, now);
    if (options.accountsNow || !tx.beforeCommit) {
      await addToAccounts(tx.db, deltas);
      return written;
    }
    let pending = pendingDeltas.get(tx.db);
    if (!pending) {
      const created: ReturnType<typeof accountDeltas> = new Map();
      pendingDeltas.set(tx.db, created);
      pending = created;
      tx.beforeCommit('ledger.accounts', () => addToAccounts(tx.db, created));
    }
    for (const [key, delta] of deltas) {
      const held = pending.get(key);
      if (held) held.balance += delta.balance;
      else pending.set(key, { ...delta });
    }
    return written;
  });
}

const transactionSource = (movement: MoneyMovement) => ({ type: 'transaction' as const, id: movement.transactionId });

/**
 * The merchant's next settlement after `now`, remembered per merchant: it stays the answer for every `now` from the
 * one it was worked out at until it passes (no settlement hour lies between), and working it out reads the time zone.
 */
const nextSettlements = new Map<string, { from: number; at: number; hour: number; zone: string }>();

function nextSettlement(ctx: Context, now: number): number {
  const { id, settlementHour: hour, timezone: zone } = ctx.merchant;
  const known = nextSettlements.get(id);
  if (known && known.hour === hour && known.zone === zone && known.from <= now && now < known.at) return known.at;
  const at = nextLocalHour(now, hour, zone);
  if (nextSettlements.size > 10_000) nextSettlements.clear();
  nextSettlements.set(id, { from: now, at, hour, zone });
  return at;
}

/** A sale or capture went through: `incoming` until it settles, available then (at the next settlement). */
export function postPayment(
  ctx: Context,
  movement: MoneyMovement,
  type: 'payment' | 'capture',
): Promise<EntryRecord[]> {
  if (!ctx.config.ledgerPosting) return Promise.resolve([]);
  const availableOn = nextSettlement(ctx, ctx.clock.now().getTime());
  return post(ctx, [
    {
      type,
      currency: movement.currency,
      source: transactionSource(movement),
      availableOn,
      lines: { incoming: movement.amount, acquirer_clearing: -movement.amount },
    },
  ]);
}

/** A sale or capture voided before it settled: what it brought in is taken back; nothing net. */
export function postVoid(ctx: Context, movement: MoneyMovement): Promise<EntryRecord[]> {
  return post(ctx, [
    {
      type: 'void',
      currency: movement.currency,
      source: transactionSource(movement),
      availableOn: null,
      lines: { incoming: -movement.amount, acquirer_clearing: movement.amount },
    },
  ]);
}

/** A refund (of a settled transaction: the only kind there is) comes out of `available`. */
export function postRefund(ctx: Context, movement: MoneyMovement): Promise<EntryRecord[]> {
  return post(ctx, [
    {
      type: 'refund',
      currency: movement.currency,
      source: transactionSource(movement),
      lines: { available: -movement.amount, acquirer_clearing: movement.amount },
    },
  ]);
}

/** The day's settlement of sales and captures: each moves from `incoming` to `available`, less its fee. */
export function postSettlements(ctx: Context, movements: MoneyMovement[]): Promise<EntryRecord[]> {
  return post(
    ctx,
    movements.map((movement) => {
      const fee = feeOf(ctx.config.fees, ctx.merchant.id, movement.method, movement.currency, movement.amount);
      return {
        type: 'settlement',
        currency: movement.currency,
        source: transactionSource(movement),
        fee,
        lines: { incoming: -movement.amount, available: movement.amount - fee, fees: fee },
      };
    }),
  );
}

/** Sandbox funding: money from the bank, available at once (and in the balance the top-up answers with). */
export function postTopUp(
  ctx: Context,
  topUp: { id: string; currency: string; amount: Minor },
): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'top_up',
        currency: topUp.currency,
        source: { type: 'top_up', id: topUp.id },
        lines: { available: topUp.amount, bank: -topUp.amount },
      },
    ],
    { accountsNow: true },
  );
}

/** What a step of an issued card's transaction moves, in the card's currency. */
export interface CardMovement {
  /** What names the entry: the card transaction itself for its first entry, else the step (increment, reversal...). */
  entryName: string;
  currency: string;
  amount: Minor;
}

const cardSource = (movement: CardMovement) => ({ type: 'card_transaction' as const, id: movement.entryName });

/** A card authorisation (or its increment) approved: that much of `available` is held, `on_hold`, until it clears. */
export function postCardHold(ctx: Context, movement: CardMovement): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'card_hold',
        currency: movement.currency,
        source: cardSource(movement),
        lines: { available: -movement.amount, on_hold: movement.amount },
      },
    ],
    { accountsNow: true },
  );
}

/** A hold let go (a reversal, an expiry): back to `available`. */
export function postCardRelease(ctx: Context, movement: CardMovement): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'card_release',
        currency: movement.currency,
        source: cardSource(movement),
        lines: { on_hold: -movement.amount, available: movement.amount },
      },
    ],
    { accountsNow: true },
  );
}

/**
 * An authorisation cleared: its hold (`held`) is let go and what settled (`amount`, converted) with its
 * foreign-exchange fee is paid to the card network and the platform, out of `available`.
 */
export function postCardSettlement(
  ctx: Context,
  movement: CardMovement & { held: Minor; fee: Minor },
): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'card_settlement',
        currency: movement.currency,
        source: cardSource(movement),
        fee: movement.fee,
        lines: {
          on_hold: -movement.held,
          available: movement.held - movement.amount - movement.fee,
          card_network: movement.amount,
          fees: movement.fee,
        },
      },
    ],
    { accountsNow: true },
  );
}

/** A cash withdrawal: paid out at once, with its fee, out of `available`. */
export function postCardWithdrawal(ctx: Context, movement: CardMovement & { fee: Minor }): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'card_withdrawal',
        currency: movement.currency,
        source: cardSource(movement),
        fee: movement.fee,
        lines: { available: -movement.amount - movement.fee, card_network: movement.amount, fees: movement.fee },
      },
    ],
    { accountsNow: true },
  );
}

/** A refund to the card (a credit from the card's merchant): back to `available`. */
export function postCardRefund(ctx: Context, movement: CardMovement): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type: 'card_refund',
        currency: movement.currency,
        source: cardSource(movement),
        lines: { available: movement.amount, card_network: -movement.amount },
      },
    ],
    { accountsNow: true },
  );
}

/** What a payout moves: its whole amount, in its currency, under its own id (each of its steps posts once). */
export interface PayoutMovement {
  payoutId: string;
  currency: string;
  amount: Minor;
}

const PAYOUT_LINES = {
  /** It runs: its amount leaves `available` for `reserved` until the bank settles or rejects it. */
  payout_reserve: (amount: Minor) => ({ available: -amount, reserved: amount }),
  /** The bank rejected it (Terminated): the reservation goes back to `available`. */
  payout_release: (amount: Minor) => ({ reserved: -amount, available: amount }),
  /** The bank paid it (Settled): the reservation leaves for the bank. */
  payout_settlement: (amount: Minor) => ({ reserved: -amount, bank: amount }),
  /** The payee's bank returned it (Reversed): the money is on its way back, reserved until it arrives. */
  payout_return: (amount: Minor) => ({ bank: -amount, reserved: amount }),
  /** The returned money arrived (Refunded): `available` again. */
  payout_refund: (amount: Minor) => ({ reserved: -amount, available: amount }),
} as const;

export type PayoutEntryType = keyof typeof PAYOUT_LINES;

/** A step of a payout, posted under the payout's id (once per step: the ledger keeps each source's type once). */
export function postPayoutStep(ctx: Context, type: PayoutEntryType, movement: PayoutMovement): Promise<EntryRecord[]> {
  return post(
    ctx,
    [
      {
        type,
        currency: movement.currency,
        source: { type: 'payout_request', id: movement.payoutId },
        lines: PAYOUT_LINES[type](movement.amount),
      },
    ],
    { accountsNow: true },
  );
}
