import type { Selectable, Updateable } from 'kysely';
import { type Db, preparedInsert, preparedPatch, preparedQuery } from '../platform/database/database.js';
import type { TransactionsTable } from './tables.js';

export type TransactionRow = Selectable<TransactionsTable>;
export type TransactionPatch = Updateable<TransactionsTable>;

export const insertTransaction = preparedInsert('transactions', {
  id: true,
  merchant_id: true,
  order_id: true,
  type: true,
  payment_method: true,
  currency: true,
  amount: true,
  status: true,
  progress: true,
  captured: true,
  voided: true,
  void_reason: true,
  voided_at: true,
  void_is_pending: true,
  settled_at: true,
  expires_at: true,
  original_transaction_id: true,
  payment_uuid: true,
  idempotency_key: true,
  idempotency_expires_at: true,
  void_idempotency_key: true,
  payer_action_idempotency_key: true,
  note: true,
  payment_data: true,
  payer_action: true,
  rail_started_at: true,
  created_at: true,
  updated_at: true,
});

const transactionById = preparedQuery((db, p: { merchantId: string; id: string }) =>
  db.selectFrom('transactions').selectAll().where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);

export async function findTransaction(db: Db, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  return (await transactionById(db, { merchantId, id })).rows[0];
}

const paymentByUuid = preparedQuery((db, p: { merchantId: string; paymentUuid: string }) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('payment_uuid', '=', p.paymentUuid),
);

/** The payment a client named with payment.uuid (for as long as the payment exists). */
export async function findPaymentByUuid(
  db: Db,
  merchantId: string,
  paymentUuid: string,
): Promise<TransactionRow | undefined> {
  return (await paymentByUuid(db, { merchantId, paymentUuid })).rows[0];
}

/**
 * The transaction a request with this Idempotency-Key created, while the key's record lasts: after that the key
 * names nothing, as the HTTP layer forgets it too.
 */
export async function findTransactionByIdempotencyKey(
  db: Db,
  merchantId: string,
  key: string,
  wallNow: number,
): Promise<TransactionRow | undefined> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', key)
    .where('idempotency_expires_at', '>', wallNow)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** An order's transactions, oldest first (plugins refund transactions[0]). */
export async function orderTransactions(db: Db, merchantId: string, orderId: string): Promise<TransactionRow[]> {
  return (await transactionsOfOrder(db, { merchantId, orderId })).rows;
}

const transactionsOfOrder = preparedQuery((db, p: { merchantId: string; orderId: string }) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('order_id', '=', p.orderId)
    .orderBy('created_at')
    .orderBy('id'),
);

export async function transactionsOfOrders(db: Db, merchantId: string, orderIds: string[]): Promise<TransactionRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', orderIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** How many transactions each order has (orders without any are absent). */
export async function transactionCounts(db: Db, merchantId: string, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('transactions')
    .select((eb) => ['order_id', eb.fn.countAll<number | string>().as('count')])
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', orderIds)
    .groupBy('order_id')
    .execute();
  return new Map(rows.map((row) => [row.order_id, Number(row.count)]));
}

export async function updateTransaction(
  db: Db,
  merchantId: string,
  id: string,
  patch: TransactionPatch,
): Promise<TransactionRow> {
  const [updated] = (await patchTransaction(db, patch, { merchantId, id })).rows;
  if (!updated) throw new Error(`no transaction ${id} to update`);
  return updated;
}

const patchTransaction = preparedPatch((db, set: TransactionPatch, p: { merchantId: string; id: string }) =>
  db.updateTable('transactions').set(set).where('merchant_id', '=', p.merchantId).where('id', '=', p.id).returningAll(),
);

/** The same change, for a caller that reads the transaction again afterwards (with its order's): nothing returned. */
export async function setTransaction(db: Db, merchantId: string, id: string, patch: TransactionPatch): Promise<void> {
  const { numAffectedRows } = await patchOnly(db, patch, { merchantId, id });
  if (Number(numAffectedRows ?? 0) !== 1) throw new Error(`no transaction ${id} to update`);
}

const patchOnly = preparedPatch((db, set: TransactionPatch, p: { merchantId: string; id: string }) =>
  db.updateTable('transactions').set(set).where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);

/** Sales, captures and refunds that went through, in id order after `afterId`: the records the ledger's check reads. */
export async function succeededMoneyTransactions(
  db: Db,
  merchantId: string,
  afterId: string,
  limit: number,
): Promise<TransactionRow[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'succeeded')
    .where('type', 'in', ['Sales', 'Capture', 'Refund'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Which of these transactions are sales, captures or refunds of the merchant that went through. */
export async function succeededMoneyTransactionIds(db: Db, merchantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('transactions')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'succeeded')
    .where('type', 'in', ['Sales', 'Capture', 'Refund'])
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Settles what the acquirer's cut-off covers: successful, unvoided money movements made up to `at`. */
export async function settleTransactions(
  db: Db,
  merchantId: string,
  at: number,
): Promise<Array<Pick<TransactionRow, 'id' | 'type' | 'currency' | 'amount' | 'payment_method'>>> {
  return (
    db
      .updateTable('transactions')
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
      .execute()
  );
}

/**
 * Transactions whose rail call began before `startedBefore` and never got its answer recorded: a process
 * stopped between the two commits. Across all merchants: recovery is the platform's upkeep.
 */
export async function interruptedTransactions(db: Db, startedBefore: number, limit: number): Promise<TransactionRow[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where((eb) => eb.or([eb('progress', '=', 'sending'), eb('void_is_pending', '=', 1)]))
    .where('rail_started_at', '<', startedBefore)
    .orderBy('rail_started_at')
    .limit(limit)
    .execute();
}
