import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PlatformContext } from '../../src/context/context.js';
import { NONCE_SKEW_MARGIN_MS } from '../../src/http/auth/authenticate.js';
import { openNonceStore } from '../../src/http/auth/nonce-store.js';
import { claimIdempotencyKey, IDEMPOTENCY_TTL_MS } from '../../src/http/idempotency/idempotency.js';
import { createMerchant } from '../../src/merchants/merchants.js';
import { claimDue, JOB_QUEUE, realignDue } from '../../src/scheduler/lease.js';
import { enqueueJob, finishJob, Scheduler } from '../../src/scheduler/scheduler.js';
import type { JobRow } from '../../src/scheduler/store.js';
import { upkeepJobs } from '../../src/upkeep.js';
import { countNonces } from '../support/nonces.js';
import { openTestPlatform, type TestPlatform } from '../support/platform.js';
import { TestClock } from '../support/server.js';

const HOUR = 3_600_000;

describe('the scheduler', () => {
  const clock = new TestClock().freeze();
  let platform: TestPlatform;
  let ctx: PlatformContext;
  const scheduler = (
    options: { owner?: string; leaseMs?: number; maxAttempts?: number } = {},
    on: PlatformContext = ctx,
  ) => new Scheduler({ platform: on, pollMs: 50, ...options });
  const jobRow = (id: string) => ctx.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const jobByKey = (key: string) =>
    ctx.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', key).executeTakeFirstOrThrow();
  const setOffset = async (merchantId: string, offsetMs: number) => {
    await ctx.db.updateTable('merchants').set({ clock_offset_ms: offsetMs }).where('id', '=', merchantId).execute();
    await realignDue(ctx.db, JOB_QUEUE, merchantId, { offsetMs, frozenAt: null });
  };

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
      await claimIdempotencyKey(ctx.db, {
        merchantId: merchant.merchant_id,
        key: 'k-old',
        fingerprint: 'f',
        now: now - IDEMPOTENCY_TTL_MS - 1,
      });
      await claimIdempotencyKey(ctx.db, { merchantId: merchant.merchant_id, key: 'k-live', fingerprint: 'f', now });

      const maintenance = scheduler();
      maintenance.register(...upkeepJobs({ nonces }));
      await maintenance.ensurePeriodicJobs();
      assert.equal(await countNonces(ctx.database), 2);
      await maintenance.runDue();

      assert.equal(await countNonces(ctx.database), 1, 'the expired nonce is gone');
      assert.equal(
        await nonces.claim('app-1', 'LiveNonce0000001', now + HOUR, now),
        false,
        'the live one is still held',
      );
      const keys = await ctx.db
        .selectFrom('idempotency_keys')
        .select('idempotency_key')
        .where('merchant_id', '=', merchant.merchant_id)
        .execute();
      assert.deepEqual(
        keys.map((k) => k.idempotency_key),
        ['k-live'],
      );

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

  test('a nonce is kept past its credential window by the skew margin', () => {
    assert.ok(NONCE_SKEW_MARGIN_MS >= 60_000);
  });

  test("a merchant's job falls due on that merchant's business clock, and one merchant's clock moves no other's", async () => {
    const ran: Array<{ merchant: string; businessNow: number }> = [];
    const runner = scheduler().registerMerchantJob('test.remind', async (merchantCtx) => {
      ran.push({ merchant: merchantCtx.merchant.id, businessNow: merchantCtx.clock.now().getTime() });
    });
    const early = await createMerchant(ctx, { name: 'Early' });
    const late = await createMerchant(ctx, { name: 'Late' });
    const dueAt = clock.now().getTime() + 2 * HOUR;
    for (const merchant of [early, late])
      await enqueueJob(ctx, { kind: 'test.remind', merchantId: merchant.merchant_id, dueAt });

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
    const flaky = scheduler({ maxAttempts: 3 }).registerPlatformJob('test.flaky', async () => {
      calls += 1;
      throw new Error(`boom ${calls}`);
    });
    const id = randomUUID();
    await enqueueJob(ctx, { kind: 'test.flaky', merchantId: null, dueAt: clock.now().getTime(), dedupeKey: id });
    const key = id;

    await flaky.runDue();
    let row = await jobByKey(key);
    assert.equal(row.state, 'pending');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, 'boom 1');
    assert.equal(row.due_at, clock.now().getTime() + 10_000, 'the retry waits');

    for (let attempt = 2; attempt <= 3; attempt += 1) {
      clock.advance(HOUR);
      await flaky.runDue();
    }
    row = await jobRow(row.id);
    assert.equal(row.state, 'dead');
    assert.equal(row.attempts, 3);
    assert.equal(row.last_error, 'boom 3');
    clock.advance(24 * HOUR);
    assert.equal(await flaky.runDue(), 0);
    assert.equal(calls, 3);
  });

  test('a job of a process that died is taken over when its lease runs out, and the dead claim is fenced off', async () => {
    await enqueueJob(ctx, {
      kind: 'test.orphan',
      merchantId: null,
      dueAt: clock.now().getTime(),
      dedupeKey: 'orphan-1',
    });
    // A process claims the job and dies without a word.
    const [dead] = await claimDue<JobRow>(ctx.db, JOB_QUEUE, {
      owner: 'dead',
      token: 'dead-claim',
      now: clock.now().getTime(),
      leaseMs: 30_000,
      limit: 1,
      kinds: ['test.orphan'],
    });
    assert.equal(dead?.dedupe_key, 'orphan-1');
    const runs: string[] = [];
    const survivor = scheduler({ owner: 'survivor', leaseMs: 30_000 }).registerPlatformJob('test.orphan', async () => {
      runs.push('survivor');
    });
    assert.equal(await survivor.runDue(), 0, 'leased to the claim that holds it');
    clock.advance(31_000);
    assert.equal(await survivor.runDue(), 1, 'the lease ran out: the job is taken over');
    assert.equal((await jobByKey('orphan-1')).state, 'done');

    // The dead claim comes back (a stalled process) and tries to finish: its token no longer holds the job.
    await ctx.db.updateTable('jobs').set({ state: 'running' }).where('dedupe_key', '=', 'orphan-1').execute();
    await finishJob(ctx.db, dead!, clock.now().getTime());
    assert.equal((await jobByKey('orphan-1')).state, 'running', 'a fenced claim changes nothing');
    assert.deepEqual(runs, ['survivor']);
  });

  test('a running job renews its lease, so no one takes it while it runs', async () => {
    const live = new TestClock();
    const sibling = await platform.openSibling(live);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const slow = scheduler({ owner: 'slow', leaseMs: 300 }, { ...ctx, wallClock: live }).registerPlatformJob(
      'test.slow',
      async () => {
        started = true;
        await held;
      },
    );
    const other = scheduler({ owner: 'other', leaseMs: 300 }, sibling.platform).registerPlatformJob(
      'test.slow',
      async () => {
        assert.fail('the job was taken while its holder was still running it');
      },
    );
    await enqueueJob({ ...ctx, wallClock: live }, { kind: 'test.slow', merchantId: null, dueAt: live.now().getTime() });

    const running = slow.runDue();
    while (!started) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 900));
    assert.equal(await other.runDue(), 0, 'three lease lengths later the holder still has it');
    release();
    assert.equal(await running, 1);
  });

  test('two schedulers on separate connections run each of 100 jobs exactly once', async () => {
    const counts = new Map<string, number>();
    const handler = async (_: unknown, payload: unknown) => {
      const key = String((payload as { n: number }).n);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const sibling = await platform.openSibling(clock);
    const a = scheduler({ owner: 'a' }).registerPlatformJob('test.count', handler);
    const b = scheduler({ owner: 'b' }, sibling.platform).registerPlatformJob('test.count', handler);
    for (let n = 0; n < 100; n += 1)
      await enqueueJob(ctx, { kind: 'test.count', merchantId: null, dueAt: clock.now().getTime(), payload: { n } });

    const [ranByA, ranByB] = await Promise.all([a.runDue(), b.runDue()]);
    assert.equal(ranByA + ranByB, 100);
    assert.equal(counts.size, 100);
    assert.ok([...counts.values()].every((count) => count === 1));
    if (ctx.database.engine === 'postgres') assert.ok(ranByA > 0 && ranByB > 0, `both took work: ${ranByA}/${ranByB}`);
  });

  test('a scheduler leaves kinds it cannot run alone, as an older process in a rolling upgrade must', async () => {
    const newer = scheduler().registerPlatformJob('test.newer', async () => {});
    const older = scheduler().registerPlatformJob('test.older', async () => {});
    await enqueueJob(ctx, { kind: 'test.newer', merchantId: null, dueAt: clock.now().getTime(), dedupeKey: 'newer-1' });
    assert.equal(await older.runDue(), 0);
    assert.equal((await jobByKey('newer-1')).state, 'pending');
    assert.equal(await newer.runDue(), 1);
    assert.equal((await jobByKey('newer-1')).state, 'done');
  });

  test('stopping waits for the running job, not for the rest of what is due', async () => {
    let ran = 0;
    const busy = scheduler().registerPlatformJob('test.backlog', async () => {
      ran += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    for (let n = 0; n < 50; n += 1)
      await enqueueJob(ctx, { kind: 'test.backlog', merchantId: null, dueAt: clock.now().getTime() });
    const draining = busy.runDue();
    while (ran === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await busy.stop();
    await draining;
    assert.ok(ran < 50, `stopped after ${ran} of 50`);
  });
});

describe('fair lanes (issue 34)', () => {
  const clock = new TestClock().freeze();
  let platform: TestPlatform;
  let ctx: PlatformContext;

  before(async () => {
    platform = await openTestPlatform(clock);
    ctx = platform.platform;
  });
  after(() => platform.close());

  /** A handler that holds each run of `merchant` until released, and records who ran. */
  function holding(heldMerchant: string) {
    const ran: string[] = [];
    const waiting: Array<() => void> = [];
    const run = async (merchantCtx: { merchant: { id: string } }) => {
      ran.push(merchantCtx.merchant.id);
      if (merchantCtx.merchant.id === heldMerchant) await new Promise<void>((resolve) => waiting.push(resolve));
    };
    return {
      run,
      ran,
      waiting,
      release: () => {
        for (const resolve of waiting.splice(0)) resolve();
      },
    };
  }

  test("one merchant's long jobs take at most half the lanes: another merchant's job runs while they hold theirs", async () => {
    const busy = await createMerchant(ctx, { name: 'Busy' });
    const quiet = await createMerchant(ctx, { name: 'Quiet' });
    const work = holding(busy.merchant_id);
    const lanes = new Scheduler({ platform: ctx, pollMs: 10_000, lanes: 4 }).registerMerchantJob(
      'test.lanes',
      work.run,
    );
    const now = clock.now().getTime();
    for (let n = 0; n < 10; n += 1)
      await enqueueJob(ctx, { kind: 'test.lanes', merchantId: busy.merchant_id, dueAt: now - 1000 });
    // Due later than every one of the busy merchant's: only fairness, not order, lets it in.
    await enqueueJob(ctx, { kind: 'test.lanes', merchantId: quiet.merchant_id, dueAt: now });
    const draining = lanes.runDue();
    while (!work.ran.includes(quiet.merchant_id) || work.waiting.length < 2)
      await new Promise((resolve) => setTimeout(resolve, 5));
    // Claims go on while a lane is free: given the time for more, the busy merchant still holds only its half.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(
      work.ran.filter((id) => id === busy.merchant_id).length,
      2,
      'the busy merchant holds two of the four lanes',
    );
    assert.equal(work.waiting.length, 2);
    while (work.ran.length < 11) {
      work.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    work.release();
    assert.equal(await draining, 11);
  });

  test("long jobs (a batch chunk) run one at a time per merchant, beside another merchant's", async () => {
    const first = await createMerchant(ctx, { name: 'Long A' });
    const second = await createMerchant(ctx, { name: 'Long B' });
    const chunks = holding(first.merchant_id);
    const scheduler = new Scheduler({ platform: ctx, pollMs: 10_000, lanes: 4 }).registerMerchantJob(
      'test.chunk',
      chunks.run,
      { alone: true },
    );
    const now = clock.now().getTime();
    for (let n = 0; n < 4; n += 1)
      await enqueueJob(ctx, { kind: 'test.chunk', merchantId: first.merchant_id, dueAt: now - 1000 });
    await enqueueJob(ctx, { kind: 'test.chunk', merchantId: second.merchant_id, dueAt: now });
    const draining = scheduler.runDue();
    while (!chunks.ran.includes(second.merchant_id)) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(
      chunks.ran.filter((id) => id === first.merchant_id).length,
      1,
      'one chunk of the first merchant at a time',
    );
    while (chunks.ran.length < 5) {
      chunks.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    chunks.release();
    assert.equal(await draining, 5);
  });

  test('jobs that wait on the network run beside the lanes, a quarter of the slots per merchant', async () => {
    const slow = await createMerchant(ctx, { name: 'Slow files' });
    const other = await createMerchant(ctx, { name: 'Other' });
    const fetching = holding(slow.merchant_id);
    const computing: string[] = [];
    const scheduler = new Scheduler({ platform: ctx, pollMs: 10_000, lanes: 1, networkSlots: 8 })
      .registerMerchantJob('test.fetch', fetching.run, { waitsOnNetwork: true })
      .registerMerchantJob('test.compute', async (merchantCtx) => void computing.push(merchantCtx.merchant.id));
    const now = clock.now().getTime();
    for (let n = 0; n < 10; n += 1)
      await enqueueJob(ctx, { kind: 'test.fetch', merchantId: slow.merchant_id, dueAt: now - 1000 });
    await enqueueJob(ctx, { kind: 'test.fetch', merchantId: other.merchant_id, dueAt: now });
    await enqueueJob(ctx, { kind: 'test.compute', merchantId: slow.merchant_id, dueAt: now });
    await enqueueJob(ctx, { kind: 'test.compute', merchantId: other.merchant_id, dueAt: now });
    const draining = scheduler.runDue();
    while (computing.length < 2 || !fetching.ran.includes(other.merchant_id) || fetching.waiting.length < 2)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The one lane ran both merchants' computing while ten fetches waited on the network; the slow merchant holds two
    // slots.
    assert.deepEqual(computing.sort(), [other.merchant_id, slow.merchant_id].sort());
    assert.equal(fetching.ran.filter((id) => id === slow.merchant_id).length, 2);
    while (fetching.ran.length < 11) {
      fetching.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    fetching.release();
    assert.equal(await draining, 13);
  });

  test("a merchant's own run (the sandbox clock) does not wait for the lanes another merchant holds", async () => {
    const busy = await createMerchant(ctx, { name: 'Busy lanes' });
    const mover = await createMerchant(ctx, { name: 'Mover' });
    const work = holding(busy.merchant_id);
    const scheduler = new Scheduler({ platform: ctx, pollMs: 10_000, lanes: 2 }).registerMerchantJob(
      'test.own',
      work.run,
    );
    const now = clock.now().getTime();
    for (let n = 0; n < 4; n += 1)
      await enqueueJob(ctx, { kind: 'test.own', merchantId: busy.merchant_id, dueAt: now });
    const draining = scheduler.runDue();
    while (work.waiting.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await enqueueJob(ctx, { kind: 'test.own', merchantId: mover.merchant_id, dueAt: now });
    assert.equal(
      await scheduler.runDue({ merchantId: mover.merchant_id }),
      1,
      "the mover's job ran while the busy merchant's were held",
    );
    while (work.ran.filter((id) => id === busy.merchant_id).length < 4) {
      work.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    work.release();
    await draining;
  });
});
