import { type Context, inTransaction } from '../context/context.js';
import { lockAvailable, type PayoutEntryType, postPayoutStep } from '../ledger/index.js';
import { AppError } from '../platform/errors.js';
import { formatAmount } from '../platform/money/money.js';
import { type BankReport, type BankTransfer, type BankTransferStatus, bankOf } from '../rails/bank.js';
import { AnsweredBefore, type RailOperationKind, runRailOperation } from '../rails/operation.js';
import type { PayloadOf } from '../scheduler/job-types.js';
import { cancelJob, scheduleJob } from '../scheduler/scheduler.js';
import { PAYOUT_ERRORS } from './errors.js';
import { emitPayoutEvent, type PayoutAction } from './events.js';
import { findPayout, interruptedTransfers, type PayoutRow, payeeOfPayout, updatePayout } from './store.js';

export const RUN_JOB = 'payouts.run';
export const FOLLOW_JOB = 'payouts.follow';
export const REPORT_JOB = 'payouts.report';
const FOLLOW_RETRY_MS = 5 * 60_000;

/** The bank's reports a transfer can take from each status: any other is not applied (it would move money wrongly). */
const NEXT_STATUSES: Record<string, readonly BankTransferStatus[]> = {
  Initiated: ['Processing Transfer', 'Terminated'],
  'Processing Transfer': ['Settled', 'Terminated'],
  Settled: ['Reversed'],
  Reversed: ['Refunded'],
};

type FollowPayload = PayloadOf<'payouts.follow'>;
type ReportPayload = PayloadOf<'payouts.report'>;

export const runJobKey = (payoutId: string): string => `${RUN_JOB}:${payoutId}`;
const reportJobKey = (payoutId: string, from: string): string => `${REPORT_JOB}:${payoutId}:${from}`;

/** What each report of the bank does: the event it sends, and what it posts. */
const ON_REPORT: Record<BankTransferStatus, { event: PayoutAction; posts: PayoutEntryType | null }> = {
  'Processing Transfer': { event: 'payout.processing', posts: null },
  Settled: { event: 'payout.settled', posts: 'payout_settlement' },
  Terminated: { event: 'payout.terminated', posts: 'payout_release' },
  Reversed: { event: 'payout.reversed', posts: 'payout_return' },
  Refunded: { event: 'payout.refunded', posts: 'payout_refund' },
};

/** An approved payout runs at its schedule_at on the business clock, at once without one (or once it has passed). */
export async function scheduleRun(ctx: Context, payout: PayoutRow): Promise<void> {
  const now = ctx.clock.now().getTime();
  await scheduleJob(ctx, {
    kind: RUN_JOB,
    merchantId: ctx.merchant.id,
    dueAt: Math.max(payout.schedule_at ?? now, now),
    payload: { payoutId: payout.id },
    dedupeKey: runJobKey(payout.id),
  });
}

/**
 * Runs an approved payout: its amount leaves `available` for `reserved` (the account locked, so that payouts and
 * card holds at once never spend more than there is), or, when the balance is short, it fails and nothing moves.
 * Then the transfer goes to the bank, in two phases: the reservation and the bank's reference commit first, the bank
 * is called with no transaction open, and its answer is recorded after. Run twice, it does nothing the second time.
 */
export async function runPayout(ctx: Context, payoutId: string): Promise<PayoutRow> {
  const bank = bankOf(ctx.rails);
  return runRailOperation(ctx, {
    begin: () =>
      inTransaction(ctx, async (tx) => {
        const payout = await findPayout(tx.db, tx.merchant.id, payoutId, true);
        if (!payout) throw new AppError(PAYOUT_ERRORS.payoutNotFound);
        if (payout.schedule_status !== 'Approved' || payout.executed_at !== null)
          return new AnsweredBefore(() => answered(ctx, payout));
        const available = await lockAvailable(tx, payout.currency);
        const now = tx.clock.now().getTime();
        if (available < payout.amount) {
          const failed = await updatePayout(tx.db, tx.merchant.id, payout.id, {
            schedule_status: 'Failed',
            updated_at: now,
            status_reason: `Insufficient funds: ${formatAmount(available, payout.currency_exponent)} ${payout.currency} available, ${formatAmount(payout.amount, payout.currency_exponent)} needed.`,
          });
          await emitPayoutEvent(tx, 'payout.failed', failed);
          return new AnsweredBefore(() => answered(ctx, failed));
        }
        await postPayoutStep(tx, 'payout_reserve', movementOf(payout));
        const sending = await updatePayout(tx.db, tx.merchant.id, payout.id, {
          executed_at: now,
          bank_reference: ctx.ids.uuid(),
          bank_started_at: tx.wallClock.now().getTime(),
          updated_at: now,
        });
        return { pending: sending, reference: sending.bank_reference! };
      }),
    call: async (payout) => bank.send(await transferOf(ctx, payout)),
    finish: (payout, answer) =>
      recordSent(ctx, payout.id, answer.status, answer.status === 'Terminated' ? answer.reason : null),
  });
}

