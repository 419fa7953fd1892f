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
