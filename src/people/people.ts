import type { PlatformContext } from '../context/context.js';
import { inTransaction } from '../context/context.js';
import { isUniqueViolation } from '../platform/database/database-errors.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { isRole, ROLES, type Role } from '../platform/roles.js';
import { findMerchant } from '../platform/tenants.js';
import { type Acting, recordAction } from './audit.js';
import { PEOPLE_ERRORS } from './errors.js';
import { generatePassword, hashPassword } from './passwords.js';
import {
  countOwners,
  deletePerson,
  findPerson,
  findPersonByEmail,
  insertPerson,
  listPeopleOf,
  lockPeopleOf,
  type PersonRow,
  updatePerson,
} from './store.js';

export interface Person {
  id: string;
  merchantId: string;
  email: string;
  role: Role;
  createdAt: number;
}

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function toPerson(row: PersonRow): Person {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    role: row.role as Role,
    createdAt: Number(row.created_at),
  };
}

/** An address as it is kept and compared: trimmed and lower case. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Adds someone to a merchant's dashboard. Without a password one is generated and returned, to be shown once: only
 * its hash is kept.
 */
export async function addPerson(
  ctx: PlatformContext,
  input: { merchantId: string; email: string; role: string; password?: string },
  by: Acting,
): Promise<{ person: Person; password: string | undefined }> {
  const email = normalEmail(input.email);
  if (email.length > 254 || !EMAIL.test(email))
    throw new AppError(PEOPLE_ERRORS.personInvalid, 'The email address is not an address (name@example.com).');
  if (!isRole(input.role))
    throw new AppError(PEOPLE_ERRORS.personInvalid, `The role must be one of ${ROLES.join(', ')}.`);
  const role = input.role;
  if (input.password !== undefined) checkPassword(input.password);
  const password = input.password ?? generatePassword();
  const hash = await hashPassword(password);
  const now = ctx.wallClock.now().getTime();
  const row = {
    id: newId(),
    merchant_id: input.merchantId,
    email,
    role,
    password_hash: hash,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(ctx, async (tx) => {
    if (!(await findMerchant(tx.db, input.merchantId))) throw new AppError(PLATFORM_ERRORS.merchantNotFound);
    if (await findPersonByEmail(tx.db, email)) throw new AppError(PEOPLE_ERRORS.emailTaken);
    try {
      await insertPerson(tx.db, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError(PEOPLE_ERRORS.emailTaken);
      throw error;
    }
    await recordAction(tx, input.merchantId, by, { action: 'person.added', subject: `${email} (${role})` });
  });
  return { person: toPerson(row), password: input.password === undefined ? password : undefined };
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    throw new AppError(
      PEOPLE_ERRORS.personInvalid,
      `A password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`,
    );
}

export async function listPeople(ctx: PlatformContext, merchantId: string): Promise<Person[]> {
  return (await listPeopleOf(ctx.db, merchantId)).map(toPerson);
}

/** Gives a person another role; the merchant's last owner stays owner. */
export async function changeRole(
  ctx: PlatformContext,
  merchantId: string,
  personId: string,
  role: string,
  by: Acting,
): Promise<Person> {
  if (!isRole(role)) throw new AppError(PEOPLE_ERRORS.personInvalid, `The role must be one of ${ROLES.join(', ')}.`);
  return inTransaction(ctx, async (tx) => {
    await lockPeopleOf(tx.db, merchantId);
    const person = await findPerson(tx.db, merchantId, personId);
    if (!person) throw new AppError(PEOPLE_ERRORS.personNotFound);
    if (person.role === role) return toPerson(person);
    if (person.role === 'owner' && (await countOwners(tx.db, merchantId)) <= 1)
      throw new AppError(PEOPLE_ERRORS.lastOwner);
    await updatePerson(tx.db, merchantId, personId, { role, updated_at: tx.wallClock.now().getTime() });
    await recordAction(tx, merchantId, by, { action: 'person.role_changed', subject: `${person.email} (${role})` });
    return { ...toPerson(person), role };
  });
}

/** Removes a person and ends their sessions; the merchant's last owner stays. */
export async function removePerson(
  ctx: PlatformContext,
  merchantId: string,
  personId: string,
  by: Acting,
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await lockPeopleOf(tx.db, merchantId);
    const person = await findPerson(tx.db, merchantId, personId);
    if (!person) throw new AppError(PEOPLE_ERRORS.personNotFound);
    if (person.role === 'owner' && (await countOwners(tx.db, merchantId)) <= 1)
      throw new AppError(PEOPLE_ERRORS.lastOwner);
    await deletePerson(tx.db, merchantId, personId);
    await recordAction(tx, merchantId, by, { action: 'person.removed', subject: person.email });
  });
}
