import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PaygateError } from '@paygate/client';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { customerInput, paidOrder } from '../support/fixtures.js';
import { TestReceiver } from '../support/receiver.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Issue 36, point 5, around the two-run script (deterministic-runs.test.ts): a deterministic merchant's clock runs
// its due work only when moved, a snapshot of one goes on drawing from where it was saved, a whole server can be
// deterministic, and writes of one merchant drawing at once never share an identifier (docs/lab.md).

const MINUTE = 60_000;

describe("a deterministic merchant's clock, snapshots and writes", () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let receiver: TestReceiver;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant({ name: 'Deterministic clock' });
    receiver = await TestReceiver.start();
    await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/app`);
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const attemptsOf = async (eventType: string) => {
    const events = await server.platform.db
      .selectFrom('webhook_attempts')
      .innerJoin('events', 'events.id', 'webhook_attempts.event_id')
      .select('webhook_attempts.id')
      .where('events.merchant_id', '=', merchant.merchantId)
      .where('events.action', '=', eventType)
      .execute();
    return events.length;
  };
  const until = async (what: string, done: () => Promise<boolean>) => {
    for (let waited = 0; !(await done()); waited += 25) {
      if (waited > 10_000) assert.fail(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  test('work due later waits for a move of the clock, however much wall time goes by; work due now runs at once', async () => {
    await merchant.client.labSnapshots.reset({ seed: 'clock' });
    receiver.answer = () => 500;
    await paidOrder(merchant.client, '10.00');
    // The first attempt is due at once, the clock standing still or not.
    await until('the first attempt', async () => (await attemptsOf('order.paid')) >= 1);
    // Twenty minutes of wall time (a running clock would have retried twice by then), the scheduler polling all
    // along: the retry stays due in business time. The wall clock goes back after: requests are signed in real time.
    server.clock.advance(20 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.clock.advance(-20 * MINUTE);
    assert.equal(await attemptsOf('order.paid'), 1, 'no retry while the clock stands still');
    assert.equal((await merchant.client.sandbox.clock()).now, '2026-01-01T00:00:00.000Z');

    receiver.answer = () => 200;
    const moved = await merchant.client.sandbox.advanceClock(3_600);
    assert.equal(moved.now, '2026-01-01T01:00:00.000Z', 'moved exactly, wall time aside');
    assert.equal(moved.stands_still, true);
    assert.ok((await attemptsOf('order.paid')) >= 2, 'the retry ran on the move');
    // And it stands still again where the move left it.
    server.clock.advance(10 * MINUTE);
    assert.equal((await merchant.client.sandbox.clock()).now, '2026-01-01T01:00:00.000Z');
    server.clock.advance(-10 * MINUTE);
  });

  test('a restored snapshot goes on drawing identifiers, and keeps its clock standing, from where it was saved', async () => {
    await merchant.client.labSnapshots.reset({ seed: 'snapshots' });
    await merchant.client.customers.create(customerInput({ reference_number: 'DET-A' }));
    await merchant.client.sandbox.advanceClock(60);
    await merchant.client.labSnapshots.save('after-a');
    const b = await merchant.client.customers.create(customerInput({ reference_number: 'DET-B' }));
    await merchant.client.sandbox.advanceClock(600);

    const restored = await merchant.client.labSnapshots.restore('after-a');
    assert.equal(restored.now, '2026-01-01T00:01:00.000Z');
    server.clock.advance(10 * MINUTE);
    const clock = await merchant.client.sandbox.clock();
    server.clock.advance(-10 * MINUTE);
    assert.deepEqual([clock.now, clock.stands_still], ['2026-01-01T00:01:00.000Z', true]);
    const bAgain = await merchant.client.customers.create(customerInput({ reference_number: 'DET-B' }));
    assert.equal(bAgain.uuid, b.uuid, 'the same identifier as the first time from that point');
  });

  test('writes of one deterministic merchant drawing at once: each commits its own identifiers or is refused with 409', async () => {
    await merchant.client.labSnapshots.reset({ seed: 'together' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) =>
        merchant.client.customers.create(customerInput({ reference_number: `DET-TOGETHER-${index}` })),
      ),
    );
    const made = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.uuid] : []));
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      assert.ok(outcome.reason instanceof PaygateError, String(outcome.reason));
      assert.deepEqual([outcome.reason.status, outcome.reason.errorCode], [409, '100904']);
    }
    assert.ok(made.length >= 1);
    assert.equal(new Set(made).size, made.length, 'no identifier given twice');
    const stored = await server.platform.db
      .selectFrom('customers')
      .select('id')
      .where('merchant_id', '=', merchant.merchantId)
      .execute();
    assert.deepEqual(stored.map((row) => row.id).sort(), [...made].sort(), 'what was stored is what was answered');
  });

  test('a reset to random identifiers sets the clock running with wall time again', async () => {
    await merchant.client.labSnapshots.reset({ seed: 'then-random' });
    const random = await merchant.client.labSnapshots.reset({ deterministic: false });
    assert.deepEqual([random.deterministic, random.seed], [false, null]);
    const clock = await merchant.client.sandbox.clock();
    assert.equal(clock.stands_still, false);
    assert.equal(clock.now.slice(0, 13), server.clock.now().toISOString().slice(0, 13));
  });
});

describe('a whole server made deterministic (PAYGATE_DETERMINISTIC_SEED)', () => {
  test('two fresh servers with one seed make the same merchant and the same identifiers; its clock stands at the start', async () => {
    const made: Array<{ merchantId: string; customer: string; clock: string }> = [];
    for (let run = 0; run < 2; run += 1) {
      const server: TestServer = await startTestServer({ env: { PAYGATE_DETERMINISTIC_SEED: 'whole-server' } });
      try {
        const merchant = await server.newMerchant({ name: 'Seeded' });
        const customer = await merchant.client.customers.create(customerInput({ reference_number: 'SEEDED-1' }));
        const clock = await merchant.client.sandbox.clock();
        assert.equal(clock.stands_still, true);
        // A plain reset keeps it deterministic, with the server's seed.
        const reset = await merchant.client.labSnapshots.reset();
        assert.deepEqual([reset.deterministic, reset.seed], [true, 'whole-server']);
        made.push({ merchantId: merchant.merchantId, customer: customer.uuid, clock: clock.now });
      } finally {
        await server.close();
      }
    }
    assert.deepEqual(made[1], made[0]);
    assert.equal(made[0]!.clock, '2026-01-01T00:00:00.000Z');
  });

  test('live mode refuses the setting', () => {
    assert.throws(
      () => loadConfig({ PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ab'.repeat(32), PAYGATE_DETERMINISTIC_SEED: 's' }),
      (error) => error instanceof ConfigError && /PAYGATE_DETERMINISTIC_SEED: sandbox only/.test(error.message),
    );
  });
});
