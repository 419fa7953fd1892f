import type { Kysely } from 'kysely';

/**
 * The sandbox lab (docs/lab.md), per merchant: the capture inbox (what paygate sent to the merchant's built-in inbox
 * and to the endpoints it taps, with the answer and any injected fault), the endpoints tapped, the fault rules (on
 * deliveries and on the rails, with the fate a rule gave a payout's transfer, which every later call about it keeps), and the named snapshots of a merchant's world, stored in parts (a table's rows, a
 * page at a time, as JSON). Each webhook attempt says which fault rule shaped it, if one did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('fault', 'text').execute();
  await db.schema
    .createTable('lab_captures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('objects', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('signature_verified', 'integer', (c) => c.notNull())
    .addColumn('answer_status', 'integer')
    .addColumn('answer_body_excerpt', 'text')
    .addColumn('answer_error', 'text')
    .addColumn('answer_at', 'bigint', (c) => c.notNull())
    .addColumn('fault', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('wall_created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lab_captures_merchant').on('lab_captures').columns(['merchant_id', 'id']).execute();
  await db.schema
    .createIndex('lab_captures_retention')
    .on('lab_captures')
    .columns(['merchant_id', 'wall_created_at'])
    .execute();

  await db.schema
    .createTable('lab_taps')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lab_taps_pk', ['merchant_id', 'url'])
    .execute();

  await db.schema
    .createTable('lab_fault_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text')
    .addColumn('events', 'text')
    .addColumn('effect', 'text', (c) => c.notNull())
    .addColumn('next_count', 'integer')
    .addColumn('percent', 'integer')
    .addColumn('seed', 'text')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lab_fault_rules_merchant')
    .on('lab_fault_rules')
    .columns(['merchant_id', 'target'])
    .execute();

  await db.schema
    .createTable('lab_transfer_fates')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('fate', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lab_transfer_fates_pk', ['merchant_id', 'reference'])
    .execute();

  await db.schema
    .createTable('lab_snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('business_at', 'bigint', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .addColumn('byte_count', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lab_snapshots_name')
    .on('lab_snapshots')
    .columns(['merchant_id', 'name'])
    .unique()
    .execute();
  await db.schema
    .createTable('lab_snapshot_parts')
    .addColumn('snapshot_id', 'text', (c) => c.notNull().references('lab_snapshots.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lab_snapshot_parts_pk', ['snapshot_id', 'seq'])
    .execute();
}
