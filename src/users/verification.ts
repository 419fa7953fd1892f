import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { type IdentityAnswer, identityOf } from '../rails/identity.js';
import type { RailOperationKind } from '../rails/operation.js';
import { USER_ERRORS } from './errors.js';
import { emitUserEvent } from './events.js';
import { findUserById, interruptedVerifications, type UserRow, updateUser } from './store.js';

/**
 * Sends a user's identity to the identity rail (its record, pending with the verification's reference, committed
 * first) and records the answer. No answer (the provider is down, the process stops) leaves the user pending with
 * the verification sent: recovery asks again. The user exists either way, so a failed call is not the caller's
 * failure: the reply shows the user pending. The request's reply (for an Idempotency-Key) is stored with the answer.
 */
export async function runVerification(ctx: Context, user: UserRow): Promise<UserRow> {
  const identity = identityOf(ctx.rails);
  await ctx.database.durable();
  let answer: IdentityAnswer;
  try {
    answer = await identity.verify({
      reference: user.verification_reference,
      merchantId: user.merchant_id,
      firstName: user.first_name,
      lastName: user.last_name,
      dateOfBirth: user.date_of_birth,
      documentType: user.document_type,
      documentNumber: user.document_number,
      issuingCountry: user.issuing_country,
    });
  } catch (error) {
    ctx.log.error(
      { err: error, rail_reference: user.verification_reference },
      'identity check failed; left for recovery',
    );
    return inTransaction(ctx, async () => user, { completesRequest: true });
  }
  return recordAnswer(ctx, user.id, user.verification_reference, answer);
}

/** Records the rail's answer, unless the user has been sent again since (a newer verification's answer counts). */
async function recordAnswer(ctx: Context, userId: string, reference: string, answer: IdentityAnswer): Promise<UserRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const user = (await findUserById(tx.db, tx.merchant.id, userId, true))!;
      if (user.verification_reference !== reference || user.verification_started_at === null) return user;
      const now = tx.clock.now().getTime();
      if (answer.status === 'pending')
        return updateUser(tx.db, tx.merchant.id, user.id, { verification_started_at: null, updated_at: now });
      return decide(tx, user, answer);
    },
    { completesRequest: true },
  );
}

/**
 * The sandbox's stand-in for a provider that finishes a review later: settles a pending user. Refused for a user
 * whose verification is not pending.
 */
export async function settlePendingUser(
  ctx: Context,
  userId: string,
  answer: Exclude<IdentityAnswer, { status: 'pending' }>,
): Promise<UserRow> {
  return inTransaction(
    ctx,
    async (tx) => {
      const user = isUuid(userId) ? await findUserById(tx.db, tx.merchant.id, userId, true) : undefined;
      if (!user) throw new AppError(USER_ERRORS.userNotFound);
      if (user.verification_status !== 'pending') throw new AppError(USER_ERRORS.userNotPending);
      return decide(tx, user, answer);
    },
    { completesRequest: true },
  );
}

async function decide(
  ctx: Context,
  user: UserRow,
  answer: Exclude<IdentityAnswer, { status: 'pending' }>,
): Promise<UserRow> {
  const decided = await updateUser(ctx.db, ctx.merchant.id, user.id, {
    verification_status: answer.status,
    rejection_reason: answer.status === 'rejected' ? answer.reason : null,
    verification_started_at: null,
    updated_at: ctx.clock.now().getTime(),
  });
  await emitUserEvent(ctx, answer.status === 'approved' ? 'user.approved' : 'user.rejected', decided);
  return decided;
}

/** Verifications sent whose answer a crash lost: asked again (the provider answers the same reference the same way). */
export const VERIFICATION_OPERATION: RailOperationKind<Context> = {
  name: 'identity verification',
  interrupted: interruptedVerifications,
  async recover(ctx, userId) {
    const user = await findUserById(ctx.db, ctx.merchant.id, userId);
    if (user?.verification_started_at == null) return;
    if ((await runVerification(ctx, user)).verification_started_at !== null)
      throw new Error('the identity provider did not answer');
  },
};
