import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payment_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('verify_uuid', 'text', (c) => c.notNull().unique())
    .addColumn('verify_url', 'text')
    .addColumn('bind_reference', 'text', (c) => c.notNull())
    .addColumn('card_first6', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('card_brand', 'text')
    .addColumn('exp_month', 'text')
    .addColumn('exp_year', 'text')
    .addColumn('holder_name', 'text')
    .addColumn('billing_currency', 'text', (c) => c.notNull())
    .addColumn('billing_address', 'text')
    .addColumn('success_return_url', 'text')
    .addColumn('fail_return_url', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_msg', 'text')
    .addColumn('app_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('idempotency_expires_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_tokens_idempotency_key')
    .on('payment_tokens')
    .columns(['merchant_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('payment_tokens_customer')
    .on('payment_tokens')
    .columns(['merchant_id', 'customer_id', 'created_at'])
    .execute();
}
