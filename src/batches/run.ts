import { type Context, inTransaction } from '../context/context.js';
import { findCustomer } from '../customers/index.js';
import {
  type BegunItem,
  type ChargeOutcome,
  type Charger,
  captureAuthorization,
  chargeMany,
  chargeOutcome,
  findMerchantOrder,
  makeOrder,
  ORDER_ERRORS,
  type OrderView,
  refundable,
  refundTransaction,
  resolveTransaction,
  type TransactionOutcome,
  transactionsOfOrder,
  voidTransaction,
} from '../orders/index.js';
import { chargeableToken, TOKEN_ERRORS, type TokenRow } from '../payment-tokens/index.js';
import { AppError, isAppError } from '../platform/errors.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import type { PayloadOf } from '../scheduler/job-types.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { BATCH_COLUMNS } from './columns.js';
import { emitBatchEvent } from './events.js';
import { quoteCell } from './row-rules.js';
import { instructionOf, openCard, type StoredInstruction } from './rows.js';
import {
  type BatchRecord,
  type BatchRowRecord,
  countRows,
  countUnfinishedRows,
  findBatch,
  finishRow,
  startRows,
  unfinishedRows,
  updateBatch,
  updateRow,
} from './store.js';

/**
 * The runner: each job takes a chunk of a batch's rows (a range of row numbers) and runs them through the same
 * verbs as the API, as merchant-initiated transactions. Jobs are leased by the scheduler, so processes sharing a
 * database take different chunks.
 *
 * Exactly once: a row is keyed (batch, row number). A payment row's payment carries the uuid `batch:<batch>:<row>`,
 * written with its order and the row's move to `running` in one transaction before the acquirer is called; a
 * capture, void or refund row acts under that key as its Idempotency-Key. A row run again (a crash, a lease lost,
 * a second process) finds what it did under its key instead of doing it twice.
 */
export const RUN_JOB = 'batches.run';

export type RunPayload = PayloadOf<'batches.run'>;

/**
 * Rows begun together in one transaction, their payments sent once it has committed, their answers recorded in one
 * more.
 */
const ROWS_PER_ROUND = 100;
/** Payments of a round out at the acquirer at once. */
const PAYMENTS_AT_ONCE = 16;
/** Rounds of payment rows run at once. */
const ROUNDS_AT_ONCE = 4;
/** A payment whose answer is not known (the acquirer did not answer) is looked at again this much later. */
const LOOK_AGAIN_MS = 30_000;
/** How long a capture, void or refund row's key names what it did: far longer than a batch takes to run. */
const ROW_KEY_MS = 90 * 24 * 60 * 60 * 1000;

export async function runRows(ctx: Context, job: RunPayload): Promise<void> {
  const batch = await findBatch(ctx.db, ctx.merchant.id, job.batchId);
  if (!batch || batch.upload_status === 'failed') return;
  const tally: Tally = { unanswered: 0, resent: 0 };
  let failure: unknown;
  // A payment the acquirer never had (cut off by a crash, a fault) puts its row back to waiting, under a new key:
  // the chunk is gone through again until none is (a row is sent again at most RESENDS_PER_CHARGE times, orders' charge
  // round).
  for (let pass = 0; pass === 0 || tally.resent > 0; pass += 1) {
    tally.resent = 0;
    tally.unanswered = 0;
    let next = job.first;
    for (;;) {
      const rows = await unfinishedRows(
        ctx.db,
        ctx.merchant.id,
        batch.id,
        next,
        job.last,
        ROWS_PER_ROUND * ROUNDS_AT_ONCE,
      );
      if (rows.length === 0) break;
      next = rows.at(-1)!.row_number + 1;
      for (const part of runsOfOneKind(rows)) {
        try {
          if (part.payments) await runPayments(ctx, batch, part.rows, tally);
          else await runAdjustments(ctx, batch, part.rows, tally);
        } catch (error) {
          // The others go on; the job fails after, and is tried again for what is left.
          failure ??= error;
        }
      }
      await yieldToEventLoop();
    }
    if (failure !== undefined) break;
  }
  if (failure !== undefined) throw failure;
  if (tally.unanswered > 0) {
    const look: RunPayload = { ...job, look: job.look + 1 };
    const dueAt = ctx.clock.now().getTime() + LOOK_AGAIN_MS;
    await scheduleJob(ctx, {
      kind: RUN_JOB,
      merchantId: ctx.merchant.id,
      dueAt,
      payload: look,
      dedupeKey: `${RUN_JOB}:${batch.id}:${job.first}:${look.look}`,
    });
    return;
  }
  await inTransaction(ctx, (tx) => finishIfDone(tx, batch.id));
}

