import type { Selectable } from 'kysely';
import { type Db, isPostgres, preparedPatch } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import { isUuid } from '../platform/ids.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import type { BatchesTable, BatchRowsTable } from './tables.js';

export type BatchRecord = Selectable<BatchesTable>;
export type BatchRowRecord = Selectable<BatchRowsTable>;

export const UPLOAD_STATUSES = ['pending', 'processing', 'success', 'failed', 'cancelled'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];
export const ROW_STATES = ['waiting', 'running', 'succeeded', 'failed', 'skipped'] as const;
export type RowState = (typeof ROW_STATES)[number];

/** The fields `GET batch_mit_transactions` filters on. */
export const BATCH_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'batches.id' },
  batch_name: { type: 'text', column: 'batches.batch_name' },
  upload_status: { type: 'text', column: 'batches.upload_status', values: UPLOAD_STATUSES },
  total_records: { type: 'integer', column: 'batches.total_records' },
  successful_records: { type: 'integer', column: 'batches.successful_records' },
  failed_records: { type: 'integer', column: 'batches.failed_records' },
  created_by: { type: 'text', column: 'batches.created_by' },
  created_at: { type: 'time', column: 'batches.created_at' },
  updated_at: { type: 'time', column: 'batches.updated_at' },
  deleted_at: { type: 'time', column: 'batches.deleted_at' },
};

export async function insertBatch(db: Db, row: BatchRecord): Promise<void> {
  await db.insertInto('batches').values(row).execute();
}

