import type { Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import type { PageLinksTable } from '../platform/database/schema.js';

export type PageLinkRow = Selectable<PageLinksTable>;

export async function insertPageLink(db: Db, row: PageLinkRow): Promise<void> {
  await db.insertInto('page_links').values(row).execute();
}

/** A link by its token's hash: the token is the capability, so no merchant id is known (or needed) before it. */
export async function findPageLink(db: Db, tokenHash: string): Promise<PageLinkRow | undefined> {
  return db.selectFrom('page_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function purgePageLinks(db: Db, expiredBefore: number): Promise<number> {
  const result = await db.deleteFrom('page_links').where('expires_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Takes one of the order's page card attempts, unless its declines have reached `limit`: counted before the
 * card is tried, so that payers sending many cards at once cannot pass the cap.
 */
export async function takePageCardAttempt(db: Db, merchantId: string, orderId: string, limit: number): Promise<boolean> {
  const result = await db.updateTable('orders').set((eb) => ({ page_declines: eb('page_declines', '+', 1) }))
    .where('merchant_id', '=', merchantId).where('id', '=', orderId).where('page_declines', '<', limit)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Gives back an attempt that was not declined (paid, or waiting for 3-D Secure). */
export async function returnPageCardAttempt(db: Db, merchantId: string, orderId: string): Promise<void> {
  await db.updateTable('orders').set((eb) => ({ page_declines: eb('page_declines', '-', 1) }))
    .where('merchant_id', '=', merchantId).where('id', '=', orderId).where('page_declines', '>', 0)
    .execute();
}

/** As `takePageCardAttempt`, for a card-binding page: counted on the link. */
export async function takeLinkCardAttempt(db: Db, tokenHash: string, limit: number): Promise<boolean> {
  const result = await db.updateTable('page_links').set((eb) => ({ declines: eb('declines', '+', 1) }))
    .where('token_hash', '=', tokenHash).where('declines', '<', limit).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function returnLinkCardAttempt(db: Db, tokenHash: string): Promise<void> {
  await db.updateTable('page_links').set((eb) => ({ declines: eb('declines', '-', 1) }))
    .where('token_hash', '=', tokenHash).where('declines', '>', 0).execute();
}
