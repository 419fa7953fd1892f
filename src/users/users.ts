import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { isUniqueViolation } from '../platform/database/database-errors.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { localDate } from '../platform/time-zone.js';
import { identityOf } from '../rails/identity.js';
import { USER_ERRORS } from './errors.js';
import { emitUserEvent } from './events.js';
import { checkDateOfBirth, checkNamed, checkNotBlank, readCountry } from './rules.js';
import type { CreateUserBody, UpdateUserBody } from './schemas.js';
import {
  findUser,
  findUserById,
  insertUserIfUnique,
  type UserPatch,
  type UserRow,
  updateUser,
  usersHolding,
} from './store.js';
import { runVerification } from './verification.js';

export type { UserRow };
export type UserInput = Static<typeof CreateUserBody>['user'];
export type UserChange = Static<typeof UpdateUserBody>['user'];

/** What the identity check looks at: a change of any of these sends the user to it again. */
const IDENTITY_FIELDS = [
  'first_name',
  'last_name',
  'date_of_birth',
  'document_type',
  'document_number',
  'issuing_country',
] as const;

/**
 * Registers a user (operation 2) and sends its identity to the identity rail. Unique per merchant three ways, each
 * refused with the interface's code (reference 300013, phone 30014, document 300008, checked in that order);
 * concurrent creations of one user, from any process, end with one user and the others refused.
 */
export async function createUser(ctx: Context, input: UserInput): Promise<UserRow> {
  identityOf(ctx.rails);
  const now = ctx.clock.now().getTime();
  const values = readUser(ctx, input, 'user');
  const id = ctx.ids.uuid();
  const row: UserRow = {
    id,
    merchant_id: ctx.merchant.id,
    ...values,
    verification_status: 'pending',
    rejection_reason: null,
    verification_reference: ctx.ids.uuid(),
    verification_started_at: ctx.wallClock.now().getTime(),
    app_id: ctx.actor.kind === 'app' ? ctx.actor.appId : null,
    created_at: now,
    updated_at: now,
  };
  const created = await inTransaction(ctx, async (tx) => {
    if (!(await insertUserIfUnique(tx.db, row))) throw refusalFor(await usersHolding(tx.db, tx.merchant.id, row));
    await emitUserEvent(tx, 'user.created', row);
    return row;
  });
  // The reply is stored (for an Idempotency-Key) with the verification's answer.
  return runVerification(ctx, created);
}

/** Edits a user: what is sent replaces the stored value, under the rules and uniqueness codes of creation. */
export async function editUser(ctx: Context, name: string, change: UserChange): Promise<UserRow> {
  try {
    return await editOnce(ctx, name, change);
  } catch (error) {
    // Another request took one of the unique values between our check and our write: its code, as a check finds it now.
    if (!isUniqueViolation(error)) throw error;
    return editOnce(ctx, name, change);
  }
}

async function editOnce(ctx: Context, name: string, change: UserChange): Promise<UserRow> {
  const { user, reverify } = await inTransaction(ctx, async (tx) => {
    const existing = await lookUp(tx, name, true);
    const merged = {
      ...pick(existing),
      ...Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)),
    } as UserInput;
    const values = readUser(tx, merged, 'user');
    const patch: UserPatch = { ...values, updated_at: tx.clock.now().getTime() };
    const reverify = IDENTITY_FIELDS.some((field) => values[field] !== existing[field]);
    if (reverify) {
      identityOf(tx.rails);
      Object.assign(patch, {
        verification_status: 'pending',
        rejection_reason: null,
        verification_reference: ctx.ids.uuid(),
        verification_started_at: tx.wallClock.now().getTime(),
      });
    }
    const taken = await usersHolding(tx.db, tx.merchant.id, values, existing.id);
    if (taken.reference || taken.phone || taken.document) throw refusalFor(taken);
    const updated = await updateUser(tx.db, tx.merchant.id, existing.id, patch);
    await emitUserEvent(tx, 'user.updated', updated);
    // With nothing to verify, this transaction completes the request; otherwise the verification's answer does.
    if (!reverify) await tx.outcome?.record(tx.db, updated);
    return { user: updated, reverify };
  });
  return reverify ? runVerification(ctx, user) : user;
}

export async function readUserByName(ctx: Context, name: string): Promise<UserRow> {
  return lookUp(ctx, name, false);
}

/** The merchant's user of this user_id, if there is one (another merchant's is not). */
export async function findUserByUserId(ctx: Context, userId: string): Promise<UserRow | undefined> {
  return isUuid(userId) ? findUserById(ctx.db, ctx.merchant.id, userId) : undefined;
}

/** A user by reference_id, or by user id; another merchant's is not found. */
async function lookUp(ctx: Context, name: string, lock: boolean): Promise<UserRow> {
  // No reference holds U+0000 (bodies holding it are refused), and PostgreSQL text cannot be compared with it.
  const user = name.includes('\u0000')
    ? undefined
    : await findUser(ctx.db, ctx.merchant.id, { reference: name, ...(isUuid(name) && { id: name }) }, lock);
  if (!user) throw new AppError(USER_ERRORS.userNotFound);
  return user;
}

function readUser(ctx: Context, input: UserInput, field: string) {
  checkNotBlank(input.reference_id, `${field}.reference_id`);
  checkNotBlank(input.document_number, `${field}.document_number`);
  const firstName = input.first_name?.trim() || null;
  const lastName = input.last_name?.trim() || null;
  checkNamed(firstName, lastName, field);
  checkDateOfBirth(
    input.date_of_birth,
    localDate(ctx.clock.now().getTime(), ctx.merchant.timezone),
    `${field}.date_of_birth`,
  );
  return {
    reference_id: input.reference_id,
    calling_code: input.calling_code,
    phone_number: input.phone_number,
    document_type: input.document_type,
    document_number: input.document_number.trim(),
    first_name: firstName,
    last_name: lastName,
    date_of_birth: input.date_of_birth,
    issuing_country: readCountry(input.issuing_country, `${field}.issuing_country`),
  };
}

function pick(row: UserRow): UserInput {
  return {
    reference_id: row.reference_id,
    calling_code: row.calling_code,
    phone_number: row.phone_number,
    document_type: row.document_type as UserInput['document_type'],
    document_number: row.document_number,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    issuing_country: row.issuing_country,
  };
}

function refusalFor(taken: { reference: boolean; phone: boolean; document: boolean }): AppError {
  if (taken.reference) return new AppError(USER_ERRORS.userReferenceUsed);
  if (taken.phone) return new AppError(USER_ERRORS.userPhoneUsed);
  if (taken.document) return new AppError(USER_ERRORS.userExists);
  // Inserted nothing yet holds none: a user made and gone in between cannot happen (users are never deleted).
  throw new Error('a user insert conflicted with no user');
}
