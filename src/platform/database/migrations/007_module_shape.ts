import { type Kysely, sql } from 'kysely';

/**
 * The shared mechanisms stop naming capabilities. An event names its subject (an order today) and keeps the
 * destination its subject gave it (callback_url, and the app that signs it), so redelivery reads no order. A
 * hosted link names its subject (an order, a customer) in one column. A payment token records when its rail call
 * began, so recovery finds an interrupted binding as it finds an interrupted payment.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').renameColumn('order_id', 'subject_id').execute();
  await db.schema.dropIndex('events_order').execute();
  await db.schema.createIndex('events_subject').on('events').columns(['merchant_id', 'subject_id', 'id']).execute();
  await db.schema.alterTable('events').addColumn('notify_url', 'text').execute();
  await db.schema.alterTable('events').addColumn('app_id', 'text').execute();
  await sql`UPDATE events SET
    notify_url = (SELECT orders.notify_url FROM orders WHERE orders.id = events.subject_id AND orders.merchant_id = events.merchant_id),
    app_id = (SELECT orders.app_id FROM orders WHERE orders.id = events.subject_id AND orders.merchant_id = events.merchant_id)
    WHERE subject_id IS NOT NULL`.execute(db);

  // Rebuilt rather than altered: SQLite cannot drop a column that a foreign key names.
  await db.schema
    .createTable('hosted_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO hosted_links (token_hash, kind, merchant_id, subject_id, created_at, expires_at)
    SELECT token_hash, kind, merchant_id, COALESCE(order_id, customer_id), created_at, expires_at FROM page_links
    WHERE order_id IS NOT NULL OR customer_id IS NOT NULL`.execute(db);
  await db.schema.dropTable('page_links').execute();
  await db.schema.createIndex('hosted_links_expiry').on('hosted_links').column('expires_at').execute();

  await db.schema.alterTable('payment_tokens').addColumn('rail_started_at', 'bigint').execute();
  // The wall time of its last change (updated_at is business time): a binding caught in flight is then recovered.
  await sql`UPDATE payment_tokens SET rail_started_at = updated_at - (SELECT merchants.clock_offset_ms FROM merchants WHERE merchants.id = payment_tokens.merchant_id)
    WHERE progress = 'sending'`.execute(db);
  await db.schema
    .createIndex('payment_tokens_interrupted')
    .on('payment_tokens')
    .columns(['progress', 'rail_started_at'])
    .execute();
}
