import type { Selectable, Updateable } from 'kysely';
import { type Db, preparedQuery } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { PaymentTokensTable } from './tables.js';

export type TokenRow = Selectable<PaymentTokensTable>;

export async function insertToken(db: Db, row: TokenRow): Promise<void> {
  await db.insertInto('payment_tokens').values(row).execute();
}

/** A token by its value, of this merchant (and customer, when named); deleted tokens are not found. */
export async function findToken(
  db: Db,
  merchantId: string,
  token: string,
  customerId?: string,
): Promise<TokenRow | undefined> {
  const found =
    customerId === undefined
      ? await tokenByValue(db, { merchantId, token })
      : await customerTokenByValue(db, { merchantId, token, customerId });
  return found.rows[0];
}

const tokenByValue = preparedQuery((db, p: { merchantId: string; token: string }) =>
  db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('token', '=', p.token)
    .where('deleted_at', 'is', null),
);
const customerTokenByValue = preparedQuery((db, p: { merchantId: string; token: string; customerId: string }) =>
  db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('token', '=', p.token)
    .where('deleted_at', 'is', null)
    .where('customer_id', '=', p.customerId),
);

export async function findTokenById(
  db: Db,
  merchantId: string,
  id: string,
  lock = false,
): Promise<TokenRow | undefined> {
  const query = db.selectFrom('payment_tokens').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** The binding a request with this Idempotency-Key made, while the key's record lasts. */
export async function findTokenByIdempotencyKey(
  db: Db,
  merchantId: string,
  key: string,
  wallNow: number,
): Promise<TokenRow | undefined> {
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('idempotency_expires_at', '>', wallNow)
    .executeTakeFirst();
}

/**
 * Bindings whose rail call began before `startedBefore` (wall time) and whose answer was never recorded. Across
 * all merchants: recovery is the platform's upkeep.
 */
export async function interruptedBindings(db: Db, startedBefore: number, limit: number): Promise<TokenRow[]> {
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('progress', '=', 'sending')
    .where('rail_started_at', '<', startedBefore)
    .orderBy('rail_started_at')
    .limit(limit)
    .execute();
}

/** A token by value, locked until the transaction ends (to make it the default, or to delete it). */
export async function lockToken(
  db: Db,
  merchantId: string,
  token: string,
  customerId: string,
): Promise<TokenRow | undefined> {
  return forUpdate(
    db,
    db
      .selectFrom('payment_tokens')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('token', '=', token)
      .where('customer_id', '=', customerId)
      .where('deleted_at', 'is', null),
  ).executeTakeFirst();
}

export async function customerTokens(db: Db, merchantId: string, customerId: string): Promise<TokenRow[]> {
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('customer_id', '=', customerId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateToken(
  db: Db,
  merchantId: string,
  id: string,
  change: Updateable<PaymentTokensTable>,
): Promise<TokenRow> {
  return db
    .updateTable('payment_tokens')
    .set(change)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
