import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { PlatformContext } from '../../src/context/context.js';
import { checkLedger } from '../../src/ledger/check.js';
import { LEDGER_SOURCES } from '../../src/modules.js';
import { systemClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { MIGRATIONS, migrate } from '../../src/platform/database/migrate.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';

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
  test('a table or column vanishing under the migrator (another schema migrated or dropped meanwhile) is looked at again', async () => {
    await withDatabase(async (database) => {
      let failures = 0;
      const flaky = {
        ...MIGRATIONS,
        '999_meets_a_vanished_column': {
          async up() {
            // What PostgreSQL answers when the migrator's introspection meets another schema's DDL half-way.
            if (failures < 2) {
              failures += 1;
              throw Object.assign(new Error('column "attempts" of relation "webhook_deliveries" does not exist'), {
                code: '42703',
              });
            }
          },
        },
      };
      assert.deepEqual(await migrate(database, flaky), Object.keys(flaky));
      assert.equal(failures, 2);
    });
  });

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
      const current =
        database.engine === 'postgres'
          ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s
          : undefined;
      const tables = (await database.db.introspection.getTables())
        .filter((t) => t.schema === current)
        .map((t) => t.name);
      assert.ok(!tables.includes('half_done'), 'the failed migration was rolled back');
      assert.ok(!tables.includes('customers'), 'so were the migrations of the same run');
      assert.deepEqual(await migrate(database), Object.keys(MIGRATIONS));
      assert.deepEqual(await migrate(database), []);
    });
  });

  test("a database made before the module shape keeps its events' destinations, its links and its bindings in flight", async () => {
    await withDatabase(async (database) => {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '007'));
      await migrate(database, before);
      const db = database.db;
      await sql`INSERT INTO merchants (id, name, timezone, clock_offset_ms, settlement_hour, created_at, updated_at)
        VALUES ('m1', 'M', 'UTC', 0, 23, 1, 1)`.execute(db);
      await sql`INSERT INTO customers (id, merchant_id, reference_number, name, phone, created_at, updated_at)
        VALUES ('c1', 'm1', 'C-1', 'Chan', '123', 1, 1)`.execute(db);
      await sql`INSERT INTO orders (id, merchant_id, number, reference_number, source, type, currency, currency_exponent, initial_total,
        initial_tips, subtotal, paid_total, state, correspondence_state, notify_url, content_hash, app_id, created_at, updated_at)
        VALUES ('o1', 'm1', '1', 'R-1', 'OpenAPI', 'Online', 'HKD', 2, 100, 0, 100, 0, 'invoiced', 'unpaid', 'https://shop.example/cb', 'h', 'a1', 1, 1)`.execute(
        db,
      );
      await sql`INSERT INTO events (id, merchant_id, order_id, action, payload, created_at, wall_created_at)
        VALUES ('e1', 'm1', 'o1', 'order.created', '{}', 1, 1), ('e2', 'm1', NULL, 'payment_token.deleted', '{}', 1, 1)`.execute(
        db,
      );
      await sql`INSERT INTO page_links (token_hash, kind, merchant_id, order_id, customer_id, created_at, expires_at)
        VALUES ('h1', 'payment', 'm1', 'o1', NULL, 1, 2), ('h2', 'binding', 'm1', NULL, 'c1', 1, 2)`.execute(db);
      await sql`INSERT INTO payment_tokens (id, merchant_id, customer_id, token, token_type, state, progress, verify_uuid, bind_reference,
        billing_currency, created_at, updated_at) VALUES ('t1', 'm1', 'c1', 'tok', 'CreditCard', 'pending', 'sending', 'v1', 't1', 'HKD', 5, 7)`.execute(
        db,
      );

      // 007 and every migration after it (later capabilities add theirs).
      assert.deepEqual(
        await migrate(database),
        Object.keys(MIGRATIONS).filter((name) => name >= '007'),
      );
      const events = await db
        .selectFrom('events')
        .select(['id', 'subject_id', 'notify_url', 'app_id'])
        .orderBy('id')
        .execute();
      assert.deepEqual(events, [
        { id: 'e1', subject_id: 'o1', notify_url: 'https://shop.example/cb', app_id: 'a1' },
        { id: 'e2', subject_id: null, notify_url: null, app_id: null },
      ]);
      const links = await db
        .selectFrom('hosted_links')
        .select(['token_hash', 'kind', 'subject_id'])
        .orderBy('token_hash')
        .execute();
      assert.deepEqual(links, [
        { token_hash: 'h1', kind: 'payment', subject_id: 'o1' },
        { token_hash: 'h2', kind: 'binding', subject_id: 'c1' },
      ]);
      const token = await db
        .selectFrom('payment_tokens')
        .select('rail_started_at')
        .where('id', '=', 't1')
        .executeTakeFirstOrThrow();
      assert.equal(Number(token.rail_started_at), 7);
    });
  });

  test('a database made before wallets keeps its open 3-D Secure challenges as payer actions', async () => {
    await withDatabase(async (database) => {
      const upTo002 = { '001_foundation': MIGRATIONS['001_foundation']!, '002_orders': MIGRATIONS['002_orders']! };
      await migrate(database, upTo002);
      await sql`INSERT INTO sandbox_acquirer_operations (reference, merchant_id, kind, status, amount, currency, original_reference,
        card_first6, card_last4, card_brand, response_code, response_message, auth_code, rrn, challenge_token, created_at, updated_at)
        VALUES ('r1', 'm1', 'sale', 'challenge', 2000, 'HKD', NULL, '400000', '3220', 'Visa', '1A', 'Additional customer authentication required',
        NULL, '123456789012', 'tok1', 1, 1)`.execute(database.db);
      assert.deepEqual(
        await migrate(database),
        Object.keys(MIGRATIONS).filter((name) => !(name in upTo002)),
      );
      const row = (
        await sql<
          Record<string, unknown>
        >`SELECT status, payer_token, payment_method FROM sandbox_acquirer_operations WHERE reference = 'r1'`.execute(
          database.db,
        )
      ).rows[0];
      assert.deepEqual(row, { status: 'awaiting_payer', payer_token: 'tok1', payment_method: 'credit_card' });
      const current =
        database.engine === 'postgres'
          ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s
          : undefined;
      const columns = (await database.db.introspection.getTables())
        .find((t) => t.name === 'transactions' && t.schema === current)!
        .columns.map((c) => c.name);
      assert.ok(columns.includes('payer_action') && !columns.includes('three_ds'));
    });
  });
  test('a database made before the ledger is backfilled from its transactions, so that the check finds nothing', async () => {
    await withDatabase(async (database) => {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '012'));
      await migrate(database, before);
      const db = database.db;
      await sql`INSERT INTO merchants (id, name, timezone, clock_offset_ms, settlement_hour, created_at, updated_at)
        VALUES ('m1', 'M', 'Asia/Hong_Kong', 0, 23, 1, 1), ('m2', 'N', 'UTC', 0, 23, 1, 1)`.execute(db);
      await sql`INSERT INTO orders (id, merchant_id, number, reference_number, source, type, currency, currency_exponent, initial_total,
        initial_tips, subtotal, paid_total, state, correspondence_state, notify_url, content_hash, app_id, created_at, updated_at)
        VALUES ('o1', 'm1', '1', 'R-1', 'OpenAPI', 'Online', 'HKD', 2, 100000, 0, 100000, 0, 'invoiced', 'unpaid', NULL, 'h', NULL, 1, 1),
               ('o2', 'm2', '2', 'R-2', 'OpenAPI', 'Online', 'JPY', 0, 5000, 0, 5000, 0, 'invoiced', 'unpaid', NULL, 'h', NULL, 1, 1)`.execute(
        db,
      );
      const transaction = (
        id: string,
        merchant: string,
        order: string,
        type: string,
        currency: string,
        amount: number,
        status: string,
        extra: { voided?: number; settledAt?: number | null; original?: string | null; createdAt?: number } = {},
      ) =>
        sql`
        INSERT INTO transactions (id, merchant_id, order_id, type, payment_method, currency, amount, status, progress, captured, voided,
          void_reason, voided_at, void_is_pending, settled_at, expires_at, original_transaction_id, payment_uuid, idempotency_key,
          idempotency_expires_at, void_idempotency_key, note, payment_data, payer_action, rail_started_at, created_at, updated_at)
        VALUES (${id}, ${merchant}, ${order}, ${type}, 'credit_card', ${currency}, ${amount}, ${status}, 'done', 0, ${extra.voided ?? 0},
          NULL, ${extra.voided ? 5 : null}, 0, ${extra.settledAt ?? null}, NULL, ${extra.original ?? null}, NULL, NULL, NULL, NULL, NULL, '{}',
          NULL, NULL, ${extra.createdAt ?? 2}, 2)`.execute(db);
      await transaction('t-settled', 'm1', 'o1', 'Sales', 'HKD', 30000, 'succeeded', { settledAt: 10 });
      await transaction('t-refund', 'm1', 'o1', 'Refund', 'HKD', 5000, 'succeeded', {
        original: 't-settled',
        settledAt: 20,
        createdAt: 15,
      });
      await transaction('t-voided', 'm1', 'o1', 'Sales', 'HKD', 20000, 'succeeded', { voided: 1 });
      await transaction('t-open', 'm1', 'o1', 'Sales', 'HKD', 12345, 'succeeded');
      await transaction('t-failed', 'm1', 'o1', 'Sales', 'HKD', 999, 'failed');
      await transaction('t-auth', 'm2', 'o2', 'Authorization', 'JPY', 5000, 'succeeded');
      await transaction('t-capture', 'm2', 'o2', 'Capture', 'JPY', 4000, 'succeeded', { original: 't-auth' });

      assert.deepEqual(
        await migrate(database),
        Object.keys(MIGRATIONS).filter((name) => name >= '012'),
      );
      const platform = {
        db,
        database,
        wallClock: systemClock,
        config: loadConfig({ PAYGATE_DATA_DIR: tmpdir() }),
        ledgerSources: LEDGER_SOURCES,
      } as unknown as PlatformContext;
      assert.deepEqual((await checkLedger(platform)).differences, []);
      const balances = await db
        .selectFrom('ledger_accounts')
        .select(['merchant_id', 'currency', 'account', 'balance'])
        .orderBy('merchant_id')
        .orderBy('account')
        .execute();
      assert.deepEqual(
        balances.map((b) => [b.merchant_id, b.currency, b.account, Number(b.balance)]),
        [
          ['m1', 'HKD', 'acquirer_clearing', -30000 + 5000 - 12345],
          ['m1', 'HKD', 'available', 30000 - 5000],
          ['m1', 'HKD', 'incoming', 12345],
          ['m2', 'JPY', 'acquirer_clearing', -4000],
          ['m2', 'JPY', 'incoming', 4000],
        ],
      );
      const types = await db
        .selectFrom('ledger_entries')
        .select(['source_id', 'type'])
        .orderBy('source_id')
        .orderBy('type')
        .execute();
      assert.deepEqual(
        types.map((t) => `${t.source_id} ${t.type}`),
        [
          't-capture capture',
          't-open payment',
          't-refund refund',
          't-settled payment',
          't-settled settlement',
          't-voided payment',
          't-voided void',
        ],
      );
    });
  });
});