/** Consecutive rows that pay (payment, authorize), and consecutive rows that act on a transaction, in file order. */
function runsOfOneKind(rows: BatchRowRecord[]): Array<{ payments: boolean; rows: BatchRowRecord[] }> {
  const parts: Array<{ payments: boolean; rows: BatchRowRecord[] }> = [];
  for (const row of rows) {
    const payments = row.action === 'payment' || row.action === 'authorize';
    const last = parts.at(-1);
    if (last?.payments === payments) last.rows.push(row);
    else parts.push({ payments, rows: [row] });
  }
  return parts;
}

/**
 * When no row is left to finish, the batch has been processed (success): its event, once, whichever process
 * finishes last. In the caller's transaction.
 */
export async function finishIfDone(tx: Context, batchId: string): Promise<void> {
  if ((await countUnfinishedRows(tx.db, tx.merchant.id, batchId)) > 0) return;
  const now = tx.clock.now().getTime();
  if (
    !(await updateBatch(
      tx.db,
      tx.merchant.id,
      batchId,
      { upload_status: 'success', finished_at: now, updated_at: now },
      ['processing'],
    ))
  )
    return;
  const batch = await findBatch(tx.db, tx.merchant.id, batchId);
  await emitBatchEvent(tx, 'batch.completed', batch!);
}

// ---- payment and authorize rows ----

/** How a row ended, or (for a payment) how far it got. */
type Ending = {
  state: 'succeeded' | 'failed';
  column?: string;
  reason?: string;
  outcome: string;
  transactionId?: string;
  orderId?: string;
};
type PaymentInstruction = Extract<StoredInstruction, { action: 'payment' | 'authorize' }>;
/** How a chunk's rows stand after a pass: answers not known yet, and rows sent again. */
interface Tally {
  unanswered: number;
  resent: number;
}
/** A payment row as the round's first transaction left it: its charge begun, or its own ending (refused). */
interface PaymentRow {
  row: BatchRowRecord;
  ending?: Ending;
}
/** What the round's last transaction did with a row. */
type RowResult = 'unanswered' | 'resent' | 'ended';

/**
 * Payment rows, a round of {@link ROWS_PER_ROUND} at a time and {@link ROUNDS_AT_ONCE} rounds at once: on PostgreSQL
 * their round trips overlap; on SQLite one round's transaction runs while another's payments are out. Answers how
 * many are still unanswered.
 */
async function runPayments(ctx: Context, batch: BatchRecord, rows: BatchRowRecord[], tally: Tally): Promise<void> {
  const rounds = Array.from({ length: Math.ceil(rows.length / ROWS_PER_ROUND) }, (_, i) =>
    rows.slice(i * ROWS_PER_ROUND, (i + 1) * ROWS_PER_ROUND),
  );
  let failure: unknown;
  for (let i = 0; i < rounds.length; i += ROUNDS_AT_ONCE) {
    for (const outcome of await Promise.allSettled(
      rounds.slice(i, i + ROUNDS_AT_ONCE).map((round) => runRound(ctx, batch, round, tally)),
    )) {
      if (outcome.status === 'rejected') failure ??= outcome.reason;
    }
  }
  if (failure !== undefined) throw failure;
}

