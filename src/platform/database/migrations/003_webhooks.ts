import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await payerActions(db);
  await db.schema.alterTable('apps').addColumn('webhook_url', 'text').execute();
  await db.schema.alterTable('orders').addColumn('app_id', 'text').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('wall_created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_order').on('events').columns(['merchant_id', 'order_id', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('attempts_before_redelivery', 'integer', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('due_wall_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'due_wall_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_merchant_due')
    .on('webhook_deliveries')
    .columns(['merchant_id', 'state', 'due_at'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_recent').on('webhook_deliveries').columns(['created_at']).execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['event_id', 'destination'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('business_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .unique()
    .execute();
  await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').columns(['event_id']).execute();
}

/**
 * Wallet payments wait for their payer as 3-D Secure challenges do: one "payer action" for both. The 3-D Secure
 * columns of 002 are renamed and their values carried over, so databases made by earlier versions keep working.
 */
async function payerActions(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').renameColumn('three_ds', 'payer_action').execute();
  const open = await sql<{
    id: string;
    payer_action: string;
  }>`SELECT id, payer_action FROM transactions WHERE payer_action IS NOT NULL`.execute(db);
  for (const row of open.rows) {
    const { redirect_url: redirectUrl } = JSON.parse(row.payer_action) as { redirect_url: string };
    await sql`UPDATE transactions SET payer_action = ${JSON.stringify({ kind: '3ds', redirect_url: redirectUrl })} WHERE id = ${row.id}`.execute(
      db,
    );
  }
  await db.schema.alterTable('sandbox_acquirer_operations').renameColumn('challenge_token', 'payer_token').execute();
  await db.schema
    .alterTable('sandbox_acquirer_operations')
    .addColumn('payment_method', 'text', (c) => c.notNull().defaultTo('credit_card'))
    .execute();
  await sql`UPDATE sandbox_acquirer_operations SET status = 'awaiting_payer' WHERE status = 'challenge'`.execute(db);
}
