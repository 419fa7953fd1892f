import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PaygateClient, PaygateError } from '@paygate/client';
import { type Database, openDatabase } from '../../src/platform/database/database.js';
import { CARDS, futureExpiry } from '../support/fixtures.js';
import { TEST_PRIVATE_KEY, TEST_PUBLIC_KEY } from '../support/keys.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { freePort, runCli, type ServeProcess, startServe } from '../support/processes.js';

const VISA = { number: CARDS.visa, ...futureExpiry(), cvv: '123' };
/** Charged at once, answered after 3 s: a kill during the wait loses the answer, not the charge. */
const SLOW = { ...VISA, number: '4000000000006207' };

/** One order and one payment, as a client sent them, and whether the client saw the payment acknowledged. */
interface Attempt {
  reference: string;
  paymentUuid: string;
  idempotencyKey: string;
  slow: boolean;
  sentAt?: number;
  acknowledged?: string;
}

describe('a server killed with SIGKILL in the middle of payments', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let schema: { url: string; drop(): Promise<void> } | undefined;
  let serve: ServeProcess | undefined;
  let client: PaygateClient;
  let database: Database;
  const attempts: Attempt[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-crash-'));
    schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    env = {
      PAYGATE_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      PAYGATE_DEMO: '0',
      // PostgreSQL recovery waits for calls this old; SQLite recovers at start.
      PAYGATE_RECOVERY_AFTER_MS: '2000',
      // and a dead process's Idempotency-Key claims are taken over after this (SQLite frees them at start).
      PAYGATE_IDEMPOTENCY_LOCK_MS: '6000',
      // and the killed process's job leases, recovery's among them if the kill caught it running, run out after this.
      PAYGATE_JOB_LEASE_MS: '5000',
      ...(schema ? { DATABASE_URL: schema.url } : {}),
    };
    const merchantId = JSON.parse((await runCli(['merchant', 'create', '--name', 'Crash', '--json'], env)).stdout)
      .merchant_id as string;
    const keyFile = join(dataDir, 'public.pem');
    writeFileSync(keyFile, TEST_PUBLIC_KEY);
    const appId = JSON.parse(
      (await runCli(['app', 'create', '--merchant', merchantId, '--public-key', keyFile, '--json'], env)).stdout,
    ).app_id as string;
    client = new PaygateClient({
      baseUrl: `http://127.0.0.1:${env.PORT}`,
      appId,
      privateKey: TEST_PRIVATE_KEY,
      retry: { maxAttempts: 1 },
      timeoutMs: 5_000,
    });
    serve = await startServe(env);
  });
  after(async () => {
    await serve?.stop();
    await database?.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Creates the order (again, harmlessly, on a retry) and pays it with the attempt's keys. */
  const pay = async (attempt: Attempt) => {
    await client.orders.create({ reference_number: attempt.reference, currency: 'HKD', charge_fee: '10.00' });
    attempt.sentAt ??= Date.now();
    const { transaction } = await client.orders.pay(
      { reference_number: attempt.reference },
      { uuid: attempt.paymentUuid, credit_card: attempt.slow ? SLOW : VISA },
      { idempotencyKey: attempt.idempotencyKey },
    );
    return transaction.uuid;
  };

  test('acknowledged payments survive exactly once, leftovers are resolved, retries never charge twice', async () => {
    // Load: eight clients paying orders until the server dies under them.
    let dead = false;
    const worker = async (index: number) => {
      while (!dead) {
        const attempt: Attempt = {
          reference: `CRASH-${randomUUID()}`,
          paymentUuid: randomUUID(),
          idempotencyKey: randomUUID(),
          slow: index < 2,
        };
        attempts.push(attempt);
        try {
          attempt.acknowledged = await pay(attempt);
        } catch {
          // Connection refused or reset: the server is gone; this attempt is retried after the restart.
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, index) => worker(index));
    // Kill once enough has been acknowledged and two slow payments are surely at the acquirer, unanswered.
    const inFlightSlow = () =>
      attempts.filter((a) => a.slow && !a.acknowledged && a.sentAt !== undefined && Date.now() - a.sentAt > 500);
    while (attempts.filter((a) => a.acknowledged).length < 40 || inFlightSlow().length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(await serve!.stop('SIGKILL'), null);
    dead = true;
    await Promise.all(workers);

    database = openDatabase({ databaseUrl: schema?.url, dataDir, sqliteSynchronous: 'FULL', pgPoolSize: 2 });
    const leftPending = await database.db
      .selectFrom('transactions')
      .select('id')
      .where('progress', '=', 'sending')
      .execute();
    assert.ok(leftPending.length >= 2, `the crash left payments between their two commits (${leftPending.length})`);
    serve = await startServe(env);
    const stillSending = async () =>
      Number(
        (
          await database.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('progress', '=', 'sending')
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (let waited = 0; (await stillSending()) > 0; waited += 100) {
      // A bound, not a speed target: on PostgreSQL, the killed process's lease on recovery (5 s), then recovery's
      // period.
      assert.ok(waited < 30_000, 'pending records left by the crash are resolved after the restart');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The slow payments the crash caught were charged at the acquirer: recovery recorded them as succeeded.
    for (const { id } of leftPending) {
      const row = await database.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const operation = await database.db
        .selectFrom('sandbox_acquirer_operations')
        .select('status')
        .where('reference', '=', id)
        .executeTakeFirst();
      assert.equal(
        row.status,
        operation?.status === 'approved' ? 'succeeded' : 'failed',
        `recovery recorded what the acquirer did with ${id}`,
      );
    }

    // Every payment the client saw acknowledged is there, once.
    for (const attempt of attempts.filter((a) => a.acknowledged)) {
      const rows = await database.db
        .selectFrom('transactions')
        .select(['id', 'status'])
        .where('payment_uuid', '=', attempt.paymentUuid)
        .execute();
      assert.deepEqual(rows, [{ id: attempt.acknowledged, status: 'succeeded' }]);
    }

    // Retrying the others with the same keys settles each one, and never charges twice.
    await Promise.all(
      attempts
        .filter((a) => !a.acknowledged)
        .map(async (attempt) => {
          for (let tries = 0; ; tries += 1) {
            try {
              attempt.acknowledged = await pay(attempt);
              return;
            } catch (error) {
              // 409: a claim of the dead process, taken over once its lock runs out (PostgreSQL cannot know it died).
              if (!(error instanceof PaygateError && error.errorCode === '100303' && tries < 100)) throw error;
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        }),
    );
    for (const attempt of attempts) {
      const order = await client.orders.check({ order: { reference_number: attempt.reference } });
      const charges = order.transactions.filter((t) => t.success);
      assert.ok(charges.length <= 1, `${attempt.reference} was charged ${charges.length} times`);
      const approved = await database.db
        .selectFrom('sandbox_acquirer_operations')
        .select('reference')
        .where('reference', 'in', order.transactions.map((t) => t.uuid).concat(['-']))
        .where('status', '=', 'approved')
        .execute();
      assert.equal(approved.length, charges.length, 'the acquirer charged exactly what the platform recorded');
      assert.equal(order.paid_total, charges.length === 1 ? '10.00' : '0.00');
    }
    assert.ok(attempts.some((a) => !a.acknowledged) || attempts.length > 40);
  });
});
