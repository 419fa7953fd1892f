import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { IssuingUsersTable } from './tables.js';

export type UserRow = Selectable<IssuingUsersTable>;
export type UserPatch = Omit<Updateable<IssuingUsersTable>, 'id' | 'merchant_id' | 'created_at'>;

/** Inserts the user unless one of the merchant's already has its reference, phone or document: then nothing. */
export async function insertUserIfUnique(db: Db, row: UserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('issuing_users')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Which of the merchant's users (other than `exceptId`) holds each of the three unique values, if any. */
export async function usersHolding(
  db: Db,
  merchantId: string,
  values: Pick<
    UserRow,
    'reference_id' | 'calling_code' | 'phone_number' | 'document_type' | 'document_number' | 'issuing_country'
  >,
  exceptId?: string,
): Promise<{ reference: boolean; phone: boolean; document: boolean }> {
  let query = db
    .selectFrom('issuing_users')
    .select([
      'id',
      'reference_id',
      'calling_code',
      'phone_number',
      'document_type',
      'document_number',
      'issuing_country',
    ])
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([
        eb('reference_id', '=', values.reference_id),
        eb.and([eb('calling_code', '=', values.calling_code), eb('phone_number', '=', values.phone_number)]),
        eb.and([
          eb('document_type', '=', values.document_type),
          eb('document_number', '=', values.document_number),
          eb('issuing_country', '=', values.issuing_country),
        ]),
      ]),
    );
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  const rows = await query.execute();
  return {
    reference: rows.some((row) => row.reference_id === values.reference_id),
    phone: rows.some((row) => row.calling_code === values.calling_code && row.phone_number === values.phone_number),
    document: rows.some(
      (row) =>
        row.document_type === values.document_type &&
        row.document_number === values.document_number &&
        row.issuing_country === values.issuing_country,
    ),
  };
}

/** The merchant's user by reference, or else by id (when `id` is given: the name was a uuid). */
export async function findUser(
  db: Db,
  merchantId: string,
  name: { reference: string; id?: string },
  lock = false,
): Promise<UserRow | undefined> {
  const byReference = db
    .selectFrom('issuing_users')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference_id', '=', name.reference);
  const found = await (lock ? forUpdate(db, byReference) : byReference).executeTakeFirst();
  if (found || name.id === undefined) return found;
  const byId = db
    .selectFrom('issuing_users')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', name.id);
  return (lock ? forUpdate(db, byId) : byId).executeTakeFirst();
}

export async function findUserById(db: Db, merchantId: string, id: string, lock = false): Promise<UserRow | undefined> {
  const query = db.selectFrom('issuing_users').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function updateUser(db: Db, merchantId: string, id: string, patch: UserPatch): Promise<UserRow> {
  return db
    .updateTable('issuing_users')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Verifications of every merchant sent before `startedBefore` (wall time) and never answered. */
export async function interruptedVerifications(
  db: Db,
  startedBefore: number,
  limit: number,
): Promise<Array<{ id: string; merchant_id: string }>> {
  return db
    .selectFrom('issuing_users')
    .select(['id', 'merchant_id'])
    .where('verification_started_at', 'is not', null)
    .where('verification_started_at', '<', startedBefore)
    .orderBy('verification_started_at')
    .limit(limit)
    .execute();
}
