import type { Selectable } from 'kysely';
import type { Db } from '../../platform/database/database.js';
import { forUpdate } from '../../platform/database/locking.js';
import type { IssuedCardTransactionStepsTable, IssuedCardTransactionsTable } from '../tables.js';

export type CardTransactionRow = Selectable<IssuedCardTransactionsTable>;
export type StepRow = Selectable<IssuedCardTransactionStepsTable>;

/** The statuses operation 4 lists; Reversed and Expired (nothing left of them) stay in the card's history only. */
export const LISTED_STATUSES = ['Authorized', 'Declined', 'Settled'] as const;

export async function insertCardTransaction(db: Db, row: CardTransactionRow): Promise<void> {
  await db.insertInto('issued_card_transactions').values(row).execute();
}

export async function insertStep(db: Db, row: StepRow): Promise<void> {
  await db.insertInto('issued_card_transaction_steps').values(row).execute();
}

export async function findCardTransaction(
  db: Db,
  merchantId: string,
  id: string,
  lock = false,
): Promise<CardTransactionRow | undefined> {
  const query = db
    .selectFrom('issued_card_transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function updateCardTransaction(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Omit<CardTransactionRow, 'id' | 'merchant_id'>>,
): Promise<CardTransactionRow> {
  return db
    .updateTable('issued_card_transactions')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Operation 4's page: newest first, the listed statuses only, one card's when asked. */
export async function listCardTransactionRows(
  db: Db,
  merchantId: string,
  page: { offset: number; limit: number; cardId?: string },
): Promise<CardTransactionRow[]> {
  let query = db
    .selectFrom('issued_card_transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('status', 'in', LISTED_STATUSES);
  if (page.cardId !== undefined) query = query.where('card_id', '=', page.cardId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
}

/** Every card transaction of the merchant, a page at a time (for the ledger's check). */
export async function* cardTransactionPages(
  db: Db,
  merchantId: string,
  size = 500,
): AsyncGenerator<CardTransactionRow[]> {
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('issued_card_transactions')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(size)
      .execute();
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.id;
  }
}

export async function stepsOf(db: Db, merchantId: string, transactionIds: string[]): Promise<StepRow[]> {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('issued_card_transaction_steps')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('card_transaction_id', 'in', transactionIds)
    .execute();
}

export async function stepsAmong(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('issued_card_transaction_steps')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

export async function cardTransactionsAmong(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('issued_card_transactions')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Up to `limit` of the merchant's open authorisations whose expiry has come (expires_at is set on open ones only). */
export async function dueAuthorizations(
  db: Db,
  merchantId: string,
  now: number,
  limit: number,
): Promise<Array<{ id: string; card_id: string }>> {
  return db
    .selectFrom('issued_card_transactions')
    .select(['id', 'card_id'])
    .where('merchant_id', '=', merchantId)
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
