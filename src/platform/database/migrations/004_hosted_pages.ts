import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Links handed to payers (a payment page, a receipt: an order's; a card-binding page: a customer's): only a hash of the token is kept, so a copy of the
  // database does not hold working links.
  await db.schema
    .createTable('page_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.references('orders.id'))
    .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // Card attempts on a binding page that did not succeed (or are being tried): capped, like an order's page.
    .addColumn('declines', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('page_links_expiry').on('page_links').column('expires_at').execute();
  // Card attempts made on an order's payment page that were (or may yet be) declined: capped against card testing.
  await db.schema.alterTable('orders').addColumn('page_declines', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
