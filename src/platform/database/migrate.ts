import { Migrator, sql, type Migration } from 'kysely';
import type { Database } from './database.js';
import * as foundation from './migrations/001_foundation.js';
import * as orders from './migrations/002_orders.js';

/** Every migration, in order. A static list, so the compiled build needs no directory scan. */
export const MIGRATIONS: Record<string, Migration> = {
  '001_foundation': foundation,
  '002_orders': orders,
};

/**
 * Applies pending migrations, all in one transaction, and returns their names. Processes starting together
 * migrate once: on PostgreSQL the migrator holds an advisory lock, on SQLite the transaction's write lock
 * (BEGIN IMMEDIATE) makes the second wait and then find nothing to do.
 */
export async function migrate(database: Database, migrations: Record<string, Migration> = MIGRATIONS): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Without a schema the migrator takes a bookkeeping table in any schema of the database for its own.
    ...(database.engine === 'postgres' && { migrationTableSchema: await currentSchema(database) }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function currentSchema(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path in DATABASE_URL');
  return schema;
}
