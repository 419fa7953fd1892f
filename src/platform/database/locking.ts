import type { SelectQueryBuilder } from 'kysely';
import { type Db, isPostgres } from './database.js';
import type { Schema } from './schema.js';

// The row-locking differences between the engines, in one place. On SQLite every transaction begins with
// BEGIN IMMEDIATE and holds the database's single write lock, which already excludes every other writer.

/** Locks the selected rows until the transaction ends (PostgreSQL FOR UPDATE). */
export function forUpdate<TB extends keyof Schema, O>(
  db: Db,
  query: SelectQueryBuilder<Schema, TB, O>,
): SelectQueryBuilder<Schema, TB, O> {
  return isPostgres(db) ? query.forUpdate() : query;
}

/** Keeps the selected rows from changing until the transaction ends, without excluding other readers (FOR SHARE). */
export function lockToRead<TB extends keyof Schema, O>(
  db: Db,
  query: SelectQueryBuilder<Schema, TB, O>,
): SelectQueryBuilder<Schema, TB, O> {
  return isPostgres(db) ? query.forShare() : query;
}

/** Locks the rows it can and skips those another transaction holds (work claiming across processes). */
export function lockRowsSkippingLocked<TB extends keyof Schema, O>(
  db: Db,
  query: SelectQueryBuilder<Schema, TB, O>,
): SelectQueryBuilder<Schema, TB, O> {
  return isPostgres(db) ? query.forUpdate().skipLocked() : query;
}
