import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Selectable, sql } from 'kysely';
import {
  type Database,
  openDatabase,
  preparedInsert,
  preparedInsertRows,
  preparedPatch,
  preparedQuery,
  preparedRead,
} from '../../src/platform/database/database.js';
import { migrate } from '../../src/platform/database/migrate.js';
import type { MerchantsTable } from '../../src/platform/database/schema.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';

// The hot statements compiled once and run from their SQL (src/platform/database/database.ts), on the engine the
// suite runs on: what they write and read must be what Kysely's own builder would have written and read.

const insertMerchant = preparedInsert('merchants', {
  id: true,
  name: true,
  timezone: true,
  settlement_hour: true,
  clock_offset_ms: true,
  clock_frozen_at: true,
  id_seed: true,
  ids_drawn: true,
  created_at: true,
  updated_at: true,
});
const insertMerchants = preparedInsertRows(
  'merchants',
  {
    id: true,
    name: true,
    timezone: true,
    settlement_hour: true,
    clock_offset_ms: true,
    clock_frozen_at: true,
    id_seed: true,
    ids_drawn: true,
    created_at: true,
    updated_at: true,
  },
  { onConflictDoNothing: ['id'], returning: 'id' },
);
const merchantById = preparedQuery((db, p: { id: string }) =>
  db.selectFrom('merchants').selectAll().where('id', '=', p.id),
);
const merchantNamed = preparedRead((db, p: { name: string }) =>
  db.selectFrom('merchants').select(['id', 'name']).where('name', '=', p.name),
);
const patchMerchant = preparedPatch((db, set: Partial<MerchantRow>, p: { id: string }) =>
  db
    .updateTable('merchants')
    .set(set)
    .where('id', '=', p.id)
    .where('timezone', 'in', ['UTC', 'Asia/Hong_Kong'])
    .returningAll(),
);

type MerchantRow = Selectable<MerchantsTable>;

const merchant = (id: string, name: string): MerchantRow => ({
  id,
  name,
  timezone: 'UTC',
  settlement_hour: 23,
  clock_offset_ms: 0,
  clock_frozen_at: null,
  id_seed: null,
  ids_drawn: 0,
  created_at: 1_000,
  updated_at: 1_000,
});

