import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../platform/database/database.js';
import type { TransactionsTable } from '../platform/database/schema.js';

export type TransactionRow = Selectable<TransactionsTable>;
export type TransactionPatch = Updateable<TransactionsTable>;

export async function insertTransaction(db: Db, row: TransactionRow): Promise<void> {
  await db.insertInto('transactions').values(row).execute();
}

export async function findTransaction(db: Db, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** The payment a client named with payment.uuid (for as long as the payment exists). */
export async function findPaymentByUuid(db: Db, merchantId: string, paymentUuid: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll()
    .where('merchant_id', '=', merchantId).where('payment_uuid', '=', paymentUuid).executeTakeFirst();
}

/**
 * The transaction a request with this Idempotency-Key created, while the key's record lasts: after that the key
 * names nothing, as the HTTP layer forgets it too.
 */
export async function findTransactionByIdempotencyKey(db: Db, merchantId: string, key: string, wallNow: number): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll()
    .where('merchant_id', '=', merchantId).where('idempotency_key', '=', key).where('idempotency_expires_at', '>', wallNow)
    .orderBy('created_at', 'desc').executeTakeFirst();
}

/** An order's transactions, oldest first (plugins refund transactions[0]). */
export async function orderTransactions(db: Db, merchantId: string, orderId: string): Promise<TransactionRow[]> {
  return db.selectFrom('transactions').selectAll()
    .where('merchant_id', '=', merchantId).where('order_id', '=', orderId)
    .orderBy('created_at').orderBy('id').execute();
}

export async function transactionsOfOrders(db: Db, merchantId: string, orderIds: string[]): Promise<TransactionRow[]> {
  if (orderIds.length === 0) return [];
  return db.selectFrom('transactions').selectAll()
    .where('merchant_id', '=', merchantId).where('order_id', 'in', orderIds)
    .orderBy('created_at').orderBy('id').execute();
}

/** How many transactions each order has (orders without any are absent). */
export async function transactionCounts(db: Db, merchantId: string, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await db.selectFrom('transactions').select((eb) => ['order_id', eb.fn.countAll<number | string>().as('count')])
    .where('merchant_id', '=', merchantId).where('order_id', 'in', orderIds).groupBy('order_id').execute();
  return new Map(rows.map((row) => [row.order_id, Number(row.count)]));
}

export async function updateTransaction(db: Db, merchantId: string, id: string, patch: TransactionPatch): Promise<TransactionRow> {
  return db.updateTable('transactions').set(patch)
    .where('merchant_id', '=', merchantId).where('id', '=', id)
    .returningAll().executeTakeFirstOrThrow();
}

/** Sales, captures and refunds that went through, in id order after `afterId`: the records the ledger's check reads. */
export async function succeededMoneyTransactions(db: Db, merchantId: string, afterId: string, limit: number): Promise<TransactionRow[]> {
  return db.selectFrom('transactions').selectAll()
    .where('merchant_id', '=', merchantId).where('status', '=', 'succeeded').where('type', 'in', ['Sales', 'Capture', 'Refund'])
    .where('id', '>', afterId).orderBy('id').limit(limit)
    .execute();
}

/** Which of these transactions are sales, captures or refunds of the merchant that went through. */
export async function succeededMoneyTransactionIds(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('transactions').select('id')
    .where('merchant_id', '=', merchantId).where('status', '=', 'succeeded').where('type', 'in', ['Sales', 'Capture', 'Refund'])
    .where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Settles what the acquirer's cut-off covers: successful, unvoided money movements made up to `at`. */
export async function settleTransactions(db: Db, merchantId: string, at: number): Promise<Array<Pick<TransactionRow, 'id' | 'type' | 'currency' | 'amount' | 'payment_method'>>> {
  return db.updateTable('transactions')
    .set({ settled_at: at, updated_at: at })
    .where('merchant_id', '=', merchantId)
    .where('settled_at', 'is', null)
    .where('status', '=', 'succeeded')
    .where('voided', '=', 0)
    // One being voided right now waits for the next cut-off: if the void succeeds it never settles.
    .where('void_is_pending', '=', 0)
    .where('type', 'in', ['Sales', 'Capture', 'Refund'])
    .where('created_at', '<=', at)
    .returning(['id', 'type', 'currency', 'amount', 'payment_method'])
    .execute();
}

/**
 * Transactions whose rail call began before `startedBefore` and never got its answer recorded: a process
 * stopped between the two commits. Across all merchants: recovery is the platform's upkeep.
 */
export async function interruptedTransactions(db: Db, startedBefore: number, limit: number): Promise<TransactionRow[]> {
  return db.selectFrom('transactions').selectAll()
    .where((eb) => eb.or([eb('progress', '=', 'sending'), eb('void_is_pending', '=', 1)]))
    .where('rail_started_at', '<', startedBefore)
    .orderBy('rail_started_at').limit(limit).execute();
}
