import type { Kysely } from 'kysely';

/**
 * The dashboard's people (docs/dashboard.md): who may sign in to a merchant's dashboard, with a role and a scrypt
 * hash of their password; their sessions (kept by a hash of the cookie's id, with the form token of the session);
 * the audit log of what they did; and the failed sign-ins counted per address and per account, so that every
 * process refuses the same guesses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboard_people')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_people_merchant').on('dashboard_people').columns(['merchant_id']).execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('person_id', 'text', (c) => c.notNull().references('dashboard_people.id'))
    .addColumn('form_token', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_person').on('dashboard_sessions').columns(['person_id']).execute();

  await db.schema
    .createTable('dashboard_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('person_id', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dashboard_audit_merchant')
    .on('dashboard_audit')
    .columns(['merchant_id', 'id'])
    .execute();

  await db.schema
    .createTable('dashboard_sign_in_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .execute();
}