/**
 * The bank's answer to a send: Processing Transfer, or Terminated at once. Recorded once, with the reply of the
 * request that ran it, if one did (the sandbox's push, under its Idempotency-Key).
 */
async function recordSent(
  ctx: Context,
  payoutId: string,
  status: 'Processing Transfer' | 'Terminated',
  reason: string | null,
): Promise<PayoutRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const payout = (await findPayout(tx.db, tx.merchant.id, payoutId, true))!;
      if (payout.bank_started_at === null) return payout;
      return applyReport(tx, payout, status, reason, { bank_started_at: null });
    },
    { completesRequest: true },
  );
}

/** A payout as it stands, as the reply of the request that found it so (with its Idempotency-Key, stored). */
const answered = (ctx: Context, payout: PayoutRow): Promise<PayoutRow> =>
  inTransaction(ctx, async () => payout, { completesRequest: true });

/**
 * Records a report of the bank (the payout locked by the caller): the new transfer status, its entry, its event;
 * then asks for the bank's next report, in a job of its own (the bank is never called inside a transaction).
 */
async function applyReport(
  ctx: Context,
  payout: PayoutRow,
  status: BankTransferStatus,
  reason: string | null,
  extra: { bank_started_at?: null } = {},
): Promise<PayoutRow> {
  if (!(NEXT_STATUSES[payout.transfer_status] ?? []).includes(status)) {
    ctx.log.error(
      { payout_id: payout.id, from: payout.transfer_status, to: status },
      'the bank reported a move a transfer cannot make; not applied',
    );
    return Object.keys(extra).length === 0 ? payout : updatePayout(ctx.db, ctx.merchant.id, payout.id, extra);
  }
  const { event, posts } = ON_REPORT[status];
  if (posts) await postPayoutStep(ctx, posts, movementOf(payout));
  const now = ctx.clock.now().getTime();
  const updated = await updatePayout(ctx.db, ctx.merchant.id, payout.id, {
    transfer_status: status,
    ...(reason !== null && { status_reason: reason }),
    updated_at: now,
    ...extra,
  });
  await emitPayoutEvent(ctx, event, updated);
  await scheduleFollow(ctx, payout.id, status, 0, now);
  return updated;
}

function scheduleFollow(
  ctx: Context,
  payoutId: string,
  status: BankTransferStatus,
  attempt: number,
  dueAt: number,
): Promise<boolean> {
  return scheduleJob(ctx, {
    kind: FOLLOW_JOB,
    merchantId: ctx.merchant.id,
    dueAt,
    payload: { payoutId, status, attempt },
    dedupeKey: `${FOLLOW_JOB}:${payoutId}:${status}:${attempt}`,
  });
}

/**
 * Asks the bank what it reports next about a transfer in `status`, and schedules that report for when it is made.
 * A bank that does not answer is asked again later, without end (a job that failed for good would leave the amount
 * reserved with nothing left to move it): every FOLLOW_RETRY_MS of business time, each attempt a job of its own.
 */
export async function followTransfer(ctx: Context, { payoutId, status, attempt = 0 }: FollowPayload): Promise<void> {
  const payout = await findPayout(ctx.db, ctx.merchant.id, payoutId);
  if (!payout || payout.transfer_status !== status) return;
  let report: BankReport | null;
  try {
    report = await bankOf(ctx.rails).next(await transferOf(ctx, payout), status);
  } catch (error) {
    ctx.log.error(
      { err: error, payout_id: payoutId, attempt },
      'the bank did not say what comes next of a transfer; asking again later',
    );
    await scheduleFollow(ctx, payoutId, status, attempt + 1, ctx.clock.now().getTime() + FOLLOW_RETRY_MS);
    return;
  }
  if (!report) return;
  await inTransaction(ctx, (tx) =>
    scheduleJob(tx, {
      kind: REPORT_JOB,
      merchantId: tx.merchant.id,
      dueAt: payout.updated_at + report.afterMs,
      payload: { payoutId, from: status, to: report.status, reason: report.reason },
      dedupeKey: reportJobKey(payoutId, status),
    }),
  );
}

/** A report of the bank, when it falls due: applied unless the transfer has moved on since (advanced by hand). */
export async function receiveReport(ctx: Context, payload: ReportPayload): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const payout = await findPayout(tx.db, tx.merchant.id, payload.payoutId, true);
    if (!payout || payout.transfer_status !== payload.from) return;
    await applyReport(tx, payout, payload.to, payload.reason);
  });
}

