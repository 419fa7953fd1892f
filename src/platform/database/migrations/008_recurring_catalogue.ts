import type { Kysely } from 'kysely';

/** What recurring plans are made of: reusable items (what is sold) and billing configs (how often). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('recurring_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('reference_id', 'text')
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('currency_exponent', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('recurring_items_list')
    .on('recurring_items')
    .columns(['merchant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('recurring_billing_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('interval_count', 'integer', (c) => c.notNull())
    .addColumn('billing_interval', 'text', (c) => c.notNull())
    .addColumn('billing_type', 'text', (c) => c.notNull())
    .addColumn('billing_month', 'integer')
    .addColumn('billing_day_of_month', 'integer')
    .addColumn('billing_proration_enabled', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('recurring_billing_configs_list')
    .on('recurring_billing_configs')
    .columns(['merchant_id', 'created_at'])
    .execute();
}
