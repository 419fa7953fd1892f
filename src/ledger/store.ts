import { type Selectable, sql } from 'kysely';
import { type Db, isPostgres, preparedInsertRows } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { type Account, ENTRY_TYPES, SOURCE_TYPES } from './accounts.js';
import type { LedgerEntriesTable, LedgerTopUpsTable } from './tables.js';

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

type AccountDelta = { merchant_id: string; currency: string; account: string; balance: number; updated_at: number };

const insertEntryRows = preparedInsertRows(
  'ledger_entries',
  {
    id: true,
    merchant_id: true,
    currency: true,
    currency_exponent: true,
    type: true,
    amount: true,
    fee: true,
    source_type: true,
    source_id: true,
    available_on: true,
    lines: true,
    created_at: true,
  },
  { onConflictDoNothing: ['merchant_id', 'source_type', 'source_id', 'type'], returning: 'id' },
);

/**
 * Writes entries, in the caller's transaction, and returns those written: an entry whose (source, type) is posted
 * already is left out, so posting is once, whatever runs twice. Their lines are added to the accounts by
 * `addToAccounts`.
 */
export async function insertEntries(db: Db, entries: EntryRecord[]): Promise<EntryRecord[]> {
  if (entries.length === 0) return [];
  const written = new Set(await insertEntryRows(db, entries));
  return entries.filter((entry) => written.has(entry.id));
}

/** Each account's sum of these entries' lines. */
export function accountDeltas(merchantId: string, entries: EntryRecord[], now: number): Map<string, AccountDelta> {
  const sums = new Map<string, AccountDelta>();
  for (const entry of entries) {
    for (const [account, amount] of Object.entries(linesOf(entry))) {
      const key = `${entry.currency}\u0000${account}`;
      const sum = sums.get(key) ?? {
        merchant_id: merchantId,
        currency: entry.currency,
        account,
        balance: 0,
        updated_at: now,
      };
      sum.balance += amount;
      sum.updated_at = now;
      sums.set(key, sum);
    }
  }
  return sums;
}

/**
 * Adds to the accounts, in one statement, in one order (by currency, then account): concurrent transactions on
 * PostgreSQL then wait for each other on these rows instead of deadlocking.
 */
export async function addToAccounts(db: Db, deltas: Iterable<[string, AccountDelta]>): Promise<void> {
  const ordered = [...deltas]
    .filter(([, delta]) => delta.balance !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, delta]) => delta);
  if (ordered.length === 0) return;
  await db
    .insertInto('ledger_accounts')
    .values(ordered)
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'currency', 'account']).doUpdateSet({
        balance: sql<number>`ledger_accounts.balance + excluded.balance`,
        updated_at: sql<number>`excluded.updated_at`,
      }),
    )
    .execute();
}

/** One account's balance, its row locked until the transaction ends (zero when it has none yet). */
export async function lockAccount(db: Db, merchantId: string, currency: string, account: string): Promise<number> {
  const row = await forUpdate(
    db,
    db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('merchant_id', '=', merchantId)
      .where('currency', '=', currency)
      .where('account', '=', account),
  ).executeTakeFirst();
  return Number(row?.balance ?? 0);
}

export async function accountBalances(
  db: Db,
  merchantId: string,
): Promise<Array<{ currency: string; account: string; balance: number }>> {
  return db
    .selectFrom('ledger_accounts')
    .select(['currency', 'account', 'balance'])
    .where('merchant_id', '=', merchantId)
    .orderBy('currency')
    .orderBy('account')
    .execute();
}

export async function listEntries(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: EntryRecord[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom('ledger_entries').where('ledger_entries.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, ENTRY_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('ledger_entries.created_at', 'desc')
      .orderBy('ledger_entries.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
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

/** Rows per page of the check. */
const PAGE = 2_000;

/** Every entry of the merchant, a page at a time in id order. */
export async function* entryPages(db: Db, merchantId: string): AsyncGenerator<EntryRecord[]> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/** The entries posted under these sources, by source. */
export async function entriesOfSources(
  db: Db,
  merchantId: string,
  sourceType: string,
  sourceIds: string[],
): Promise<Map<string, EntryRecord[]>> {
  const bySource = new Map<string, EntryRecord[]>();
  if (sourceIds.length === 0) return bySource;
  const rows = await db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('source_type', '=', sourceType)
    .where('source_id', 'in', sourceIds)
    .execute();
  for (const row of rows) bySource.set(row.source_id, [...(bySource.get(row.source_id) ?? []), row]);
  return bySource;
}

export async function* topUpPages(db: Db, merchantId: string): AsyncGenerator<TopUpRecord[]> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('ledger_top_ups')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/** Which of these ids are top-ups of the merchant. */
export async function topUpsAmong(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('ledger_top_ups')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}
