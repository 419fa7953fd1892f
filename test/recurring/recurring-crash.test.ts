import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/platform/database/database.js';
import { type CrashBed, type CrashServer, startCrashBed } from '../support/crash-bed.js';
import { bindingCard, CARDS } from '../support/fixtures.js';
import { inParallel, startServe } from '../support/processes.js';

// Issue 12, "done when": the billing engine bills every billing time exactly once across SIGKILLs taken in the
// middle of billing. Real `paygate serve` processes bill 40 monthly plans (6 billings each) while the sandbox
// clock is moved seven months; the process running the billing is killed several times, each time after more
// orders appeared (some kills wait until a billing is between its commit and its charge's record), restarted,
// and the clock is moved again from where it stood to the same final business time. Then every plan has its six
// orders, at their billing times, each paid once, and the sandbox acquirer made exactly one charge per order.
// On PostgreSQL two processes share the database and the kills alternate between them; the other one runs on.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HK = 8 * HOUR; // Asia/Hong_Kong: UTC+8, no daylight saving time.
const PLANS = 40;
const BILLINGS = 6;
const KILLS = 4;
const PRICE = 8800; // HKD 88.00

/** `months` calendar months after `at` in Hong Kong, on the anchor day clamped to the month's last day. */
function monthsAfter(at: number, months: number): number {
  const local = new Date(at + HK);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth() + months;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return (
    Date.UTC(
      year,
      month,
      Math.min(local.getUTCDate(), last),
      local.getUTCHours(),
      local.getUTCMinutes(),
      local.getUTCSeconds(),
      local.getUTCMilliseconds(),
    ) - HK
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('recurring billing across SIGKILLs in the middle of a run', () => {
  let bed: CrashBed;
  let servers: CrashServer[];
  let database: Database;
  /** Charges a kill cut off, which recovery failed at the acquirer and the engine sent again (reported). */
  const cancelled: string[] = [];

  before(async () => {
    // One process per SQLite folder; two sharing the database on PostgreSQL.
    bed = await startCrashBed({ label: 'recurring-crash', merchantName: 'Recurring Crash', startAll: true });
    ({ servers, database } = bed);
  });
  after(() => bed?.close());

  test('40 monthly plans over seven months, the billing process killed 4 times: every billing time billed exactly once', async (t) => {
    const started = Date.now();
    const db = database.db;
    const client = servers[0]!.client;
    const count = async (table: 'orders' | 'recurring_billings', state?: string) => {
      let query = db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
      if (state !== undefined) query = query.where('state' as never, '=', state as never);
      return Number((await query.executeTakeFirstOrThrow()).n);
    };

    // 1. Forty customers with a frictionless token, forty plans: half start now, half at spread times in the
    //    coming 25 days (so the billing times of the run interleave, some many to one instant, some alone).
    const item = await client.recurring.createItem({ label: 'Crash membership', price: '88.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const clockAtStart = Date.parse((await client.sandbox.clock()).now);
    const base = Math.ceil((clockAtStart + 2 * HOUR) / 1000) * 1000;
    const run = randomUUID().slice(0, 8);
    const plans = await inParallel(
      Array.from({ length: PLANS }, (_, i) => i),
      8,
      async (i) => {
        const customer = await client.customers.create({
          reference_number: `RC-${run}-${i}`,
          name: 'Chan Tai Man',
          phone: '91234567',
        });
        const token = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
        assert.equal(token.state, 'success');
        await client.customers.update(customer.uuid, {
          name: 'Chan Tai Man',
          phone: '91234567',
          default_payment_token: token.token,
        });
        const future = i % 2 === 1 ? new Date(base + i * 15 * HOUR + i * 13 * 60_000).toISOString() : undefined;
        const sentAt = Date.parse((await client.sandbox.clock()).now);
        const plan = await client.recurring.createPlan({
          name: `Crash ${i}`,
          reference_number: `RCP-${run}-${i}`,
          customer_uuid: customer.uuid,
          cycles: [
            {
              recurring_items: [{ id: item.id }],
              recurring_billing_config: monthly.id,
              interval_counts: BILLINGS,
              ...(future && { estimated_start_date: future }),
            },
          ],
        });
        const start = Date.parse(plan.cycles[0]!.estimated_start_date!);
        if (future) assert.equal(start, Date.parse(future));
        else assert.ok(start >= sentAt && start <= sentAt + 60_000, `plan ${i} starts when created`);
        return {
          id: plan.id,
          reference: `RCP-${run}-${i}`,
          start,
          times: Array.from({ length: BILLINGS }, (_, k) => monthsAfter(start, k)),
        };
      },
    );
    // The business time the run ends at, with or without kills: a day after the last plan's cycle ended.
    const target = Math.max(...plans.map((plan) => monthsAfter(plan.start, BILLINGS))) + DAY;
    t.diagnostic(`setup: ${Date.now() - started} ms; ${await count('orders')} orders billed before the clock moved`);

    // 2. Move the clock to `target`, from wherever it stands: the kills leave it part way.
    const remaining = async (server: CrashServer) =>
      Math.max(1, Math.ceil((target - Date.parse((await server.client.sandbox.clock()).now)) / 1000));
    const kills: string[] = [];
    for (let round = 0; ; round += 1) {
      const server = servers[round % servers.length]!;
      const before = await count('orders');
      const advance = server.client.sandbox.advanceClock(await remaining(server)).then(
        () => 'returned' as const,
        (error: unknown) => error,
      );
      if (round === KILLS) {
        const result = await advance;
        assert.equal(result, 'returned', `the last advance returns: ${String(result)}`);
        break;
      }
      // Kill once more orders appeared; every other kill also waits (a little) for a billing whose charge is
      // not recorded yet, the window between the step's commit and the charge.
      const threshold = before + randomInt(12, 40);
      const waitForCharging = round % 2 === 0;
      let sawAt: number | undefined;
      let done = false;
      void advance.then(() => (done = true));
      for (;;) {
        if (done) assert.fail(`the advance of round ${round} returned before the kill: ${String(await advance)}`);
        const orders = await count('orders');
        if (orders >= threshold) {
          sawAt ??= Date.now();
          if (!waitForCharging || Date.now() - sawAt > 300 || (await count('recurring_billings', 'charging')) > 0)
            break;
        }
        await sleep(1);
      }
      assert.equal(await server.serve!.stop('SIGKILL'), null);
      server.serve = undefined;
      const result = await advance;
      assert.notEqual(result, 'returned', 'the killed request does not return');
      const charging = await count('recurring_billings', 'charging');
      const sending = Number(
        (
          await db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('progress', '=', 'sending')
            .executeTakeFirstOrThrow()
        ).n,
      );
      kills.push(
        `kill ${round + 1} (process ${round % servers.length}): ${await count('orders')} orders, ${charging} billings charging, ${sending} payments at the acquirer`,
      );
      // PostgreSQL cannot know the process died: its job leases (60 s) would have to run out first. Make them
      // run out now (SQLite frees them at start).
      if (bed.shared)
        await db
          .updateTable('jobs')
          .set({ lease_expires_at: Date.now() - 1 })
          .where('state', '=', 'running')
          .execute();
      server.serve = await startServe(server.env);
    }
    for (const line of kills) t.diagnostic(line);
    assert.equal(kills.length, KILLS);
    const clock = await client.sandbox.clock();
    assert.ok(
      Date.parse(clock.now) >= target && Date.parse(clock.now) < target + 60_000,
      `the clock ends at the target: ${clock.now}`,
    );

    // 3. Every plan: six orders, references -1..-6, each at its billing time, paid once by one Sales transaction.
    let latest = 0;
    const transactionIds: string[] = [];
    for (const plan of plans) {
      const orders = await db
        .selectFrom('orders')
        .selectAll()
        .where('reference_number', 'like', `${plan.reference}-%`)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        orders.map((order) => order.reference_number),
        plan.times.map((_, k) => `${plan.reference}-${k + 1}`),
        `${plan.reference}: one order per billing time, in order`,
      );
      const billings = await db
        .selectFrom('recurring_billings')
        .selectAll()
        .where('plan_id', '=', plan.id)
        .orderBy('billing_at')
        .execute();
      assert.equal(billings.length, BILLINGS, `${plan.reference}: one billing row per billing time`);
      assert.equal(
        new Set(billings.map((b) => `${b.cycle_id}:${b.sequence}`)).size,
        BILLINGS,
        `${plan.reference}: unique (plan, cycle, sequence)`,
      );
      assert.deepEqual(
        billings.map((b) => b.billing_at),
        plan.times,
        `${plan.reference}: billed at the calendar's times`,
      );
      for (const [k, order] of orders.entries()) {
        const billing = billings[k]!;
        assert.equal(billing.state, 'paid');
        assert.equal(billing.order_id, order.id);
        assert.equal(billing.amount, PRICE);
        assert.equal(order.initial_total, PRICE);
        assert.equal(order.paid_total, PRICE);
        assert.equal(order.correspondence_state, 'paid');
        // Generated when the clock reached the billing time: late only by the run's own time (and a restart's).
        assert.ok(
          order.created_at >= billing.billing_at && order.created_at < billing.billing_at + 60_000,
          `${order.reference_number} created at ${new Date(order.created_at).toISOString()}, billed for ${new Date(billing.billing_at).toISOString()}`,
        );
        latest = Math.max(latest, order.created_at - billing.billing_at);
        // Paid once: one succeeded Sales transaction, under the billing's payment uuid. A payment recorded but cut off
        // by a kill before the acquirer answered is failed by recovery (cancelled there, nothing charged) and sent
        // again at once under a resend uuid (`…:1.1`), not counted as a declined attempt: the only other kind allowed.
        const transactions = await db
          .selectFrom('transactions')
          .select(['id', 'type', 'status', 'amount', 'payment_uuid', 'payment_data'])
          .where('order_id', '=', order.id)
          .orderBy('created_at')
          .execute();
        const succeeded = transactions.filter((tr) => tr.status === 'succeeded');
        assert.deepEqual(
          succeeded.map((tr) => [tr.type, tr.amount, tr.payment_uuid]),
          [['Sales', PRICE, billing.payment_uuid]],
          `${order.reference_number}: paid once`,
        );
        assert.equal(billing.attempt, 1, `${order.reference_number}: no attempt counted as declined`);
        assert.match(billing.payment_uuid ?? '', new RegExp(`^rb:${billing.id}:1(\\.\\d+)?$`));
        for (const tr of transactions.filter((tr) => tr.status !== 'succeeded')) {
          assert.equal(tr.status, 'failed');
          assert.equal(
            (JSON.parse(tr.payment_data) as { resp_code?: string }).resp_code,
            '91',
            `${order.reference_number}: a failed attempt is one recovery cancelled`,
          );
          cancelled.push(`${order.reference_number} (${tr.payment_uuid}, paid under ${billing.payment_uuid})`);
        }
        transactionIds.push(...transactions.map((tr) => tr.id));
      }
      const view = await client.recurring.getPlan(plan.id);
      assert.equal(view.state, 'completed');
      assert.deepEqual(
        view.cycles.map((cycle) => [cycle.state, cycle.billing_count]),
        [['completed', BILLINGS]],
      );
    }
    assert.equal(await count('orders'), PLANS * BILLINGS, 'no other order');
    assert.equal(await count('recurring_billings'), PLANS * BILLINGS, 'no other billing row');

    // 4. The acquirer: one approved charge per order, for its succeeded transaction; anything else it recorded for
    //    these orders is a cancellation (nothing charged); and it charged nothing else for this merchant.
    const operations = await db
      .selectFrom('sandbox_acquirer_operations')
      .select(['reference', 'original_reference', 'kind', 'status', 'amount', 'response_code'])
      .execute();
    const charged = operations.filter(
      (op) => (op.kind === 'sale' || op.kind === 'authorize') && op.status === 'approved' && op.amount === PRICE,
    );
    const paid = await db
      .selectFrom('transactions')
      .select('id')
      .where('type', '=', 'Sales')
      .where('status', '=', 'succeeded')
      .execute();
    assert.equal(paid.length, PLANS * BILLINGS);
    assert.deepEqual(
      charged.map((op) => op.reference).sort(),
      paid.map(({ id }) => id).sort(),
      'exactly one approved charge per order, no token charged twice',
    );
    const ours = new Set(transactionIds);
    for (const op of operations.filter((op) => ours.has(op.reference) && op.status !== 'approved')) {
      assert.deepEqual([op.status, op.response_code], ['failed', '91'], 'the only other operations are cancellations');
    }
    assert.deepEqual(
      operations.filter((op) => op.original_reference !== null && ours.has(op.original_reference)),
      [],
      'no capture, refund or void of a charge',
    );
    for (const line of cancelled)
      t.diagnostic(`a charge cancelled by recovery after a kill, sent again at once: ${line}`);
    const failedEvents = await db
      .selectFrom('events')
      .select('id')
      .where('action', '=', 'recurring.payment_failed')
      .execute();
    assert.deepEqual(failedEvents, [], 'no charge cut off by a kill was reported to the merchant as a failed payment');
    t.diagnostic(
      `${PLANS * BILLINGS} billings; orders created at most ${latest} ms after their billing time; ${Date.now() - started} ms in all`,
    );
  });
});
