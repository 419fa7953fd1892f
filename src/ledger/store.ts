import { sql, type Selectable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import { isPostgres } from '../platform/database/database.js';
import type { LedgerEntriesTable, LedgerTopUpsTable } from '../platform/database/schema.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { ENTRY_TYPES, SOURCE_TYPES, type Account } from './accounts.js';

/** Rows per statement: well within both engines' limits on bound parameters. */
const CHUNK = 200;

export type EntryRecord = Selectable<LedgerEntriesTable>;
export type TopUpRecord = Selectable<LedgerTopUpsTable>;
/** An entry's lines: what it adds to each account it moves. */
export type Lines = Partial<Record<Account, number>>;

export const linesOf = (entry: Pick<EntryRecord, 'lines'>): Lines => JSON.parse(entry.lines) as Lines;

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
 * Writes entries and adds their lines to their accounts, in the caller's transaction. An entry whose (source,
 * type) is posted already is left out: posting is once, whatever runs twice. Accounts are updated in one order
 * (by currency, then account) so that concurrent postings never deadlock.
 */
export async function insertEntries(db: Db, merchantId: string, entries: EntryRecord[], now: number): Promise<EntryRecord[]> {
  if (entries.length === 0) return [];
  const written = new Set<string>();
  for (let i = 0; i < entries.length; i += CHUNK) {
    const rows = await db.insertInto('ledger_entries').values(entries.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['merchant_id', 'source_type', 'source_id', 'type']).doNothing())
      .returning('id').execute();
    for (const row of rows) written.add(row.id);
  }
  const kept = entries.filter((entry) => written.has(entry.id));
  if (kept.length === 0) return [];
  const sums = new Map<string, { merchant_id: string; currency: string; account: string; balance: number; updated_at: number }>();
  for (const entry of kept) {
    for (const [account, amount] of Object.entries(linesOf(entry))) {
      const key = `${entry.currency}\u0000${account}`;
      const sum = sums.get(key) ?? { merchant_id: merchantId, currency: entry.currency, account, balance: 0, updated_at: now };
      sum.balance += amount;
      sums.set(key, sum);
    }
  }
  const ordered = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, sum]) => sum);
  await db.insertInto('ledger_accounts').values(ordered)
    .onConflict((oc) => oc.columns(['merchant_id', 'currency', 'account']).doUpdateSet({
      balance: sql<number>`ledger_accounts.balance + excluded.balance`,
      updated_at: sql<number>`excluded.updated_at`,
    }))
    .execute();
  return kept;
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

export async function insertTopUp(db: Db, row: TopUpRecord): Promise<void> {
  await db.insertInto('ledger_top_ups').values(row).execute();
}

// ---- what the check reads ----

export async function ledgerMerchants(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('merchants').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** Every entry of the merchant, a page at a time (the check never holds the whole journal). */
export async function* allEntries(db: Db, merchantId: string): AsyncGenerator<EntryRecord> {
  let after = '';
  for (;;) {
    const rows = await db.selectFrom('ledger_entries').selectAll()
      .where('merchant_id', '=', merchantId).where('id', '>', after).orderBy('id').limit(5_000).execute();
    yield* rows;
    if (rows.length < 5_000) return;
    after = rows.at(-1)!.id;
  }
}

export async function topUps(db: Db, merchantId: string): Promise<TopUpRecord[]> {
  return db.selectFrom('ledger_top_ups').selectAll().where('merchant_id', '=', merchantId).execute();
}
