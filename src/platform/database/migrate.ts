import { type Migration, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import * as foundation from './migrations/001_foundation.js';
import * as orders from './migrations/002_orders.js';
import * as webhooks from './migrations/003_webhooks.js';
import * as hostedPages from './migrations/004_hosted_pages.js';
import * as paymentTokens from './migrations/005_payment_tokens.js';
import * as eventRetention from './migrations/006_event_retention.js';
import * as moduleShape from './migrations/007_module_shape.js';
import * as recurringCatalogue from './migrations/008_recurring_catalogue.js';
import * as recurringPlans from './migrations/009_recurring_plans.js';
import * as recurringBillingIndexes from './migrations/010_recurring_billing_indexes.js';
import * as batches from './migrations/011_batches.js';
import * as ledger from './migrations/012_ledger.js';
import * as issuing from './migrations/013_issuing.js';
import * as payouts from './migrations/014_payouts.js';
import * as payerActionKeys from './migrations/015_payer_action_keys.js';
import * as transactionsOrderIndex from './migrations/016_transactions_order_index.js';
import * as lab from './migrations/017_lab.js';
import * as deterministicRuns from './migrations/018_deterministic_runs.js';
import * as dashboardPeople from './migrations/019_dashboard_people.js';

/** Every migration, in order. A static list, so the compiled build needs no directory scan. */
export const MIGRATIONS: Record<string, Migration> = {
  '001_foundation': foundation,
  '002_orders': orders,
  '003_webhooks': webhooks,
  '004_hosted_pages': hostedPages,
  '005_payment_tokens': paymentTokens,
  '006_event_retention': eventRetention,
  '007_module_shape': moduleShape,
  '008_recurring_catalogue': recurringCatalogue,
  '009_recurring_plans': recurringPlans,
  '010_recurring_billing_indexes': recurringBillingIndexes,
  '011_batches': batches,
  '012_ledger': ledger,
  '013_issuing': issuing,
  '014_payouts': payouts,
  '015_payer_action_keys': payerActionKeys,
  '016_transactions_order_index': transactionsOrderIndex,
  '017_lab': lab,
  '018_deterministic_runs': deterministicRuns,
  '019_dashboard_people': dashboardPeople,
};

/**
 * Applies pending migrations, all in one transaction, and returns their names. Processes starting together
 * migrate once: on PostgreSQL the migrator holds an advisory lock, on SQLite the transaction's write lock
 * (BEGIN IMMEDIATE) makes the second wait and then find nothing to do.
 */
export async function migrate(
  database: Database,
  migrations: Record<string, Migration> = MIGRATIONS,
): Promise<string[]> {
  // Every command migrates first: when nothing is pending, say so without the migrator, whose checks read the
  // tables of every schema of a PostgreSQL database (and fail if another is being dropped meanwhile).
  if (await nothingPending(database, Object.keys(migrations))) return [];
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Without a schema the migrator takes a bookkeeping table in any schema of the database for its own.
    ...(database.engine === 'postgres' && { migrationTableSchema: await currentSchema(database) }),
  });
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await migrator.migrateToLatest();
    // The migrator's checks read the tables and columns of every schema of a PostgreSQL database: another schema
    // dropped or migrated at that moment (test schemas, other tenants) fails them with "schema / relation / column
    // does not exist", though nothing of ours changed. Look again (a real fault of ours fails every time).
    if (error && attempt < 5 && VANISHED_UNDER_INTROSPECTION.has(String((error as { code?: unknown }).code))) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      continue;
    }
    if (error) throw error;
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}

/** invalid_schema_name, undefined_table, undefined_column. */
const VANISHED_UNDER_INTROSPECTION = new Set(['3F000', '42P01', '42703']);

async function currentSchema(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path in DATABASE_URL');
  return schema;
}

async function nothingPending(database: Database, names: string[]): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from schema_migrations`.execute(database.db);
    const applied = new Set(rows.map((row) => row.name));
    return names.every((name) => applied.has(name));
  } catch {
    // No bookkeeping table yet (a new database), or it cannot be read: let the migrator decide.
    return false;
  }
}
