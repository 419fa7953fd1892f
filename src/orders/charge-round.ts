import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import type { AcquirerResult } from '../rails/acquirer.js';
import { callRail } from '../rails/operation.js';
import { paymentByUuid } from './lookup.js';
import { acquirerAnswer } from './payment-data.js';
import {
  type BegunPayment,
  beginPayment,
  finishPayment,
  type KnownToPayment,
  type OpenPaymentInput,
  type PaymentStart,
  sendPayment,
} from './payments.js';
import type { TransactionRow } from './transactions-store.js';

/**
 * One charge round: many merchant-initiated charges (a batch's payment rows, the plans due together) begun in one
 * transaction with the caller's own bookkeeping, sent once it has committed, `atOnce` out at the acquirer at a
 * time, and their answers recorded in one more transaction, again with the caller's bookkeeping. Two commits for a
 * hundred charges, where each alone takes two. A round whose first transaction fails wrote nothing: its items go
 * on one by one, so that only the failing one is left behind; answers that cannot be recorded together are
 * recorded one by one.
 *
 * Exactly once: a charge is named by its uuid, written with the pending payment; a round run again (a crash, a
 * lease lost) finds the payment made under it instead of charging twice.
 */

/** A charge a caller asks for: an order paid with a stored token or a card the merchant holds. */
export interface ChargeRequest {
  /** The order to pay, by number. */
  orderNumber: string;
  /** The charge's name for good. */
  uuid: string;
  source: { token: string } | { card: { number: string; exp_month: string; exp_year: string; cvv?: string } };
  /** An authorisation to capture later, or a sale. */
  capture: boolean;
  /** What the caller found or made in this same transaction: the token, the order (not looked up again). */
  known?: KnownToPayment;
}

/** The transaction a charge made, as its caller keeps it. */
export interface ChargedTransaction {
  id: string;
  orderId: string;
  type: TransactionRow['type'];
  voided: boolean;
}

/**
 * What a charge (or any transaction) came to. `unsent`: the acquirer failed it without asking the card (a fault, or
 * a charge cut off by a crash that recovery then cancelled there): nothing was charged, and `resend`, while resends
 * are left, names the charge to send in its place. `unanswered`: no answer yet, the payment pending for recovery.
 * `refused`: refused before anything was recorded (a deleted token, a voided order, nothing left to pay).
 */
export type ChargeOutcome =
  | { kind: 'succeeded'; transaction: ChargedTransaction }
  | { kind: 'declined'; message: string; transaction: ChargedTransaction }
  | { kind: 'unsent'; message: string; transaction: ChargedTransaction; resend?: Resend }
  | { kind: 'awaiting_payer'; transaction: ChargedTransaction }
  | { kind: 'unanswered'; transaction: ChargedTransaction }
  | { kind: 'refused'; error: AppError };

export type RefusedCharge = Extract<ChargeOutcome, { kind: 'refused' }>;

/**
 * A charge sent again after `unsent`: `<uuid>.<count>`, a new payment each time, at most {@link RESENDS_PER_CHARGE}.
 */
export interface Resend {
  uuid: string;
  count: number;
}

/**
 * How many times a charge is sent again after `unsent` before it counts as failed (an acquirer that keeps faulting).
 */
export const RESENDS_PER_CHARGE = 3;

/** A charge recorded pending in the round's first transaction (or found made before under its uuid). */
export class Charge {
  readonly kind = 'begun';
  readonly #start: PaymentStart;

  constructor(start: PaymentStart) {
    this.#start = start;
  }

