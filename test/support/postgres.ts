import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL the suite runs against, or undefined for SQLite. */
export const POSTGRES_URL = process.env.DATABASE_URL || undefined;

/**
 * A fresh schema for one test server, so test files running at the same time never see each other's rows
 * (and the scheduler's jobs stay separate). Returns the connection string that selects it.
 */
export async function createTestSchema(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `paygate_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: baseUrl });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.end();
    },
  };
}
