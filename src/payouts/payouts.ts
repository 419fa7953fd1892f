import type { Static } from 'typebox';
import { type Actor, type Context, inTransaction } from '../context/context.js';
import { AppError, invalid } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { readCurrency, readMoney } from '../platform/money/money.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { bankOf } from '../rails/bank.js';
import { cancelJob } from '../scheduler/scheduler.js';
import { PAYOUT_ERRORS } from './errors.js';
import { emitPayoutEvent } from './events.js';
import { lookUpPayee } from './payees.js';
import { runJobKey, scheduleRun } from './running.js';
import type { CreatePayoutBody } from './schemas.js';
import {
  findPayout,
  findPayoutByReference,
  insertPayoutIfNew,
  listPayouts,
  PAYOUT_FILTERS,
  type PayoutRow,
  updatePayout,
} from './store.js';
import { approvalThreshold } from './thresholds.js';

export type { PayoutRow };
export type PayoutInput = Static<typeof CreatePayoutBody>['payout_request'];

const SCHEDULE_AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/**
 * Creates a payout request (operation 9). It waits for approval when its amount is at or above the merchant's
 * threshold for its currency; an approved one runs at `schedule_at` on the business clock, at once without one.
 * A reference names one payout: the same reference with the same content answers that payout again; with other
 * content it is refused. Concurrent creations with one reference end with one payout.
 */
export async function createPayout(ctx: Context, input: PayoutInput): Promise<PayoutRow> {
  bankOf(ctx.rails);
  const field = 'payout_request';
  const currency = readCurrency(input.currency, `${field}.currency`);
  const { minor: amount } = readMoney(input.amount, currency, `${field}.amount`);
  const callbackUrl = readCallbackUrl(ctx, input.callback_url);
  const now = ctx.clock.now().getTime();
  const scheduleAt = input.schedule_at === undefined ? null : readScheduleAt(input.schedule_at, `${field}.schedule_at`);
  const remark = input.remark === undefined || input.remark === '' ? null : input.remark;
  return inTransaction(
    ctx,
    async (tx) => {
      // A retry of a payout made before is answered as it stands, even once its schedule_at has passed or its payee is
      // gone.
      const before =
        input.reference_id === undefined
          ? undefined
          : await findPayoutByReference(tx.db, tx.merchant.id, input.reference_id);
      if (before) {
        if (
          before.payee_id === input.payee_id &&
          sameRequest(before, {
            currency: currency.code,
            amount,
            callback_url: callbackUrl,
            remark,
            schedule_at: scheduleAt,
          })
        )
          return before;
        throw new AppError(PAYOUT_ERRORS.payoutReferenceUsed);
      }
      if (scheduleAt !== null && scheduleAt <= now) {
        throw invalid(
          `${field}.schedule_at`,
          `must be in the future: the business clock is at ${new Date(now).toISOString()}`,
        );
      }
      // Locked: a payee being deleted at the same moment either gets this payout first (and refuses the deletion) or is
      // gone.
      const payee = await lookUpPayee(tx, input.payee_id, true);
      if (payee.currency !== currency.code)
        throw new AppError(
          PAYOUT_ERRORS.payoutCurrencyMismatch,
          `payout_request.currency must be ${payee.currency}, the payee account's currency.`,
        );
      const threshold = await approvalThreshold(tx, currency.code);
      const row: PayoutRow = {
        id: ctx.ids.sortable(now),
        merchant_id: tx.merchant.id,
        payee_id: payee.id,
        reference_id: input.reference_id ?? null,
        currency: currency.code,
        currency_exponent: currency.exponent,
        amount,
        callback_url: callbackUrl,
        remark,
        schedule_at: scheduleAt,
        schedule_status: amount >= threshold ? 'Pending Approval' : 'Approved',
        transfer_status: 'Initiated',
        status_reason: null,
        decided_by: null,
        decided_at: null,
        executed_at: null,
        bank_reference: null,
        bank_started_at: null,
        app_id: tx.actor.kind === 'app' ? tx.actor.appId : null,
        created_by: actorName(tx.actor),
        created_at: now,
        updated_at: now,
      };
      if (!(await insertPayoutIfNew(tx.db, row))) {
        const existing = await findPayoutByReference(tx.db, tx.merchant.id, row.reference_id!);
        if (existing && existing.payee_id === row.payee_id && sameRequest(existing, row)) return existing;
        throw new AppError(PAYOUT_ERRORS.payoutReferenceUsed);
      }
      await emitPayoutEvent(tx, 'payout.created', row);
      if (row.schedule_status === 'Approved') await scheduleRun(tx, row);
      return row;
    },
    { completesRequest: true },
  );
}

export async function getPayout(ctx: Context, id: string): Promise<PayoutRow> {
  return lookUpPayout(ctx, id, false);
}

export async function listMerchantPayouts(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ rows: PayoutRow[]; total: number }> {
  return listPayouts(ctx.db, ctx.merchant.id, parseFilters(query, PAYOUT_FILTERS), page);
}

