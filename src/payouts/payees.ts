import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import type { Page } from '../platform/query/filters.js';
import { PAYOUT_ERRORS } from './errors.js';
import { checkNickname, type PayeeInput, readContact, readPayeeAccount } from './payee-rules.js';
import {
  findPayee,
  insertPayee,
  listPayees,
  markPayeeDeleted,
  type PayeeRow,
  payeeHasPayoutInFlight,
} from './store.js';

export type { PayeeRow };

/** Registers a payee under the rules of its transfer method (payee-rules.ts). */
export async function createPayee(ctx: Context, input: PayeeInput): Promise<PayeeRow> {
  const account = readPayeeAccount(input.payout_account);
  const contact = readContact(input);
  const now = ctx.clock.now().getTime();
  const row: PayeeRow = {
    id: ctx.ids.sortable(now),
    merchant_id: ctx.merchant.id,
    type: input.type,
    nickname: checkNickname(input.nickname),
    ...contact,
    ...account,
    app_id: ctx.actor.kind === 'app' ? ctx.actor.appId : null,
    created_at: now,
    deleted_at: null,
  };
  return inTransaction(
    ctx,
    async (tx) => {
      await insertPayee(tx.db, row);
      return row;
    },
    { completesRequest: true },
  );
}

export async function getPayee(ctx: Context, id: string): Promise<PayeeRow> {
  return lookUpPayee(ctx, id, false);
}

export async function listMerchantPayees(ctx: Context, page: Page): Promise<{ rows: PayeeRow[]; total: number }> {
  return listPayees(ctx.db, ctx.merchant.id, page);
}

/** Deletes a payee, unless a payout to it is in flight (approval or bank not done with it). */
export async function deletePayee(ctx: Context, id: string): Promise<PayeeRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const payee = await lookUpPayee(tx, id, true);
      if (await payeeHasPayoutInFlight(tx.db, tx.merchant.id, payee.id)) throw new AppError(PAYOUT_ERRORS.payeeInUse);
      await markPayeeDeleted(tx.db, tx.merchant.id, payee.id, tx.clock.now().getTime());
      return payee;
    },
    { completesRequest: true },
  );
}

/** The merchant's payee of this id; another merchant's, a deleted one, or a name that is no id at all is not found. */
export async function lookUpPayee(ctx: Context, id: string, lock: boolean): Promise<PayeeRow> {
  // Ids are uuids: anything else names nothing (and never reaches a query: PostgreSQL text cannot hold U+0000).
  const payee = isUuid(id) ? await findPayee(ctx.db, ctx.merchant.id, id, lock) : undefined;
  if (!payee) throw new AppError(PAYOUT_ERRORS.payeeNotFound);
  return payee;
}