/**
 * The sandbox's push: moves a payout to its next state now, without moving the clock. An approved payout that has
 * not run runs; a transfer takes the bank's next report at once (the report scheduled for later is dropped).
 * Refused when there is no next state: pending approval, ended, or the bank has nothing more to report.
 */
export async function advancePayout(ctx: Context, payout: PayoutRow): Promise<PayoutRow> {
  // Its scheduled run stays: run twice, a payout runs once, and a run that fails here is still run by the job.
  if (payout.schedule_status === 'Approved' && payout.executed_at === null) return runPayout(ctx, payout.id);
  const notAdvanceable = () =>
    new AppError(
      PAYOUT_ERRORS.payoutNotAdvanceable,
      `The payout request is ${payout.schedule_status}, ${payout.transfer_status}: it has no next state.`,
    );
  if (payout.executed_at === null || payout.bank_started_at !== null || payout.transfer_status === 'Initiated')
    throw notAdvanceable();
  const from = payout.transfer_status as BankTransferStatus;
  const report = await bankOf(ctx.rails).next(await transferOf(ctx, payout), from);
  if (!report) throw notAdvanceable();
  return inTransaction(
    ctx,
    async (tx) => {
      const current = (await findPayout(tx.db, tx.merchant.id, payout.id, true))!;
      if (current.transfer_status !== from) return current;
      await cancelJob(tx, reportJobKey(payout.id, from));
      return applyReport(tx, current, report.status, report.reason);
    },
    { completesRequest: true },
  );
}

async function transferOf(ctx: Context, payout: PayoutRow): Promise<BankTransfer> {
  const payee = await payeeOfPayout(ctx.db, ctx.merchant.id, payout.payee_id);
  return {
    reference: payout.bank_reference!,
    merchantId: payout.merchant_id,
    amount: payout.amount,
    currency: payout.currency,
    account: {
      transferMethod: payee.transfer_method,
      bankCode: payee.bank_code,
      accountNumber: payee.account_number,
      accountName: payee.account_name,
      mobile: payee.fps_mobile,
      email: payee.fps_email,
      fpsId: payee.fps_id,
    },
  };
}

const movementOf = (payout: PayoutRow) => ({ payoutId: payout.id, currency: payout.currency, amount: payout.amount });

/** A run given up on before anything moved: the payout fails with the reason, and no money is reserved. */
export async function failUnrunPayout(ctx: Context, { payoutId }: { payoutId: string }): Promise<void> {
  const payout = await findPayout(ctx.db, ctx.merchant.id, payoutId, true);
  // Once the reservation committed, the transfer is the bank's: recovery sends it again, and the bank's reports end it.
  if (payout?.schedule_status !== 'Approved' || payout.executed_at !== null) return;
  const failed = await updatePayout(ctx.db, ctx.merchant.id, payout.id, {
    schedule_status: 'Failed',
    updated_at: ctx.clock.now().getTime(),
    status_reason:
      'The payout could not be run: an internal fault of paygate, recorded for its operator. Nothing was reserved or sent.',
  });
  await emitPayoutEvent(ctx, 'payout.failed', failed);
}

/** A transfer is never given up on while the bank holds its money: the bank is asked again an hour later. */
const ASK_AGAIN_MS = 60 * 60_000;

/** Following a transfer given up on: asked again an hour later, as a new attempt. */
export async function followAgainLater(ctx: Context, { payoutId, status, attempt }: FollowPayload): Promise<void> {
  await scheduleFollow(ctx, payoutId, status, (attempt ?? 0) + 1, ctx.clock.now().getTime() + ASK_AGAIN_MS);
}

/** A report given up on: applied again an hour later, under the key the dead job set free. */
export async function reportAgainLater(ctx: Context, report: ReportPayload): Promise<void> {
  await scheduleJob(ctx, {
    kind: REPORT_JOB,
    merchantId: ctx.merchant.id,
    dueAt: ctx.clock.now().getTime() + ASK_AGAIN_MS,
    payload: report,
    dedupeKey: reportJobKey(report.payoutId, report.from),
  });
}

/** Transfers sent whose answer a crash lost: sent again under the same reference (the bank answers it the same way). */
export const BANK_TRANSFER_OPERATION: RailOperationKind<Context> = {
  name: 'payout transfer',
  interrupted: interruptedTransfers,
  async recover(ctx, payoutId) {
    const payout = await findPayout(ctx.db, ctx.merchant.id, payoutId);
    if (payout?.bank_started_at == null) return;
    const answer = await bankOf(ctx.rails).send(await transferOf(ctx, payout));
    await recordSent(ctx, payout.id, answer.status, answer.status === 'Terminated' ? answer.reason : null);
  },
};
