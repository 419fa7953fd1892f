import type { Kysely } from 'kysely';

/**
 * An order's transactions are read oldest first, ties broken by id (`orderTransactions`), on every change to the
 * order: with the id in the index, the rows come in that order, where before each read sorted them afresh.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_order').execute();
  await db.schema
    .createIndex('transactions_order')
    .on('transactions')
    .columns(['order_id', 'created_at', 'id'])
    .execute();
}
