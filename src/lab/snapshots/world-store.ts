import { CompiledQuery } from 'kysely';
import { type Db, isPostgres } from '../../platform/database/database.js';
import type { WorldTable } from './catalogue.js';

/**
 * The SQL of a merchant's world, table by table, for any table the catalogue describes: statements written from the
 * catalogue's names (quoted), with every value bound, on either engine.
 */

/** A row as stored in a snapshot: its values in the order of the part's columns. */
export type StoredRow = unknown[];

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A condition with `?` placeholders and its values. */
interface Condition {
  text: string;
  values: unknown[];
}

/** Which of the table's rows are the merchant's: its own column, or its parent's (and so on up). */
function scopeOf(table: WorldTable, tables: ReadonlyMap<string, WorldTable>, merchantId: string): Condition {
  if (table.scope.kind === 'merchant') return { text: `${quote('merchant_id')} = ?`, values: [merchantId] };
  const parent = tables.get(table.scope.parent)!;
  const inParent = scopeOf(parent, tables, merchantId);
  return {
    text: `${quote(table.scope.column)} in (select ${quote(table.scope.parentColumn)} from ${quote(parent.name)} where ${inParent.text})`,
    values: inParent.values,
  };
}

/** Runs SQL written with `?` placeholders (numbered `$n` for PostgreSQL). */
async function run<R>(db: Db, text: string, values: unknown[]): Promise<{ rows: R[]; affected: number }> {
  let sqlText = text;
  if (isPostgres(db)) {
    let n = 0;
    sqlText = text.replace(/\?/g, () => `$${++n}`);
  }
  const result = await db.executeQuery<R>(CompiledQuery.raw(sqlText, values));
  return { rows: result.rows, affected: Number(result.numAffectedRows ?? 0n) };
}

/**
 * The merchant's rows of a table, `limit` at a time in primary-key order, each as its values in the table's column
 * order; after the row whose key is `after`, when given.
 */
export async function readRows(
  db: Db,
  table: WorldTable,
  tables: ReadonlyMap<string, WorldTable>,
  merchantId: string,
  limit: number,
  after: unknown[] | undefined,
): Promise<StoredRow[]> {
  const scope = scopeOf(table, tables, merchantId);
  const key = table.key.map(quote).join(', ');
  const afterText = after === undefined ? '' : ` and (${key}) > (${table.key.map(() => '?').join(', ')})`;
  const { rows } = await run<Record<string, unknown>>(
    db,
    `select ${table.columns.map(quote).join(', ')} from ${quote(table.name)} where ${scope.text}${afterText} order by ${key} limit ${limit}`,
    [...scope.values, ...(after ?? [])],
  );
  return rows.map((row) => table.columns.map((column) => row[column]));
}

/** Deletes the merchant's rows of a table; returns how many went. */
export async function deleteRows(
  db: Db,
  table: WorldTable,
  tables: ReadonlyMap<string, WorldTable>,
  merchantId: string,
): Promise<number> {
  const scope = scopeOf(table, tables, merchantId);
  return (await run(db, `delete from ${quote(table.name)} where ${scope.text}`, scope.values)).affected;
}

/** Values bound per statement: under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const VALUES_PER_INSERT = 16_000;

/** Inserts rows (their values in the order of `columns`), many to a statement. */
export async function insertRows(db: Db, table: string, columns: string[], rows: StoredRow[]): Promise<void> {
  if (columns.length === 0) return;
  const perStatement = Math.max(1, Math.floor(VALUES_PER_INSERT / columns.length));
  const head = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    await run(db, head + chunk.map(() => tuple).join(', '), chunk.flat());
  }
}
