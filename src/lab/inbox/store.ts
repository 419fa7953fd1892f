import type { Insertable, Selectable } from 'kysely';
import { type Db, isPostgres } from '../../platform/database/database.js';
import type { Condition, FilterCatalogue, Page } from '../../platform/query/filters.js';
import { conditionSql } from '../../platform/query/sql.js';
import type { LabCapturesTable } from '../tables.js';

export type CaptureRow = Selectable<LabCapturesTable>;

/** What a capture list can be filtered on (the API's query language: `filter[field][operator]=value`). */
export const CAPTURE_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'lab_captures.id' },
  'event.id': { type: 'text', column: 'lab_captures.event_id' },
  'event.type': { type: 'text', column: 'lab_captures.event_type' },
  objects: { type: 'text', column: 'lab_captures.objects' },
  url: { type: 'text', column: 'lab_captures.url' },
  signature_verified: { type: 'boolean', column: 'lab_captures.signature_verified' },
  'answer.status': { type: 'integer', column: 'lab_captures.answer_status' },
  created_at: { type: 'time', column: 'lab_captures.created_at' },
};

export async function insertCaptures(db: Db, rows: Insertable<LabCapturesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100) {
    await db
      .insertInto('lab_captures')
      .values(rows.slice(i, i + 100))
      .execute();
  }
}

/** Keeps the merchant's newest `max` captures, none made before `before` (wall time): the oldest go first. */
export async function pruneCaptures(db: Db, merchantId: string, max: number, before: number): Promise<void> {
  await db
    .deleteFrom('lab_captures')
    .where('merchant_id', '=', merchantId)
    .where('wall_created_at', '<', before)
    .execute();
  const oldestKept = await db
    .selectFrom('lab_captures')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .orderBy('id', 'desc')
    .offset(max - 1)
    .limit(1)
    .executeTakeFirst();
  if (oldestKept)
    await db.deleteFrom('lab_captures').where('merchant_id', '=', merchantId).where('id', '<', oldestKept.id).execute();
}

export async function listCaptures(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
  madeSince: number,
): Promise<{ rows: CaptureRow[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db
    .selectFrom('lab_captures')
    .where('lab_captures.merchant_id', '=', merchantId)
    .where('lab_captures.wall_created_at', '>=', madeSince);
  for (const condition of conditions) query = query.where(conditionSql(condition, CAPTURE_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('lab_captures.id', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function findCapture(db: Db, merchantId: string, id: string): Promise<CaptureRow | undefined> {
  return db
    .selectFrom('lab_captures')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function clearCaptures(db: Db, merchantId: string): Promise<number> {
  const result = await db.deleteFrom('lab_captures').where('merchant_id', '=', merchantId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listTaps(db: Db, merchantId: string): Promise<Array<{ url: string; created_at: number }>> {
  return db
    .selectFrom('lab_taps')
    .select(['url', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at')
    .orderBy('url')
    .execute();
}

/** The endpoints tapped, of several merchants at once: `merchant id` and URL, joined by a space. */
export async function tapsOf(db: Db, merchantIds: string[]): Promise<Set<string>> {
  if (merchantIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('lab_taps')
    .select(['merchant_id', 'url'])
    .where('merchant_id', 'in', merchantIds)
    .execute();
  return new Set(rows.map((row) => `${row.merchant_id} ${row.url}`));
}

export async function insertTap(db: Db, merchantId: string, url: string, now: number): Promise<void> {
  await db
    .insertInto('lab_taps')
    .values({ merchant_id: merchantId, url, created_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'url']).doNothing())
    .execute();
}

export async function deleteTap(db: Db, merchantId: string, url: string): Promise<boolean> {
  const result = await db
    .deleteFrom('lab_taps')
    .where('merchant_id', '=', merchantId)
    .where('url', '=', url)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
