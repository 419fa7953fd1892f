import type { SelectQueryBuilder } from 'kysely';
import { isPostgres, type Db } from './database.js';
import type { Schema } from './schema.js';

/**
 * Locks the selected rows until the transaction ends. PostgreSQL needs FOR UPDATE; on SQLite the single
 * writer (BEGIN IMMEDIATE) already excludes every other writer, and the syntax does not exist.
 */
export function forUpdate<TB extends keyof Schema, O>(
  db: Db,
  query: SelectQueryBuilder<Schema, TB, O>,
): SelectQueryBuilder<Schema, TB, O> {
  return isPostgres(db) ? query.forUpdate() : query;
}
