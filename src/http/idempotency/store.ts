import type { Selectable } from 'kysely';
import type { Db } from '../../platform/database/database.js';
import type { IdempotencyKeysTable } from '../../platform/database/schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

interface Key {
  merchantId: string;
  key: string;
}

interface HeldClaim extends Key {
  token: string;
}

/** The unique insert that claims a key; false when the key already has a row. */
export async function insertClaim(db: Db, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function findClaim(db: Db, { merchantId, key }: Key): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function deleteExpiredClaim(db: Db, { merchantId, key }: Key, now: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('expires_at', '<=', now)
    .execute();
}

/**
 * Takes over a claim whose holder did not finish in time (a crash, or a request stuck past the lock); false when
 * someone else got it first. The new token fences the old holder off.
 */
export async function retakeExpiredClaim(
  db: Db,
  { merchantId, key, token }: HeldClaim,
  now: number,
  lockedUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil, claim_token: token })
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'processing')
    .where('locked_until', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores the reply once; false when the claim is no longer this holder's (retaken) or already has a reply. */
export async function completeClaim(
  db: Db,
  { merchantId, key, token }: HeldClaim,
  statusCode: number,
  body: string,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', status_code: statusCode, response_body: body })
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('claim_token', '=', token)
    .where('state', '=', 'processing')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function releaseClaim(db: Db, { merchantId, key, token }: HeldClaim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('claim_token', '=', token)
    .where('state', '=', 'processing')
    .execute();
}

export async function purgeExpiredClaims(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Frees every claim still processing: only when the process that held them is known to be gone (SQLite start). */
export async function freeProcessingClaims(db: Db): Promise<number> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: 0 })
    .where('state', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
