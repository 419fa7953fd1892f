import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { DashboardAuditTable, DashboardPeopleTable, DashboardSessionsTable } from './tables.js';

export type PersonRow = Selectable<DashboardPeopleTable>;
export type SessionRow = Selectable<DashboardSessionsTable>;
export type AuditRow = Selectable<DashboardAuditTable>;

export async function insertPerson(db: Db, row: Insertable<DashboardPeopleTable>): Promise<void> {
  await db.insertInto('dashboard_people').values(row).execute();
}

export async function findPersonByEmail(db: Db, email: string): Promise<PersonRow | undefined> {
  return db.selectFrom('dashboard_people').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findPerson(db: Db, merchantId: string, id: string): Promise<PersonRow | undefined> {
  return db
    .selectFrom('dashboard_people')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listPeopleOf(db: Db, merchantId: string): Promise<PersonRow[]> {
  return db.selectFrom('dashboard_people').selectAll().where('merchant_id', '=', merchantId).orderBy('email').execute();
}

/**
 * Locks the merchant's people until the transaction ends: a change that must keep an owner counts the owners under
 * it, so that two owners demoting or removing each other at once cannot both pass (PostgreSQL; SQLite has one writer).
 */
export async function lockPeopleOf(db: Db, merchantId: string): Promise<void> {
  await forUpdate(db, db.selectFrom('dashboard_people').select('id').where('merchant_id', '=', merchantId)).execute();
}

export async function countOwners(db: Db, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom('dashboard_people')
    .select((eb) => eb.fn.countAll<number | string>().as('owners'))
    .where('merchant_id', '=', merchantId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

export async function updatePerson(
  db: Db,
  merchantId: string,
  id: string,
  changes: { role?: string; password_hash?: string; updated_at: number },
): Promise<void> {
  await db
    .updateTable('dashboard_people')
    .set(changes)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

export async function deletePerson(db: Db, merchantId: string, id: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('person_id', '=', id).execute();
  await db.deleteFrom('dashboard_people').where('merchant_id', '=', merchantId).where('id', '=', id).execute();
}

// --- sessions ---------------------------------------------------------------------------------------------------

export async function insertSession(db: Db, row: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** The session and its person, found by the hash of the cookie's id. */
export async function findSession(
  db: Db,
  idHash: string,
): Promise<{ session: SessionRow; person: PersonRow } | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_people as p', 'p.id', 's.person_id')
    .select([
      's.id_hash',
      's.person_id',
      's.form_token',
      's.address',
      's.created_at as session_created_at',
      's.last_seen_at',
      'p.merchant_id',
      'p.email',
      'p.role',
      'p.password_hash',
      'p.created_at',
      'p.updated_at',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    session: {
      id_hash: row.id_hash,
      person_id: row.person_id,
      form_token: row.form_token,
      address: row.address,
      created_at: Number(row.session_created_at),
      last_seen_at: Number(row.last_seen_at),
    },
    person: {
      id: row.person_id,
      merchant_id: row.merchant_id,
      email: row.email,
      role: row.role,
      password_hash: row.password_hash,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    },
  };
}

export async function touchSession(db: Db, idHash: string, at: number): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteSessionsOf(db: Db, personId: string): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('person_id', '=', personId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteIdleSessions(db: Db, seenBefore: number): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('last_seen_at', '<', seenBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// --- sign-in failures -------------------------------------------------------------------------------------------

/**
 * Counts one attempt of `key` in a window of `windowMs` from its first attempt, and returns the count with it: one
 * statement, so that attempts at once (in one process or several) each see their own count, never a stale one.
 */
export async function countAttempt(db: Db, key: string, now: number, windowMs: number): Promise<number> {
  const expired = sql<boolean>`dashboard_sign_in_failures.window_started_at + ${windowMs} <= ${now}`;
  const row = await db
    .insertInto('dashboard_sign_in_failures')
    .values({ key, window_started_at: now, failures: 1 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql`case when ${expired} then 1 else dashboard_sign_in_failures.failures + 1 end`,
        window_started_at: sql`case when ${expired} then ${now} else dashboard_sign_in_failures.window_started_at end`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

/** Takes back an attempt that succeeded; a key left with none is forgotten. */
export async function uncountAttempt(db: Db, key: string): Promise<void> {
  await db
    .updateTable('dashboard_sign_in_failures')
    .set((eb) => ({ failures: eb('failures', '-', 1) }))
    .where('key', '=', key)
    .execute();
  await db.deleteFrom('dashboard_sign_in_failures').where('key', '=', key).where('failures', '<=', 0).execute();
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.deleteFrom('dashboard_sign_in_failures').where('key', '=', key).execute();
}

export async function deleteOldFailures(db: Db, startedBefore: number): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sign_in_failures')
    .where('window_started_at', '<', startedBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// --- audit ------------------------------------------------------------------------------------------------------

export async function insertAudit(db: Db, row: Insertable<DashboardAuditTable>): Promise<void> {
  await db.insertInto('dashboard_audit').values(row).execute();
}

/** The merchant's audit log, newest first, `limit` rows before the entry `before` (by id). */
export async function listAuditOf(
  db: Db,
  merchantId: string,
  page: { before?: string; limit: number },
): Promise<AuditRow[]> {
  let query = db.selectFrom('dashboard_audit').selectAll().where('merchant_id', '=', merchantId);
  if (page.before !== undefined) query = query.where('id', '<', page.before);
  return query.orderBy('id', 'desc').limit(page.limit).execute();
}
