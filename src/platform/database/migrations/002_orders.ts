import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('settlement_hour', 'integer', (c) => c.notNull().defaultTo(23))
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('reference_number', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('currency_exponent', 'integer', (c) => c.notNull())
    .addColumn('initial_total', 'bigint', (c) => c.notNull())
    .addColumn('initial_tips', 'bigint', (c) => c.notNull())
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('paid_total', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('correspondence_state', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('note', 'text')
    .addColumn('notify_url', 'text')
    .addColumn('return_url', 'text')
    .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('voided_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('orders_reference', ['merchant_id', 'reference_number'])
    .execute();
  await db.schema.createIndex('orders_merchant_created').on('orders').columns(['merchant_id', 'created_at']).execute();
  await db.schema
    .createIndex('orders_merchant_customer')
    .on('orders')
    .columns(['merchant_id', 'customer_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('order_line_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('purchasable_type', 'text', (c) => c.notNull())
    .addColumn('purchase_id', 'bigint')
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('label', 'text')
    .execute();
  await db.schema
    .createIndex('order_line_items_order')
    .on('order_line_items')
    .columns(['order_id', 'position'])
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('captured', 'integer', (c) => c.notNull())
    .addColumn('voided', 'integer', (c) => c.notNull())
    .addColumn('void_reason', 'text')
    .addColumn('voided_at', 'bigint')
    .addColumn('void_is_pending', 'integer', (c) => c.notNull())
    .addColumn('settled_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('original_transaction_id', 'text', (c) => c.references('transactions.id'))
    .addColumn('payment_uuid', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('idempotency_expires_at', 'bigint')
    .addColumn('void_idempotency_key', 'text')
    .addColumn('note', 'text')
    .addColumn('payment_data', 'text', (c) => c.notNull())
    .addColumn('three_ds', 'text')
    .addColumn('rail_started_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('transactions_payment_uuid', ['merchant_id', 'payment_uuid'])
    .execute();
  // An Idempotency-Key names a transaction only while the key's record lasts (24 h); after that it starts afresh.
  await db.schema
    .createIndex('transactions_idempotency_key')
    .on('transactions')
    .columns(['merchant_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('transactions_order').on('transactions').columns(['order_id', 'created_at']).execute();
  await db.schema.createIndex('transactions_original').on('transactions').column('original_transaction_id').execute();
  // Recovery looks only at transactions between their two commits: a small partial index, not a table scan.
  await db.schema
    .createIndex('transactions_interrupted')
    .on('transactions')
    .column('rail_started_at')
    .where(sql<boolean>`progress = 'sending' or void_is_pending = 1`)
    .execute();
  await db.schema
    .createIndex('transactions_unsettled')
    .on('transactions')
    .columns(['merchant_id', 'settled_at', 'created_at'])
    .execute();

  // The sandbox acquirer's own ledger: what a real acquirer would know of our requests, kept apart from our
  // transactions so that a payment can be recovered from it after a crash.
  await db.schema
    .createTable('sandbox_acquirer_operations')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('original_reference', 'text')
    .addColumn('card_first6', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('card_brand', 'text')
    .addColumn('response_code', 'text', (c) => c.notNull())
    .addColumn('response_message', 'text', (c) => c.notNull())
    .addColumn('auth_code', 'text')
    .addColumn('rrn', 'text', (c) => c.notNull())
    .addColumn('challenge_token', 'text', (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_acquirer_operations_original')
    .on('sandbox_acquirer_operations')
    .column('original_reference')
    .execute();
}
