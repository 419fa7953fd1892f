import type { Selectable, Updateable } from 'kysely';
import { type Db, isPostgres } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { Condition, FilterCatalogue, Page } from '../platform/query/filters.js';
import { conditionSql } from '../platform/query/sql.js';
import { SCHEDULE_STATUSES, TRANSFER_STATUSES } from './schemas.js';
import type { PayeesTable, PayoutRequestsTable } from './tables.js';

export type PayeeRow = Selectable<PayeesTable>;
export type PayoutRow = Selectable<PayoutRequestsTable>;
export type PayoutPatch = Omit<Updateable<PayoutRequestsTable>, 'id' | 'merchant_id' | 'created_at'>;

/** A payout's schedule states from which nothing moves, and the transfer states at which the bank is done with it. */
const ENDED_SCHEDULES = ['Rejected', 'Cancelled', 'Failed'];
const ENDED_TRANSFERS = ['Settled', 'Terminated', 'Refunded'];

export const PAYOUT_FILTERS: FilterCatalogue = {
  id: { type: 'text', column: 'payout_requests.id' },
  payee_id: { type: 'text', column: 'payout_requests.payee_id' },
  reference_id: { type: 'text', column: 'payout_requests.reference_id' },
  currency: { type: 'text', column: 'payout_requests.currency' },
  amount: { type: 'money', column: 'payout_requests.amount', exponentColumn: 'payout_requests.currency_exponent' },
  schedule_status: { type: 'text', column: 'payout_requests.schedule_status', values: SCHEDULE_STATUSES },
  transfer_status: { type: 'text', column: 'payout_requests.transfer_status', values: TRANSFER_STATUSES },
  schedule_at: { type: 'time', column: 'payout_requests.schedule_at' },
  created_at: { type: 'time', column: 'payout_requests.created_at' },
  updated_at: { type: 'time', column: 'payout_requests.updated_at' },
};

// ---- payees ----

export async function insertPayee(db: Db, row: PayeeRow): Promise<void> {
  await db.insertInto('payees').values(row).execute();
}

/** The merchant's payee of this id, unless deleted. */
export async function findPayee(db: Db, merchantId: string, id: string, lock = false): Promise<PayeeRow | undefined> {
  const query = db
    .selectFrom('payees')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** The payee a payout names, deleted or not (a payee with a payout in flight cannot be deleted, but its row stays). */
export async function payeeOfPayout(db: Db, merchantId: string, id: string): Promise<PayeeRow> {
  return db
    .selectFrom('payees')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function listPayees(db: Db, merchantId: string, page: Page): Promise<{ rows: PayeeRow[]; total: number }> {
  const query = db.selectFrom('payees').where('merchant_id', '=', merchantId).where('deleted_at', 'is', null);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function markPayeeDeleted(db: Db, merchantId: string, id: string, at: number): Promise<void> {
  await db
    .updateTable('payees')
    .set({ deleted_at: at })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}

/** Whether a payout to the payee is in flight: neither ended by its schedule nor done at the bank. */
export async function payeeHasPayoutInFlight(db: Db, merchantId: string, payeeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('payout_requests')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('payee_id', '=', payeeId)
    .where('schedule_status', 'not in', ENDED_SCHEDULES)
    .where('transfer_status', 'not in', ENDED_TRANSFERS)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- payout requests ----

/** Inserts the payout unless the merchant has one of its reference already: then nothing. */
export async function insertPayoutIfNew(db: Db, row: PayoutRow): Promise<boolean> {
  const inserted = await db
    .insertInto('payout_requests')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findPayout(db: Db, merchantId: string, id: string, lock = false): Promise<PayoutRow | undefined> {
  const query = db.selectFrom('payout_requests').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function findPayoutByReference(
  db: Db,
  merchantId: string,
  referenceId: string,
): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payout_requests')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference_id', '=', referenceId)
    .executeTakeFirst();
}

export async function updatePayout(db: Db, merchantId: string, id: string, patch: PayoutPatch): Promise<PayoutRow> {
  return db
    .updateTable('payout_requests')
    .set(patch)
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listPayouts(
  db: Db,
  merchantId: string,
  conditions: Condition[],
  page: Page,
): Promise<{ rows: PayoutRow[]; total: number }> {
  const postgres = isPostgres(db);
  let query = db.selectFrom('payout_requests').where('payout_requests.merchant_id', '=', merchantId);
  for (const condition of conditions) query = query.where(conditionSql(condition, PAYOUT_FILTERS, postgres));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('payout_requests.created_at', 'desc')
      .orderBy('payout_requests.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Transfers sent to the bank whose answer was never recorded (every merchant's): what recovery asks the bank about. */
export async function interruptedTransfers(
  db: Db,
  startedBefore: number,
  limit: number,
): Promise<Array<{ id: string; merchant_id: string }>> {
  return db
    .selectFrom('payout_requests')
    .select(['id', 'merchant_id'])
    .where('bank_started_at', 'is not', null)
    .where('bank_started_at', '<', startedBefore)
    .orderBy('bank_started_at')
    .limit(limit)
    .execute();
}

/**
 * Every payout of the merchant that ran (its amount reserved), a page at a time in id order: what the ledger check
 * reads.
 */
export async function* executedPayoutPages(db: Db, merchantId: string, pageSize = 2_000): AsyncGenerator<PayoutRow[]> {
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('payout_requests')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('executed_at', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(pageSize)
      .execute();
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page.at(-1)!.id;
  }
}

export async function executedPayoutsAmong(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('payout_requests')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('executed_at', 'is not', null)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

// ---- approval thresholds ----

export async function thresholdOf(db: Db, merchantId: string, currency: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('payout_thresholds')
    .select('amount')
    .where('merchant_id', '=', merchantId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.amount);
}

export async function setThreshold(
  db: Db,
  merchantId: string,
  currency: string,
  amount: number,
  at: number,
): Promise<void> {
  await db
    .insertInto('payout_thresholds')
    .values({ merchant_id: merchantId, currency, amount, updated_at: at })
    .onConflict((oc) => oc.columns(['merchant_id', 'currency']).doUpdateSet({ amount, updated_at: at }))
    .execute();
}
