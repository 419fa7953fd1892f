import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../src/platform/database/database.js';
import { migrate, MIGRATIONS } from '../src/platform/database/migrate.js';
import { createTestSchema, POSTGRES_URL } from './support/postgres.js';

async function withDatabase(work: (database: ReturnType<typeof openDatabase>) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-migrate-'));
  const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
  const database = openDatabase({ databaseUrl: schema?.url, dataDir, sqliteSynchronous: 'FULL', pgPoolSize: 2 });
  try {
    await work(database);
  } finally {
    await database.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('migrations', () => {
  test('a migration that fails part-way leaves nothing behind, and the next start migrates cleanly', async () => {
    await withDatabase(async (database) => {
      const broken = {
        ...MIGRATIONS,
        '999_broken': {
          async up(db: Kysely<unknown>) {
            await db.schema.createTable('half_done').addColumn('id', 'text').execute();
            await sql`this is not sql`.execute(db);
          },
        },
      };
      await assert.rejects(migrate(database, broken));
      // Introspection lists every schema of a PostgreSQL database: keep the one this test migrates.
      const current = database.engine === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s
        : undefined;
      const tables = (await database.db.introspection.getTables()).filter((t) => t.schema === current).map((t) => t.name);
      assert.ok(!tables.includes('half_done'), 'the failed migration was rolled back');
      assert.ok(!tables.includes('customers'), 'so were the migrations of the same run');
      assert.deepEqual(await migrate(database), Object.keys(MIGRATIONS));
      assert.deepEqual(await migrate(database), []);
    });
  });
});
