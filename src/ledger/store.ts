import { sql, type Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { isPostgres } from '../platform/database/database.js';
import type { LedgerEntriesTable, LedgerLinesTable, LedgerTopUpsTable } from '../platform/database/schema.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { ENTRY_TYPES, SOURCE_TYPES } from './accounts.js';

/** Rows per statement: well within both engines' limits on bound parameters. */
const CHUNK = 200;

export type EntryRecord = Selectable<LedgerEntriesTable>;
export type LineRecord = Selectable<LedgerLinesTable>;
export type TopUpRecord = Selectable<LedgerTopUpsTable>;

export const ENTRY_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'ledger_entries.id' },
  type: { type: 'text', column: 'ledger_entries.type', values: ENTRY_TYPES },
  currency: { type: 'text', column: 'ledger_entries.currency' },
  amount: { type: 'money', column: 'ledger_entries.amount', exponentColumn: 'ledger_entries.currency_exponent' },
  fee: { type: 'money', column: 'ledger_entries.fee', exponentColumn: 'ledger_entries.currency_exponent' },
  'source.type': { type: 'text', column: 'ledger_entries.source_type', values: SOURCE_TYPES },
  'source.id': { type: 'text', column: 'ledger_entries.source_id' },
  created_at: { type: 'time', column: 'ledger_entries.created_at' },
  available_on: { type: 'time', column: 'ledger_entries.available_on' },
};

/**
 * Writes entries and their lines, and adds the lines to their accounts, in the caller's transaction. An entry
 * whose (source, type) is posted already is left out, with its lines: posting is once, whatever runs twice.
 * Accounts are updated in one order (by currency, then account) so that concurrent postings never deadlock.
 */
export async function insertEntries(db: Db, entries: EntryRecord[], lines: LineRecord[], now: number): Promise<EntryRecord[]> {
  if (entries.length === 0) return [];
  const written = new Set<string>();
  for (let i = 0; i < entries.length; i += CHUNK) {
    const rows = await db.insertInto('ledger_entries').values(entries.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['merchant_id', 'source_type', 'source_id', 'type']).doNothing())
      .returning('id').execute();
    for (const row of rows) written.add(row.id);
  }
  const kept = lines.filter((line) => written.has(line.entry_id));
  if (kept.length === 0) return [];
  for (let i = 0; i < kept.length; i += CHUNK) await db.insertInto('ledger_lines').values(kept.slice(i, i + CHUNK)).execute();
  const sums = new Map<string, { merchant_id: string; currency: string; account: string; balance: number; updated_at: number }>();
  for (const line of kept) {
    const key = `${line.merchant_id}\u0000${line.currency}\u0000${line.account}`;
    const sum = sums.get(key) ?? { merchant_id: line.merchant_id, currency: line.currency, account: line.account, balance: 0, updated_at: now };
    sum.balance += line.amount;
    sums.set(key, sum);
  }
  const ordered = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, sum]) => sum);
  await db.insertInto('ledger_accounts').values(ordered)
    .onConflict((oc) => oc.columns(['merchant_id', 'currency', 'account']).doUpdateSet({
      balance: sql<number>`ledger_accounts.balance + excluded.balance`,
      updated_at: sql<number>`excluded.updated_at`,
    }))
    .execute();
  return entries.filter((entry) => written.has(entry.id));
}

export async function findEntry(db: Db, merchantId: string, source: { type: string; id: string }, type: string): Promise<EntryRecord | undefined> {
  return db.selectFrom('ledger_entries').selectAll()
    .where('merchant_id', '=', merchantId).where('source_type', '=', source.type).where('source_id', '=', source.id).where('type', '=', type)
    .executeTakeFirst();
}

export async function accountBalances(db: Db, merchantId: string): Promise<Array<{ currency: string; account: string; balance: number }>> {
  return db.selectFrom('ledger_accounts').select(['currency', 'account', 'balance'])
    .where('merchant_id', '=', merchantId).orderBy('currency').orderBy('account').execute();
}

