import type { Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import type { HostedLinksTable } from '../platform/database/schema.js';

export type HostedLinkRow = Selectable<HostedLinksTable>;

export async function insertHostedLink(db: Db, row: HostedLinkRow): Promise<void> {
  await db.insertInto('hosted_links').values(row).execute();
}

/** A link by its token's hash: the token is the capability, so no merchant id is known (or needed) before it. */
export async function findHostedLink(db: Db, tokenHash: string): Promise<HostedLinkRow | undefined> {
  return db.selectFrom('hosted_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function purgeHostedLinks(db: Db, expiredBefore: number): Promise<number> {
  const result = await db.deleteFrom('hosted_links').where('expires_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}