/** One round of payment rows: begun together, sent, finished together (orders' charge round). */
async function runRound(ctx: Context, batch: BatchRecord, rows: BatchRowRecord[], tally: Tally): Promise<void> {
  const results = await chargeMany<BatchRowRecord, PaymentRow, RowResult>(ctx, rows, {
    atOnce: PAYMENTS_AT_ONCE,
    async begin(tx, some, charger) {
      const out: Array<BegunItem<BatchRowRecord, PaymentRow>> = [];
      for (const row of await unfinishedRows(
        tx.db,
        tx.merchant.id,
        batch.id,
        some[0]!.row_number,
        some.at(-1)!.row_number,
        some.length,
        true,
      )) {
        out.push(await beginRow(tx, batch, row, charger));
      }
      // The rows whose payment is now recorded are running: one statement for the round.
      const started = out
        .filter((one) => one.charge?.kind === 'begun' && one.step.row.state === 'waiting')
        .map((one) => one.step.row.row_number);
      await startRows(tx.db, tx.merchant.id, batch.id, started, tx.clock.now().getTime());
      return out;
    },
    async record(tx, charged) {
      const counts = { successful: 0, failed: 0 };
      const results: RowResult[] = [];
      for (const { step, outcome } of charged) {
        const ending = step.ending ?? (outcome && transactionEnding(outcome));
        if (ending === undefined) {
          results.push('unanswered');
        } else if (outcome?.kind === 'unsent' && outcome.resend) {
          results.push((await resendRow(tx, batch, step.row, outcome.resend.count, ending)) ? 'resent' : 'ended');
        } else {
          // A row another runner ended meanwhile (its chunk run twice) is not counted again.
          if (await endRow(tx, batch, step.row, ending))
            counts[ending.state === 'succeeded' ? 'successful' : 'failed'] += 1;
          results.push('ended');
        }
      }
      await countRows(tx.db, tx.merchant.id, batch.id, counts, tx.clock.now().getTime());
      return results;
    },
  });
  let failure: unknown;
  for (const one of results) {
    if ('error' in one) failure ??= one.error;
    else if (one.result !== 'ended') tally[one.result] += 1;
  }
  if (failure !== undefined) throw failure;
}

/** The row goes back to waiting, to be sent again under a new key (its card is still sealed in it). */
async function resendRow(
  tx: Context,
  batch: BatchRecord,
  row: BatchRowRecord,
  attempt: number,
  ending: Ending,
): Promise<boolean> {
  const instruction = JSON.stringify({ ...(instructionOf(row) as PaymentInstruction), attempt });
  return finishRow(tx.db, tx.merchant.id, batch.id, row.row_number, {
    state: 'waiting',
    instruction,
    outcome: `Sent again: ${ending.reason}`,
    updated_at: tx.clock.now().getTime(),
  });
}

/** A row's key: `batch:<batch>:<row>`, and `.1`, `.2`... for a payment sent again after the acquirer never had it. */
const paymentUuid = (batchId: string, row: number, attempt = 0) =>
  `batch:${batchId}:${row}${attempt > 0 ? `.${attempt}` : ''}`;

/**
 * A payment row's first phase, in the round's transaction: the customer, the token and the order checked, the
 * order made (or found: a reference names one order, so a file uploaded twice pays nothing twice), the payment
 * recorded pending under the row's key, and the row `running`, its card erased. A row begun before finds its payment.
 */
