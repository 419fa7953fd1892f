import { type Kysely, sql } from 'kysely';

/**
 * Recurring plans, their cycles, and one row per billing time: the row's unique key (plan, cycle, sequence) is what
 * makes each billing time billed once, whatever crashes or how many processes run the engine.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('recurring_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('reference_number', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('currency_exponent', 'integer', (c) => c.notNull())
    .addColumn('default_collection_method', 'text', (c) => c.notNull())
    .addColumn('payment_token', 'text')
    .addColumn('payment_retry_count', 'integer', (c) => c.notNull())
    .addColumn('payment_retry_day_period', 'integer', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('redirect_url', 'text')
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('next_order_seq', 'integer', (c) => c.notNull())
    .addColumn('next_due_at', 'bigint')
    .addColumn('verify_url', 'text')
    .addColumn('cancel_at', 'bigint')
    .addColumn('app_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('recurring_plans_reference', ['merchant_id', 'reference_number'])
    .execute();
  await db.schema
    .createIndex('recurring_plans_list')
    .on('recurring_plans')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('recurring_plans_customer')
    .on('recurring_plans')
    .columns(['merchant_id', 'customer_id', 'state'])
    .execute();
  await db.schema
    .createIndex('recurring_plans_due')
    .on('recurring_plans')
    .columns(['merchant_id', 'next_due_at'])
    .where(sql.ref('next_due_at'), 'is not', null)
    .execute();

  await db.schema
    .createTable('recurring_cycles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('recurring_plans.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('billing_config_id', 'text', (c) => c.notNull().references('recurring_billing_configs.id'))
    .addColumn('discount_amount', 'bigint', (c) => c.notNull())
    .addColumn('estimated_start_at', 'bigint')
    .addColumn('estimated_end_at', 'bigint')
    .addColumn('interval_counts', 'integer')
    .addColumn('start_at', 'bigint')
    .addColumn('end_at', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('billing_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('recurring_cycles_position', ['plan_id', 'position'])
    .execute();

  await db.schema
    .createTable('recurring_cycle_items')
    .addColumn('cycle_id', 'text', (c) => c.notNull().references('recurring_cycles.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull().references('recurring_items.id'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('recurring_cycle_items_pk', ['cycle_id', 'position'])
    .execute();

  await db.schema
    .createTable('recurring_billings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('recurring_plans.id'))
    .addColumn('cycle_id', 'text', (c) => c.notNull().references('recurring_cycles.id'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('billing_at', 'bigint', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('period_end', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('retry_at', 'bigint')
    .addColumn('order_id', 'text', (c) => c.references('orders.id'))
    .addColumn('order_number', 'text')
    .addColumn('payment_uuid', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('recurring_billings_time', ['plan_id', 'cycle_id', 'sequence'])
    .execute();
  await db.schema
    .createIndex('recurring_billings_order')
    .on('recurring_billings')
    .columns(['merchant_id', 'order_id'])
    .execute();
  await db.schema
    .createIndex('recurring_billings_plan')
    .on('recurring_billings')
    .columns(['plan_id', 'billing_at'])
    .execute();
}