export async function listEntries(db: Db, merchantId: string, conditions: Condition[], page: Page): Promise<{ rows: EntryRecord[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom('ledger_entries').where('ledger_entries.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, ENTRY_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('ledger_entries.created_at', 'desc').orderBy('ledger_entries.id', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function linesOf(db: Db, merchantId: string, entryIds: string[]): Promise<LineRecord[]> {
  if (entryIds.length === 0) return [];
  return db.selectFrom('ledger_lines').selectAll().where('merchant_id', '=', merchantId).where('entry_id', 'in', entryIds).execute();
}

export async function insertTopUp(db: Db, row: TopUpRecord): Promise<void> {
  await db.insertInto('ledger_top_ups').values(row).execute();
}

// ---- what the check reads ----

/** Merchants with anything in the ledger or anything that should be there. */
export async function ledgerMerchants(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('merchants').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

export async function storedBalances(db: Db, merchantId: string): Promise<Array<{ currency: string; account: string; balance: number }>> {
  return accountBalances(db, merchantId);
}

/** Each account's sum of lines. */
export async function lineSums(db: Db, merchantId: string): Promise<Array<{ currency: string; account: string; total: number }>> {
  const rows = await db.selectFrom('ledger_lines').select((eb) => ['currency', 'account', eb.fn.sum<number | string>('amount').as('total')])
    .where('merchant_id', '=', merchantId).groupBy(['currency', 'account']).execute();
  return rows.map((row) => ({ currency: row.currency, account: row.account, total: Number(row.total) }));
}

/** Entries whose lines do not sum to zero, or whose amount less fee is not what they change the merchant's funds by. */
export async function unbalancedEntries(db: Db, merchantId: string, merchantAccounts: readonly string[]): Promise<Array<{ id: string; currency: string; total: number; funds: number; net: number }>> {
  const rows = await db.selectFrom('ledger_entries as e').innerJoin('ledger_lines as l', 'l.entry_id', 'e.id')
    .select((eb) => [
      'e.id', 'e.currency', 'e.amount', 'e.fee',
      eb.fn.sum<number | string>('l.amount').as('total'),
      eb.fn.sum<number | string>(eb.case().when('l.account', 'in', merchantAccounts).then(eb.ref('l.amount')).else(sql.lit(0)).end()).as('funds'),
    ])
    .where('e.merchant_id', '=', merchantId)
    .groupBy(['e.id', 'e.currency', 'e.amount', 'e.fee'])
    .execute();
  return rows
    .map((row) => ({ id: row.id, currency: row.currency, total: Number(row.total), funds: Number(row.funds), net: Number(row.amount) - Number(row.fee) }))
    .filter((row) => row.total !== 0 || row.funds !== row.net);
}

/** Each source's lines, summed by account: what the check compares with what the records say they should be. */
export async function sourceSums(db: Db, merchantId: string): Promise<Array<{ source_type: string; source_id: string; currency: string; account: string; total: number }>> {
  const rows = await db.selectFrom('ledger_entries as e').innerJoin('ledger_lines as l', 'l.entry_id', 'e.id')
    .select((eb) => ['e.source_type', 'e.source_id', 'l.currency', 'l.account', eb.fn.sum<number | string>('l.amount').as('total')])
    .where('e.merchant_id', '=', merchantId)
    .groupBy(['e.source_type', 'e.source_id', 'l.currency', 'l.account'])
    .execute();
  return rows.map((row) => ({ ...row, total: Number(row.total) }));
}

/** Settlement fees as posted, by the transaction settled. */
export async function settlementFees(db: Db, merchantId: string): Promise<Map<string, number>> {
  const rows = await db.selectFrom('ledger_entries').select(['source_id', 'fee'])
    .where('merchant_id', '=', merchantId).where('type', '=', 'settlement').execute();
  return new Map(rows.map((row) => [row.source_id, Number(row.fee)]));
}

export async function topUps(db: Db, merchantId: string): Promise<TopUpRecord[]> {
  return db.selectFrom('ledger_top_ups').selectAll().where('merchant_id', '=', merchantId).execute();
}