async function beginRow(
  tx: Context,
  batch: BatchRecord,
  row: BatchRowRecord,
  charger: Charger,
): Promise<BegunItem<BatchRowRecord, PaymentRow>> {
  const ins = instructionOf(row) as PaymentInstruction;
  const uuid = paymentUuid(batch.id, row.row_number, ins.attempt ?? 0);
  // Begun before (a crash, a lease lost): its payment is recorded under the row's key; its card is gone.
  if (row.state === 'running') {
    const charge = await charger.resume(uuid);
    if (charge) return { item: row, step: { row }, charge };
  }
  const refuse = (column: keyof typeof BATCH_COLUMNS | '', reason: string): BegunItem<BatchRowRecord, PaymentRow> => ({
    item: row,
    step: {
      row,
      ending: { state: 'failed', column: column === '' ? '' : BATCH_COLUMNS[column], reason, outcome: reason },
    },
  });
  let customerId: string | null = null;
  if (ins.customerUuid !== null) {
    const customer = await findCustomer(tx, ins.customerUuid);
    if (!customer) return refuse('customer', `${quoteCell(ins.customerUuid)} is not a customer of yours.`);
    customerId = customer.id;
  }
  let token: TokenRow | undefined;
  if (ins.token !== null) {
    if (customerId === null)
      return refuse('customer', 'is empty: a payment with a token needs the customer the token belongs to.');
    try {
      token = await chargeableToken(tx, ins.token, customerId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return refuse(
        'token',
        error.definition === TOKEN_ERRORS.paymentTokenNotFound
          ? 'is not a token of this customer.'
          : `${error.message}`,
      );
    }
  }
  const card = openCard(row, tx.secrets);
  try {
    const found = await orderOf(tx, batch, ins, customerId);
    if (typeof found === 'string') return refuse('reference', found);
    const { order, made } = found;
    const charge = await charger.charge({
      orderNumber: order.number,
      uuid,
      capture: ins.action !== 'authorize',
      source:
        ins.token !== null
          ? { token: ins.token }
          : {
              card: {
                number: card!.number,
                exp_month: String(card!.expMonth).padStart(2, '0'),
                exp_year: String(card!.expYear),
                ...(card!.cvv !== undefined && { cvv: card!.cvv }),
              },
            },
      known: { ...(token && { token }), ...(made && { madeOrder: order }) },
    });
    if (charge.kind === 'refused') {
      if (charge.error.definition === ORDER_ERRORS.orderNothingToPay) return alreadyPaid(tx, row, order.id);
      throw charge.error;
    }
    return { item: row, step: { row: { ...row, order_id: order.id, transaction_id: charge.transaction.id } }, charge };
  } catch (error) {
    if (!(error instanceof AppError) || error.definition.status >= 500) throw error;
    return refuse('', error.message);
  }
}

/**
 * The order a payment row pays: made, or found by its reference (an order's natural key) when it has the row's
 * amount, currency and customer, however it was made. Another order of that reference refuses the row: the reason.
 */
async function orderOf(
  tx: Context,
  batch: BatchRecord,
  ins: PaymentInstruction,
  customerId: string | null,
): Promise<{ order: OrderView['order']; made: boolean } | string> {
  try {
    const { view, made } = await makeOrder(
      tx,
      {
        order: {
          reference_number: ins.reference,
          currency: ins.currency,
          charge_fee: formatAmount(ins.amount, exponentOf(ins.currency)),
        },
        customer_uuid: customerId,
      },
      {
        ...(batch.app_id !== null && { appId: batch.app_id }),
        ...(customerId !== null && { customerFound: customerId }),
      },
    );
    return { order: view.order, made };
  } catch (error) {
    if (!isAppError(error, ORDER_ERRORS.orderReferenceTaken)) throw error;
  }
  const existing = (await findMerchantOrder(tx, { referenceNumber: ins.reference }))!;
  if (existing.currency !== ins.currency || existing.initial_total !== ins.amount) {
    return `names order ${existing.number} of ${formatAmount(existing.initial_total, existing.currency_exponent)} ${existing.currency}; this row's amount is ${formatAmount(ins.amount, exponentOf(ins.currency))} ${ins.currency}: one reference names one order.`;
  }
  if (existing.customer_id !== customerId) return `names order ${existing.number}, which is another customer's.`;
  return { order: existing, made: false };
}

/** The order of a payment row is paid already (by an earlier batch, or by the API): nothing is charged again. */
async function alreadyPaid(
  tx: Context,
  row: BatchRowRecord,
  orderId: string,
): Promise<BegunItem<BatchRowRecord, PaymentRow>> {
  const paid = (await transactionsOfOrder(tx, orderId)).find(
    (t) => (t.type === 'Sales' || t.type === 'Authorization') && t.status === 'succeeded',
  );
  return {
    item: row,
    step: {
      row,
      ending: {
        state: 'succeeded',
        orderId,
        ...(paid && { transactionId: paid.id }),
        outcome: `The order was paid already${paid ? ` (transaction ${paid.id})` : ''}: nothing was charged again.`,
      },
    },
  };
}

/**
 * How a row that made a transaction ends, from what the transaction came to; undefined while its answer is not known.
 */
function transactionEnding(outcome: ChargeOutcome): Ending | undefined {
  if (outcome.kind === 'refused') return undefined;
  const { transaction } = outcome;
  const ids = { transactionId: transaction.id, orderId: transaction.orderId };
  switch (outcome.kind) {
    case 'succeeded': {
      const what = { Sales: 'Paid', Authorization: 'Authorised', Capture: 'Captured', Refund: 'Refunded' }[
        transaction.type
      ];
      return { state: 'succeeded', outcome: transaction.voided ? 'Voided' : what, ...ids };
    }
    case 'declined':
      return {
        state: 'failed',
        reason: `Declined: ${outcome.message}.`,
        outcome: `Declined: ${outcome.message}.`,
        ...ids,
      };
    case 'unsent': {
      // Failed without the card being asked (a fault, or a payment cut off by a crash and cancelled by recovery).
      const reason = `The acquirer failed the transaction: ${outcome.message}.`;
      return { state: 'failed', reason, outcome: reason, ...ids };
    }
    case 'awaiting_payer': {
      // A batch has no cardholder at hand: the row counts as failed, and the challenge is the merchant's to pass on.
      const reason =
        'The card asks for 3-D Secure: a batch row cannot pass it. The transaction waits for the cardholder (its 3ds.redirect_url) until it expires.';
      return { state: 'failed', reason, outcome: reason, ...ids };
    }
    case 'unanswered':
      return undefined;
  }
}

/**
 * Ends a row not ended yet (it may have been, by another runner of its chunk): whether this did. Its card is erased.
 */
async function endRow(tx: Context, batch: BatchRecord, row: BatchRowRecord, ending: Ending): Promise<boolean> {
  return finishRow(tx.db, tx.merchant.id, batch.id, row.row_number, {
    state: ending.state,
    card_sealed: null,
    outcome: ending.outcome,
    error_column: ending.state === 'failed' ? (ending.column ?? '') : null,
    error_reason: ending.state === 'failed' ? (ending.reason ?? ending.outcome) : null,
    order_id: ending.orderId ?? row.order_id,
    transaction_id: ending.transactionId ?? row.transaction_id,
    updated_at: tx.clock.now().getTime(),
  });
}

// ---- capture, void (cancellation) and refund rows ----

/** Rows acting on a transaction, one at a time through the API's own verbs. */
async function runAdjustments(ctx: Context, batch: BatchRecord, rows: BatchRowRecord[], tally: Tally): Promise<void> {
  for (const row of rows) {
    const key = { key: paymentUuid(batch.id, row.row_number), expiresAt: ctx.wallClock.now().getTime() + ROW_KEY_MS };
    const rowCtx: Context = { ...ctx, idempotency: key };
    const started = await inTransaction(ctx, async (tx) => {
      const [current] = await unfinishedRows(tx.db, tx.merchant.id, batch.id, row.row_number, row.row_number, 1, true);
      if (!current) return undefined;
      if (current.state === 'running') return instructionOf(current) as Adjustment;
      const ins = await settledAmount(tx, instructionOf(current) as Adjustment);
      await updateRow(tx.db, tx.merchant.id, batch.id, row.row_number, {
        state: 'running',
        instruction: JSON.stringify(ins),
        updated_at: tx.clock.now().getTime(),
      });
      return ins;
    });
    if (started === undefined) continue;
    const ending = await adjust(rowCtx, started);
    if (ending === undefined) {
      tally.unanswered += 1;
      continue;
    }
    await inTransaction(ctx, async (tx) => {
      if (!(await endRow(tx, batch, row, ending))) return;
      await countRows(
        tx.db,
        tx.merchant.id,
        batch.id,
        { successful: ending.state === 'succeeded' ? 1 : 0, failed: ending.state === 'failed' ? 1 : 0 },
        tx.clock.now().getTime(),
      );
    });
  }
}

type Adjustment = Exclude<StoredInstruction, { action: 'payment' | 'authorize' }>;

/**
 * A refund row without an amount refunds what is left: fixed as the row begins and kept with it, so that the row run
 * again asks for the same refund (its key names that refund), not for what is left after it.
 */
async function settledAmount(tx: Context, ins: Adjustment): Promise<Adjustment> {
  if (ins.action !== 'refund' || ins.amount !== null) return ins;
  try {
    const { order, transaction } = await resolveTransaction(
      tx,
      { transactionId: ins.originalTransactionId },
      { lock: false },
    );
    const { refusal, left } = refundable(transaction, await transactionsOfOrder(tx, order.id));
    return refusal === undefined ? { ...ins, amount: left, currency: order.currency } : ins;
  } catch (error) {
    // The row's own run refuses it with the reason.
    if (error instanceof AppError) return ins;
    throw error;
  }
}

async function adjust(ctx: Context, ins: Adjustment): Promise<Ending | undefined> {
  const target = {
    transactionId: ins.originalTransactionId,
    ...(ins.reference !== null && { order: { reference_number: ins.reference } }),
  };
  const refuse = (column: keyof typeof BATCH_COLUMNS | '', reason: string): Ending => ({
    state: 'failed',
    column: column === '' ? '' : BATCH_COLUMNS[column],
    reason,
    outcome: reason,
  });
  try {
    const { order, transaction } = await resolveTransaction(ctx, target, { lock: false });
    if (ins.action !== 'void' && ins.amount !== null && ins.currency !== order.currency) {
      return refuse('currency', `is ${ins.currency}; the original transaction is in ${order.currency}.`);
    }
    let outcome: TransactionOutcome;
    if (ins.action === 'void') {
      outcome = await voidTransaction(ctx, target);
      return outcome.transaction.void_is_pending === 1
        ? undefined
        : { state: 'succeeded', outcome: 'Voided', transactionId: transaction.id, orderId: order.id };
    }
    const amount = ins.amount === null ? undefined : formatAmount(ins.amount, order.currency_exponent);
    if (ins.action === 'capture') {
      outcome = await captureAuthorization(ctx, target, amount);
    } else {
      if (ins.amount === 0)
        return refuse('amount', 'is empty, and nothing is left to refund of the original transaction.');
      // No amount fixed: the transaction cannot be refunded, and the refund says why.
      outcome = await refundTransaction(ctx, target, {
        amount: amount ?? formatAmount(transaction.amount, order.currency_exponent),
      });
    }
    return transactionEnding(chargeOutcome(outcome.transaction));
  } catch (error) {
    if (!(error instanceof AppError) || error.definition.status >= 500) throw error;
    if (error.definition === ORDER_ERRORS.transactionNotFound)
      return refuse('originalTransaction', `${quoteCell(ins.originalTransactionId)} is not a transaction of yours.`);
    if (error.definition === ORDER_ERRORS.orderMismatch)
      return refuse('reference', "is not the original transaction's order.");
    return refuse('', error.message);
  }
}
