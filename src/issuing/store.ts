import type { Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { IssuedCardsTable } from './tables.js';

export type CardRow = Selectable<IssuedCardsTable>;

/** Inserts the card unless its reference or its number is taken: then nothing (the caller tells which). */
export async function insertCardIfUnique(db: Db, row: CardRow): Promise<boolean> {
  return (
    (await db
      .insertInto('issued_cards')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst()) !== undefined
  );
}

export async function cardReferenceTaken(db: Db, merchantId: string, referenceId: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('issued_cards')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('reference_id', '=', referenceId)
      .executeTakeFirst()) !== undefined
  );
}

export async function findCard(db: Db, merchantId: string, id: string, lock = false): Promise<CardRow | undefined> {
  const query = db.selectFrom('issued_cards').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function listCardRows(
  db: Db,
  merchantId: string,
  page: { offset: number; limit: number; userId?: string },
): Promise<{ rows: CardRow[]; total: number }> {
  let query = db.selectFrom('issued_cards').where('merchant_id', '=', merchantId);
  if (page.userId !== undefined) query = query.where('user_id', '=', page.userId);
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const { total } = await query.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

export async function updateCard(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Pick<CardRow, 'status' | 'limits' | 'updated_at'>>,
): Promise<CardRow> {
  return db
    .updateTable('issued_cards')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertLimitChange(
  db: Db,
  row: { id: string; merchant_id: string; card_id: string; limits: string; changed_by: string; created_at: number },
): Promise<void> {
  await db.insertInto('issued_card_limit_changes').values(row).execute();
}

export async function limitChanges(db: Db, merchantId: string, cardId: string) {
  return db
    .selectFrom('issued_card_limit_changes')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function recordNumberRead(
  db: Db,
  row: { id: string; merchant_id: string; card_id: string; read_by: string; request_id: string; created_at: number },
): Promise<void> {
  await db.insertInto('issued_card_number_reads').values(row).execute();
}
