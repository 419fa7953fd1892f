import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Links handed to payers (a payment page, a receipt: an order's; a card-binding page: a customer's): only a hash of
  // the token is kept, so a copy of the
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
    .execute();
  await db.schema.createIndex('page_links_expiry').on('page_links').column('expires_at').execute();
  // Card attempts on a hosted page that did not pay (or save the card), or are being tried, per subject (an order's
  // payment page, a binding link): capped against card testing.
  await db.schema
    .createTable('card_attempts')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('declines', 'integer', (c) => c.notNull())
    .execute();
}