export async function findBatch(
  db: Db,
  merchantId: string,
  id: string,
  lock = false,
): Promise<BatchRecord | undefined> {
  // Batch ids are UUIDs: any other text names none (and never reaches the database, where U+0000 cannot go).
  if (!isUuid(id)) return undefined;
  const query = db.selectFrom('batches').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** Changes a batch; with `from`, only while its status is one of those. Answers whether it changed. */
export async function updateBatch(
  db: Db,
  merchantId: string,
  id: string,
  patch: Partial<Omit<BatchRecord, 'id' | 'merchant_id'>>,
  from?: readonly UploadStatus[],
): Promise<boolean> {
  let query = db.updateTable('batches').set(patch).where('merchant_id', '=', merchantId).where('id', '=', id);
  if (from) query = query.where('upload_status', 'in', from);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Adds to a batch's counters in one statement: processes finishing rows at once never lose a count. */
export async function countRows(
  db: Db,
  merchantId: string,
  id: string,
  counts: { successful: number; failed: number },
  now: number,
): Promise<void> {
  if (counts.successful === 0 && counts.failed === 0) return;
  await db
    .updateTable('batches')
    .set((eb) => ({
      successful_records: eb('successful_records', '+', counts.successful),
      failed_records: eb('failed_records', '+', counts.failed),
      updated_at: now,
    }))
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

/** A page of the merchant's batches, newest first, and how many match in all. */
export async function listBatches(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: BatchRecord[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom('batches').where('batches.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, BATCH_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('batches.created_at', 'desc')
      .orderBy('batches.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

// ---- the file sent as a body, until it is read ----

/** A part of a batch's file, as its text is kept (sealed: see stored-file.ts). */
export async function insertFilePart(
  db: Db,
  merchantId: string,
  batchId: string,
  part: number,
  content: string,
): Promise<void> {
  await db
    .insertInto('batch_file_parts')
    .values({ batch_id: batchId, part, merchant_id: merchantId, content })
    .execute();
}

export async function readFilePart(
  db: Db,
  merchantId: string,
  batchId: string,
  part: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('batch_file_parts')
    .select('content')
    .where('batch_id', '=', batchId)
    .where('part', '=', part)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return row?.content;
}

export async function dropFileParts(db: Db, merchantId: string, batchId: string): Promise<void> {
  await db
    .deleteFrom('batch_file_parts')
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .execute();
}

// ---- rows ----

export async function insertRows(db: Db, rows: BatchRowRecord[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('batch_rows').values(rows).execute();
}

/** How many rows of a batch are written, whatever their state. */
export async function countWrittenRows(db: Db, merchantId: string, batchId: string): Promise<number> {
  const row = await db
    .selectFrom('batch_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A batch's rows as a load cut short left them: none has run (rows run only once the whole file is read). */
export async function dropRows(db: Db, merchantId: string, batchId: string): Promise<void> {
  await db.deleteFrom('batch_rows').where('batch_id', '=', batchId).where('merchant_id', '=', merchantId).execute();
}

/** Up to `limit` rows from `first` to `last` that have not finished, in order; locked when asked. */
export async function unfinishedRows(
  db: Db,
  merchantId: string,
  batchId: string,
  first: number,
  last: number,
  limit: number,
  lock = false,
): Promise<BatchRowRecord[]> {
  const query = db
    .selectFrom('batch_rows')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('row_number', '>=', first)
    .where('row_number', '<=', last)
    .where('state', 'in', ['waiting', 'running'])
    .orderBy('row_number')
    .limit(limit);
  return (lock ? forUpdate(db, query) : query).execute();
}

export async function updateRow(
  db: Db,
  merchantId: string,
  batchId: string,
  rowNumber: number,
  patch: Partial<Omit<BatchRowRecord, 'batch_id' | 'row_number' | 'merchant_id'>>,
): Promise<void> {
  await db
    .updateTable('batch_rows')
    .set(patch)
    .where('batch_id', '=', batchId)
    .where('row_number', '=', rowNumber)
    .where('merchant_id', '=', merchantId)
    .execute();
}

/** Rows whose payments are recorded are running, in one statement. */
export async function startRows(
  db: Db,
  merchantId: string,
  batchId: string,
  rowNumbers: number[],
  now: number,
): Promise<void> {
  if (rowNumbers.length === 0) return;
  await db
    .updateTable('batch_rows')
    .set({ state: 'running', updated_at: now })
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('row_number', 'in', rowNumbers)
    .execute();
}

/** Changes a row that has not finished (waiting or running): whether it did (another runner may have finished it). */
export async function finishRow(
  db: Db,
  merchantId: string,
  batchId: string,
  rowNumber: number,
  patch: Partial<Omit<BatchRowRecord, 'batch_id' | 'row_number' | 'merchant_id'>>,
): Promise<boolean> {
  const result = await patchUnfinishedRow(db, patch, { merchantId, batchId, rowNumber });
  return Number(result.numAffectedRows ?? 0) > 0;
}

const patchUnfinishedRow = preparedPatch(
  (db, set: Partial<BatchRowRecord>, p: { merchantId: string; batchId: string; rowNumber: number }) =>
    db
      .updateTable('batch_rows')
      .set(set)
      .where('batch_id', '=', p.batchId)
      .where('row_number', '=', p.rowNumber)
      .where('merchant_id', '=', p.merchantId)
      .where('state', 'in', ['waiting', 'running']),
);

/** Rows not yet begun are skipped (a cancellation): how many. */
export async function skipWaitingRows(db: Db, merchantId: string, batchId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('batch_rows')
    .set({
      state: 'skipped',
      card_sealed: null,
      outcome: 'Skipped: the batch was cancelled before this row ran.',
      updated_at: now,
    })
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Ends every row of a batch that has not ended, its card erased: a row begun is failed with `running`, a row not
 * begun skipped with `waiting` (the batch stopped for good). How many of each.
 */
export async function endUnfinishedRows(
  db: Db,
  merchantId: string,
  batchId: string,
  outcomes: { running: string; waiting: string },
  now: number,
): Promise<{ failed: number; skipped: number }> {
  const rows = db.updateTable('batch_rows').where('batch_id', '=', batchId).where('merchant_id', '=', merchantId);
  const failed = await rows
    .set({
      state: 'failed',
      card_sealed: null,
      error_column: '',
      error_reason: outcomes.running,
      outcome: outcomes.running,
      updated_at: now,
    })
    .where('state', '=', 'running')
    .executeTakeFirst();
  const skipped = await rows
    .set({ state: 'skipped', card_sealed: null, outcome: outcomes.waiting, updated_at: now })
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return { failed: Number(failed.numUpdatedRows), skipped: Number(skipped.numUpdatedRows) };
}

export async function countUnfinishedRows(db: Db, merchantId: string, batchId: string): Promise<number> {
  const row = await db
    .selectFrom('batch_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('state', 'in', ['waiting', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A page of a batch's failed rows, in row order, and how many there are. */
export async function failedRows(
  db: Db,
  merchantId: string,
  batchId: string,
  page: Page,
): Promise<{ rows: BatchRowRecord[]; total: number }> {
  const query = db
    .selectFrom('batch_rows')
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('state', '=', 'failed');
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('row_number').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** A page of the rows that made a transaction, in row order. */
export async function rowsWithTransactions(
  db: Db,
  merchantId: string,
  batchId: string,
  page: Page,
): Promise<BatchRowRecord[]> {
  return db
    .selectFrom('batch_rows')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('transaction_id', 'is not', null)
    .orderBy('row_number')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

/** Up to `limit` rows after row `after`, in order: a whole batch read a page at a time. */
export async function rowsAfter(
  db: Db,
  merchantId: string,
  batchId: string,
  after: number,
  limit: number,
): Promise<BatchRowRecord[]> {
  return db
    .selectFrom('batch_rows')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', merchantId)
    .where('row_number', '>', after)
    .orderBy('row_number')
    .limit(limit)
    .execute();
}
