import { type Expression, sql } from 'kysely';
import { type Db, isPostgres } from './database.js';

/**
 * The merchant column, in a lookup of many rows by primary key (`id IN (...)`). Without statistics, SQLite's
 * planner prices a long list of keys above its guess for an index that starts with the merchant, and then reads
 * every row of the merchant: milliseconds at ten thousand rows, growing with them. The unary `+`, which leaves the
 * value as it is, keeps that term off every index: the rows are found by key and still filtered by merchant.
 */
export function merchantOfKeyed(db: Db, column = 'merchant_id'): Expression<string> {
  return isPostgres(db) ? sql.ref<string>(column) : sql<string>`+${sql.ref(column)}`;
}