  get transaction(): ChargedTransaction {
    return chargedTransaction('begun' in this.#start ? this.#start.begun.transaction : this.#start.before);
  }

  /** The payment to send, when it is new: one made before was sent already. */
  get toSend(): BegunPayment | undefined {
    return 'begun' in this.#start ? this.#start.begun : undefined;
  }

  finish(tx: Context, answer: AcquirerResult | undefined): Promise<ChargeOutcome> {
    const start = this.#start;
    if ('begun' in start && answer === undefined)
      return Promise.resolve({ kind: 'unanswered', transaction: this.transaction });
    return finishPayment(tx, start, answer).then(({ transaction }) => chargeOutcome(transaction));
  }
}

/** What the caller may do in the round's first transaction. */
export interface Charger {
  /** Records the charge pending (or finds the payment made under its uuid). A refusal writes nothing. */
  charge(request: ChargeRequest): Promise<Charge | RefusedCharge>;
  /** The charge begun under `uuid` before (a round run again after its first transaction committed), if any. */
  resume(uuid: string): Promise<Charge | undefined>;
}

/** An item as the round's first transaction left it: the caller's own step, and the charge it began, if any. */
export interface BegunItem<Item, Step> {
  item: Item;
  step: Step;
  charge?: Charge | RefusedCharge;
}

/** An item as the round's last transaction sees it: what its charge came to (none when it began none). */
export interface ChargedItem<Item, Step> {
  item: Item;
  step: Step;
  outcome?: ChargeOutcome;
}

export interface ChargeRound<Item, Step, Result> {
  /** Charges out at the acquirer at once. */
  atOnce: number;
  /** The first transaction: the caller's own writes for its items, and their charges; items left out are done. */
  begin(tx: Context, items: readonly Item[], charger: Charger): Promise<Array<BegunItem<Item, Step>>>;
  /** The last transaction: the caller records each outcome; a result per item, in order. */
  record(tx: Context, charged: ReadonlyArray<ChargedItem<Item, Step>>): Promise<Result[]>;
}

export type RoundResult<Item, Result> = { item: Item; result: Result } | { item: Item; error: unknown };

/** Runs one round over `items`: each item's result, or the error that left it behind. */
export async function chargeMany<Item, Step, Result>(
  ctx: Context,
  items: readonly Item[],
  round: ChargeRound<Item, Step, Result>,
): Promise<Array<RoundResult<Item, Result>>> {
  let begun: Array<BegunItem<Item, Step>>;
  try {
    begun = await inTransaction(ctx, (tx) => round.begin(tx, items, chargerIn(tx)));
  } catch (error) {
    if (items.length <= 1) return items.map((item) => ({ item, error }));
    const results: Array<RoundResult<Item, Result>> = [];
    for (const item of items) results.push(...(await chargeMany(ctx, [item], round)));
    return results;
  }
  const answers = await sendCharges(ctx, begun, round.atOnce);
  const recordAll = (tx: Context, some: Array<BegunItem<Item, Step>>) => recordCharges(tx, some, answers, round);
  try {
    const results = await inTransaction(ctx, (tx) => recordAll(tx, begun));
    return begun.map(({ item }, index) => ({ item, result: results[index]! }));
  } catch (error) {
    // The answers are known: each is recorded alone, so that one that cannot be recorded keeps no other from it.
    if (begun.length <= 1) return begun.map(({ item }) => ({ item, error }));
    const results: Array<RoundResult<Item, Result>> = [];
    for (const one of begun) {
      try {
        const [result] = await inTransaction(ctx, (tx) => recordAll(tx, [one]));
        results.push({ item: one.item, result: result! });
      } catch (alone) {
        results.push({ item: one.item, error: alone });
      }
    }
    return results;
  }
}

/** What a transaction came to, in the terms of {@link ChargeOutcome}: the acquirer's message stays inside orders. */
export function chargeOutcome(transaction: TransactionRow): ChargeOutcome {
  const charged = chargedTransaction(transaction);
  if (transaction.status === 'succeeded') return { kind: 'succeeded', transaction: charged };
  if (transaction.status === 'failed') {
    const answer = acquirerAnswer(transaction.payment_data);
    const message = answer.message ?? 'no message';
    if (answer.declinedByCard) return { kind: 'declined', message, transaction: charged };
    const resend = resendOf(transaction.payment_uuid);
    return { kind: 'unsent', message, transaction: charged, ...(resend && { resend }) };
  }
  if (transaction.payer_action !== null) return { kind: 'awaiting_payer', transaction: charged };
  return { kind: 'unanswered', transaction: charged };
}

function chargedTransaction(transaction: TransactionRow): ChargedTransaction {
  return {
    id: transaction.id,
    orderId: transaction.order_id,
    type: transaction.type,
    voided: transaction.voided === 1,
  };
}

/** The charge to send in place of an unsent one named `uuid`: `<base>.<count>`, while resends are left. */
function resendOf(uuid: string | null): Resend | undefined {
  if (uuid === null) return undefined;
  const [, base, sent] = /^(.*?)(?:\.(\d+))?$/.exec(uuid)!;
  const count = Number(sent ?? 0) + 1;
  return count > RESENDS_PER_CHARGE ? undefined : { uuid: `${base}.${count}`, count };
}

function chargerIn(tx: Context): Charger {
  return {
    async charge(request) {
      const payment: OpenPaymentInput['payment'] = {
        uuid: request.uuid,
        ...('token' in request.source
          ? {
              payment_token: {
                token: request.source.token,
                entry_type: 'mit',
                consume_mode: request.capture ? 'sales' : 'pre_authorize',
              },
            }
          : { credit_card: { ...request.source.card, consume_mode: request.capture ? 'sales' : 'pre_authorize' } }),
      };
      try {
        return new Charge(await beginPayment(tx, { order: { number: request.orderNumber }, payment }, request.known));
      } catch (error) {
        if (error instanceof AppError) return { kind: 'refused', error };
        throw error;
      }
    },
    async resume(uuid) {
      const payment = await paymentByUuid(tx, uuid);
      return payment && new Charge({ before: payment });
    },
  };
}

/** The round's new payments, sent once the transaction that recorded them has committed: the answers, by item. */
async function sendCharges<Item, Step>(
  ctx: Context,
  begun: Array<BegunItem<Item, Step>>,
  atOnce: number,
): Promise<Map<Charge, AcquirerResult | undefined>> {
  const sending = begun.flatMap(({ charge }) => (charge instanceof Charge && charge.toSend ? [charge] : []));
  const answers = new Map<Charge, AcquirerResult | undefined>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(atOnce, sending.length) }, async () => {
      while (next < sending.length) {
        const charge = sending[next++]!;
        const payment = charge.toSend!;
        // No answer: the payment stays pending for recovery, and the caller looks at it again later.
        answers.set(
          charge,
          await callRail(ctx, payment.transaction.id, () => sendPayment(ctx, payment)).catch(() => undefined),
        );
      }
    }),
  );
  return answers;
}

async function recordCharges<Item, Step, Result>(
  tx: Context,
  begun: Array<BegunItem<Item, Step>>,
  answers: Map<Charge, AcquirerResult | undefined>,
  round: ChargeRound<Item, Step, Result>,
): Promise<Result[]> {
  const charged: Array<ChargedItem<Item, Step>> = [];
  for (const { item, step, charge } of begun) {
    const outcome =
      charge === undefined
        ? undefined
        : charge instanceof Charge
          ? await charge.finish(tx, answers.get(charge))
          : charge;
    charged.push({ item, step, ...(outcome && { outcome }) });
  }
  return round.record(tx, charged);
}