describe('prepared statements', () => {
  let dataDir: string;
  let schema: Awaited<ReturnType<typeof createTestSchema>> | undefined;
  let database: Database;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-prepared-'));
    schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    database = openDatabase({ databaseUrl: schema?.url, dataDir, sqliteSynchronous: 'FULL', pgPoolSize: 2 });
    await migrate(database);
  });
  after(async () => {
    await database.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('an insert writes every column of the row, and a query reads it back as the builder does', async () => {
    const row = merchant('m-insert', 'Wong Trading');
    await insertMerchant(database.db, row);
    const built = await database.db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual((await merchantById(database.db, { id: row.id })).rows, [built]);
    assert.equal(built.settlement_hour, 23);
    assert.equal(built.clock_offset_ms, 0);
    assert.deepEqual((await merchantById(database.db, { id: 'no-such-merchant' })).rows, []);
  });

  test('inside a transaction they see its own writes, and what it rolled back is gone', async () => {
    await assert.rejects(
      database.db.transaction().execute(async (tx) => {
        await insertMerchant(tx, merchant('m-rolled-back', 'Chan Stores'));
        assert.equal((await merchantById(tx, { id: 'm-rolled-back' })).rows[0]?.name, 'Chan Stores');
        assert.deepEqual(await merchantNamed({ database, db: tx }, { name: 'Chan Stores' }), {
          id: 'm-rolled-back',
          name: 'Chan Stores',
        });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual((await merchantById(database.db, { id: 'm-rolled-back' })).rows, []);
    assert.equal(await merchantNamed({ database, db: database.db }, { name: 'Chan Stores' }), undefined);
  });

  test('a patch sets the columns it names and no other; an undefined value leaves its column alone', async () => {
    await insertMerchant(database.db, merchant('m-patch', 'Lee Bakery'));
    const renamed = await patchMerchant(database.db, { name: 'Lee Bakery Ltd', updated_at: 2_000 }, { id: 'm-patch' });
    assert.deepEqual(
      renamed.rows.map((row) => [row.name, row.settlement_hour, row.updated_at]),
      [['Lee Bakery Ltd', 23, 2_000]],
    );
    // Another set of columns is another statement; the first still runs as it did.
    const moved = await patchMerchant(
      database.db,
      { settlement_hour: 6, name: undefined, updated_at: 3_000 },
      { id: 'm-patch' },
    );
    assert.deepEqual(
      moved.rows.map((row) => [row.name, row.settlement_hour, row.updated_at]),
      [['Lee Bakery Ltd', 6, 3_000]],
    );
    const again = await patchMerchant(database.db, { name: 'Lee Bakery', updated_at: 4_000 }, { id: 'm-patch' });
    assert.deepEqual(
      again.rows.map((row) => [row.name, row.settlement_hour, row.updated_at]),
      [['Lee Bakery', 6, 4_000]],
    );
    assert.equal(
      Number((await patchMerchant(database.db, { name: 'Nobody' }, { id: 'no-such-merchant' })).numAffectedRows ?? 0),
      0,
    );
  });

  test('many rows go in together, each with its own values, whatever their number; a duplicate is left out and does not answer', async () => {
    // 0, 1, sizes between the statement sizes, and one over the largest: every row lands once, in order.
    for (const count of [0, 1, 3, 5, 17, 84, 300]) {
      const rows = Array.from({ length: count }, (_, i) => ({
        ...merchant(`m-many-${count}-${i}`, `Shop ${count}/${i}`),
        settlement_hour: i % 24,
        created_at: i,
      }));
      assert.deepEqual(
        await insertMerchants(database.db, rows),
        rows.map((row) => row.id),
        `${count} rows`,
      );
      const stored = await database.db
        .selectFrom('merchants')
        .select(['id', 'name', 'settlement_hour', 'created_at'])
        .where('id', 'like', `m-many-${count}-%`)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        stored,
        rows.map(({ id, name, settlement_hour, created_at }) => ({ id, name, settlement_hour, created_at })),
        `${count} rows`,
      );
    }
    const again = [merchant('m-many-5-2', 'Changed'), merchant('m-many-new', 'New Shop')];
    assert.deepEqual(await insertMerchants(database.db, again), ['m-many-new']);
    assert.equal((await merchantById(database.db, { id: 'm-many-5-2' })).rows[0]?.name, 'Shop 5/2');
  });

  test('in a transaction a statement sees its writes and is undone with it; after the transaction ends it is refused', async () => {
    const open = await database.db.startTransaction().execute();
    await insertMerchant(open, merchant('m-tx', 'Chan Florist'));
    await patchMerchant(open, { name: 'Chan Florist Ltd', updated_at: 5_000 }, { id: 'm-tx' });
    assert.deepEqual(await insertMerchants(open, [merchant('m-tx-2', 'Ho Tailor')]), ['m-tx-2']);
    assert.deepEqual(
      (await merchantById(open, { id: 'm-tx' })).rows.map((row) => [row.name, row.updated_at]),
      [['Chan Florist Ltd', 5_000]],
    );
    await open.rollback().execute();
    assert.equal((await merchantById(database.db, { id: 'm-tx' })).rows.length, 0);
    assert.equal((await merchantById(database.db, { id: 'm-tx-2' })).rows.length, 0);
    await assert.rejects(merchantById(open, { id: 'm-tx' }), /already (committed|rolled back)/);
    await assert.rejects(patchMerchant(open, { name: 'Late' }, { id: 'm-tx' }), /already (committed|rolled back)/);
    await assert.rejects(insertMerchants(open, [merchant('m-tx-3', 'Late Shop')]), /already (committed|rolled back)/);
    assert.equal((await merchantById(database.db, { id: 'm-tx-3' })).rows.length, 0);
  });

  test('a statement that inlines a parameter instead of binding it is refused when it is first compiled, not run with the first values for good', async () => {
    const inlined = preparedQuery((db, p: { name: string }) =>
      db.selectFrom('merchants').select('id').where('name', '=', sql.lit(p.name)),
    );
    await assert.rejects(inlined(database.db, { name: 'Wong Trading' }), /must bind its parameters as they are/);
  });
});