/** Pending Approval → Approved: it runs at its schedule_at (at once when none, or when that time has passed). */
export async function approvePayout(ctx: Context, id: string): Promise<PayoutRow> {
  return decide(ctx, id, async (tx, payout) => {
    if (payout.schedule_status !== 'Pending Approval')
      throw new AppError(
        PAYOUT_ERRORS.payoutNotPendingApproval,
        `The payout request is ${payout.schedule_status}: only one pending approval can be approved.`,
      );
    const approved = await updatePayout(tx.db, tx.merchant.id, payout.id, {
      schedule_status: 'Approved',
      ...decision(tx),
    });
    await emitPayoutEvent(tx, 'payout.approved', approved);
    await scheduleRun(tx, approved);
    return approved;
  });
}

/** Pending Approval → Rejected, for good. */
export async function rejectPayout(ctx: Context, id: string, reason: string | undefined): Promise<PayoutRow> {
  return decide(ctx, id, async (tx, payout) => {
    if (payout.schedule_status !== 'Pending Approval')
      throw new AppError(
        PAYOUT_ERRORS.payoutNotPendingApproval,
        `The payout request is ${payout.schedule_status}: only one pending approval can be rejected.`,
      );
    const rejected = await updatePayout(tx.db, tx.merchant.id, payout.id, {
      schedule_status: 'Rejected',
      status_reason: reason ?? `Rejected by ${byWhom(tx.actor)}.`,
      ...decision(tx),
    });
    await emitPayoutEvent(tx, 'payout.rejected', rejected);
    return rejected;
  });
}

/** Pending Approval, or Approved and not yet run → Cancelled, for good; its run is dropped. */
export async function cancelPayout(ctx: Context, id: string, reason: string | undefined): Promise<PayoutRow> {
  return decide(ctx, id, async (tx, payout) => {
    const cancellable =
      payout.schedule_status === 'Pending Approval' ||
      (payout.schedule_status === 'Approved' && payout.executed_at === null);
    if (!cancellable) {
      const why = payout.schedule_status === 'Approved' ? 'it has run already' : `it is ${payout.schedule_status}`;
      throw new AppError(PAYOUT_ERRORS.payoutNotCancellable, `The payout request cannot be cancelled: ${why}.`);
    }
    const cancelled = await updatePayout(tx.db, tx.merchant.id, payout.id, {
      schedule_status: 'Cancelled',
      status_reason: reason ?? `Cancelled by ${byWhom(tx.actor)}.`,
      ...decision(tx),
    });
    await cancelJob(tx, runJobKey(payout.id));
    await emitPayoutEvent(tx, 'payout.cancelled', cancelled);
    return cancelled;
  });
}

async function decide(
  ctx: Context,
  id: string,
  move: (tx: Context, payout: PayoutRow) => Promise<PayoutRow>,
): Promise<PayoutRow> {
  return inTransaction(ctx, async (tx) => move(tx, await lookUpPayout(tx, id, true)), { completesRequest: true });
}

function decision(ctx: Context) {
  const now = ctx.clock.now().getTime();
  return { decided_by: actorName(ctx.actor), decided_at: now, updated_at: now };
}

export async function lookUpPayout(ctx: Context, id: string, lock: boolean): Promise<PayoutRow> {
  // Ids are uuids: anything else names nothing (and never reaches a query: PostgreSQL text cannot hold U+0000).
  const payout = isUuid(id) ? await findPayout(ctx.db, ctx.merchant.id, id, lock) : undefined;
  if (!payout) throw new AppError(PAYOUT_ERRORS.payoutNotFound);
  return payout;
}

/** A valid http(s) URL paygate may call, else the interface's 820007 (no scheme, another scheme, spaces, empty). */
function readCallbackUrl(ctx: Context, text: string): string {
  const field = 'payout_request.callback_url';
  if (text === '' || /\s/.test(text))
    throw new AppError(PAYOUT_ERRORS.payoutCallbackInvalid, `${field} must be an http or https URL, without spaces.`);
  try {
    return checkMerchantUrl(text, field, ctx.config.mode);
  } catch (error) {
    if (error instanceof AppError) throw new AppError(PAYOUT_ERRORS.payoutCallbackInvalid, error.message);
    throw error;
  }
}

/** Exactly YYYY-MM-DDTHH:mm:ssZ, a real instant (whether it is still to come is the caller's check). */
export function readScheduleAt(text: string, field: string): number {
  const match = SCHEDULE_AT.exec(text);
  if (!match)
    throw invalid(
      field,
      'must be YYYY-MM-DDTHH:mm:ssZ exactly: a T, seconds without fractions, UTC with the Z (no offset)',
    );
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(at);
  if (
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw invalid(field, 'is not a real date and time');
  }
  return at;
}

type Content = Pick<PayoutRow, 'currency' | 'amount' | 'callback_url' | 'remark' | 'schedule_at'>;

function sameRequest(a: Content, b: Content): boolean {
  return (
    a.currency === b.currency &&
    a.amount === b.amount &&
    a.callback_url === b.callback_url &&
    a.remark === b.remark &&
    a.schedule_at === b.schedule_at
  );
}

const byWhom = (actor: Actor): string => (actor.kind === 'operator' ? 'the operator' : 'the merchant');

export function actorName(actor: Actor): string {
  return actor.kind === 'app' ? `app:${actor.appId}` : actor.kind;
}
