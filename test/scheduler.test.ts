import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { openNonceStore } from '../src/http/auth/nonce-store.js';
import { claimIdempotencyKey, IDEMPOTENCY_TTL_MS } from '../src/http/idempotency/idempotency.js';
import { createMerchant } from '../src/merchants/merchants.js';
import type { Context, PlatformContext } from '../src/platform/context.js';
import { registerMaintenanceJobs } from '../src/scheduler/maintenance.js';
import { Scheduler } from '../src/scheduler/scheduler.js';
import { openTestPlatform, type TestPlatform } from './support/platform.js';
import { TestClock } from './support/server.js';

const HOUR = 3_600_000;

describe('the scheduler', () => {
  const clock = new TestClock().freeze();
  let platform: TestPlatform;
  let ctx: PlatformContext;
  const scheduler = (options: { owner?: string; leaseMs?: number; maxAttempts?: number } = {}, on: PlatformContext = ctx) =>
    new Scheduler({ platform: on, pollMs: 50, ...options });
  const jobRow = (id: string) => ctx.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const jobByKey = (key: string) => ctx.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', key).executeTakeFirstOrThrow();
  const setOffset = (merchantId: string, offsetMs: number) =>
    ctx.db.updateTable('merchants').set({ clock_offset_ms: offsetMs }).where('id', '=', merchantId).execute();

  before(async () => {
    platform = await openTestPlatform(clock);
    ctx = platform.platform;
  });
  after(() => platform.close());

  test('purges expired nonces and idempotency records, and runs again on its period', async () => {
    const nonces = openNonceStore(ctx.database);
    try {
      const now = clock.now().getTime();
      assert.equal(await nonces.claim('app-1', 'OldNonce00000001', now - 1, now - 2 * HOUR), true);
      assert.equal(await nonces.claim('app-1', 'LiveNonce0000001', now + HOUR, now), true);
      const merchant = await createMerchant(ctx, { name: 'Purge' });
      await claimIdempotencyKey(ctx.db, { merchantId: merchant.merchant_id, key: 'k-old', fingerprint: 'f', now: now - IDEMPOTENCY_TTL_MS - 1 });
      await claimIdempotencyKey(ctx.db, { merchantId: merchant.merchant_id, key: 'k-live', fingerprint: 'f', now });

      const maintenance = scheduler();
      registerMaintenanceJobs(maintenance, { nonces });
      await maintenance.start();
      await maintenance.stop();
      await maintenance.runDue();

      // The expired nonce is gone (free to claim again); the live one is still held.
      assert.equal(await nonces.claim('app-1', 'OldNonce00000001', now + HOUR, now), true);
      assert.equal(await nonces.claim('app-1', 'LiveNonce0000001', now + HOUR, now), false);
      const keys = await ctx.db.selectFrom('idempotency_keys').select('idempotency_key').where('merchant_id', '=', merchant.merchant_id).execute();
      assert.deepEqual(keys.map((k) => k.idempotency_key), ['k-live']);

      const periodic = await jobByKey('periodic:purge-nonces');
      assert.equal(periodic.state, 'pending');
      assert.equal(periodic.due_at, now + 60_000);
      assert.equal(await maintenance.runDue(), 0, 'nothing is due until the period has passed');
      clock.advance(60_000);
      assert.equal(await maintenance.runDue(), 1);
    } finally {
      nonces.close();
    }
  });

  test("a merchant's job falls due on that merchant's business clock, and one merchant's clock moves no other's", async () => {
    const ran: Array<{ merchant: string; businessNow: number }> = [];
    const runner = scheduler().register('test.remind', async (jobCtx) => {
      const merchantCtx = jobCtx as Context;
      ran.push({ merchant: merchantCtx.merchant.id, businessNow: merchantCtx.clock.now().getTime() });
    });
    const early = await createMerchant(ctx, { name: 'Early' });
    const late = await createMerchant(ctx, { name: 'Late' });
    const dueAt = clock.now().getTime() + 2 * HOUR;
    for (const merchant of [early, late]) {
      await runner.enqueue({ kind: 'test.remind', merchantId: merchant.merchant_id, dueAt });
    }

    assert.equal(await runner.runDue(), 0);
    await setOffset(early.merchant_id, 2 * HOUR + 1000);
    assert.equal(await runner.runDue(), 1);
    assert.equal(ran.length, 1);
    assert.equal(ran[0]!.merchant, early.merchant_id);
    assert.ok(ran[0]!.businessNow >= dueAt, 'the job sees the business time it was due at');
    assert.equal(await runner.runDue(), 0, "the other merchant's job waits for its own clock");
  });

  test('a failing job is retried with backoff, then given up after its attempts', async () => {
    let calls = 0;
    const flaky = scheduler({ maxAttempts: 3 }).register('test.flaky', async () => {
      calls += 1;
      throw new Error(`boom ${calls}`);
    });
    const id = randomUUID();
    await ctx.db.insertInto('jobs').values({
      id, kind: 'test.flaky', merchant_id: null, due_at: clock.now().getTime(), payload: 'null', state: 'pending',
      attempts: 0, lease_owner: null, lease_expires_at: null, last_error: null, dedupe_key: null,
      created_at: 0, updated_at: 0,
    }).execute();

    await flaky.runDue();
    let row = await jobRow(id);
    assert.equal(row.state, 'pending');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, 'boom 1');
    assert.ok(row.due_at >= clock.now().getTime() + 10_000, 'the retry waits');

    for (let attempt = 2; attempt <= 3; attempt += 1) {
      clock.advance(HOUR);
      await flaky.runDue();
    }
    row = await jobRow(id);
    assert.equal(row.state, 'dead');
    assert.equal(row.attempts, 3);
    assert.equal(row.last_error, 'boom 3');
    clock.advance(24 * HOUR);
    assert.equal(await flaky.runDue(), 0);
    assert.equal(calls, 3);
  });

  test('a leased job is not run by another scheduler until the lease runs out (its process died)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runs: string[] = [];
    const first = scheduler({ owner: 'first', leaseMs: 30_000 }).register('test.slow', async () => {
      runs.push('first');
      await held;
    });
    const second = scheduler({ owner: 'second', leaseMs: 30_000 }).register('test.slow', async () => {
      runs.push('second');
    });
    await first.enqueue({ kind: 'test.slow', merchantId: null, dueAt: clock.now().getTime() });

    const firstRun = first.runDue();
    while (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await second.runDue(), 0, 'leased to the first scheduler');

    clock.advance(31_000);
    assert.equal(await second.runDue(), 1, 'the lease ran out: the job is taken over');
    release();
    await firstRun;
    assert.deepEqual(runs, ['first', 'second']);
  });

  test('two schedulers on separate connections run each of 100 jobs exactly once', async () => {
    const counts = new Map<string, number>();
    const handler = async (_: unknown, payload: unknown) => {
      const key = String((payload as { n: number }).n);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const sibling = await platform.openSibling(clock);
    const a = scheduler({ owner: 'a' }).register('test.count', handler);
    const b = scheduler({ owner: 'b' }, sibling.platform).register('test.count', handler);
    for (let n = 0; n < 100; n += 1) await a.enqueue({ kind: 'test.count', merchantId: null, dueAt: clock.now().getTime(), payload: { n } });

    const [ranByA, ranByB] = await Promise.all([a.runDue(), b.runDue()]);
    assert.equal(ranByA + ranByB, 100);
    assert.equal(counts.size, 100);
    assert.ok([...counts.values()].every((count) => count === 1));
    if (ctx.database.engine === 'postgres') assert.ok(ranByA > 0 && ranByB > 0, `both took work: ${ranByA}/${ranByB}`);
  });

  test('a scheduler leaves kinds it cannot run alone, as an older process in a rolling upgrade must', async () => {
    const newer = scheduler().register('test.newer', async () => {});
    const older = scheduler().register('test.older', async () => {});
    await newer.enqueue({ kind: 'test.newer', merchantId: null, dueAt: clock.now().getTime(), dedupeKey: 'newer-1' });
    assert.equal(await older.runDue(), 0);
    assert.equal((await jobByKey('newer-1')).state, 'pending');
    assert.equal(await newer.runDue(), 1);
    assert.equal((await jobByKey('newer-1')).state, 'done');
  });
});
