import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RecurringPlan } from '@paygate/client';
import { bindingCard, CARDS } from '../support/fixtures.js';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate plans list` and `paygate plans show` (issue 12, point 8): an operator reads a merchant's plans from the
// same database the server uses, as the API presents them (--json) or as a table and a description for people.

describe('paygate plans', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let plan: RecurringPlan;
  let customerUuid: string;
  const reference = `CLI-PLAN-${randomUUID()}`;

  before(async () => {
    // The CLI is another process on the real clock: this server's wall clock is left running.
    server = await startTestServer();
    merchant = await server.newMerchant({ timezone: 'Asia/Hong_Kong' });
    const { client } = merchant;
    const customer = await client.customers.create({
      reference_number: `C-${randomUUID()}`,
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
    customerUuid = customer.uuid;
    const gold = await client.recurring.createItem({ label: 'Gold membership', price: '99.90', currency: 'HKD' });
    const locker = await client.recurring.createItem({ label: 'Locker', price: '20.00', currency: 'HKD' });
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const onThe31st = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'customized',
      billing_day_of_month: 31,
      billing_proration_enabled: true,
    });
    // It starts in a month: nothing is billed while the test reads it, so the CLI and the API see the same plan.
    const start = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const created = await client.recurring.createPlan({
      name: 'Gold',
      reference_number: reference,
      customer_uuid: customer.uuid,
      cycles: [
        {
          name: 'Intro',
          recurring_items: [{ id: gold.id }, { id: locker.id, quantity: 2 }],
          recurring_billing_config: monthly.id,
          discount_amount: '9.90',
          interval_counts: 2,
          estimated_start_date: start,
        },
        { recurring_items: [{ id: gold.id }], recurring_billing_config: onThe31st.id },
      ],
    });
    plan = await client.recurring.getPlan(created.id);
  });
  after(() => server.close());

  test('plans list: a table with the reference, state and next billing in business time; --json is the API plan', async () => {
    const listed = await runCli(['plans', 'list', '--merchant', merchant.merchantId], server.env);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    assert.match(
      header!,
      /^ID +REFERENCE +NAME +CUSTOMER +STATE +CURRENCY +NEXT BILLING \(business time\) +CREATED \(business time\)$/,
    );
    assert.deepEqual(row!.split(/ {2,}/), [
      plan.id,
      reference,
      'Gold',
      customerUuid,
      'active',
      'HKD',
      plan.cycles[0]!.next_execute_time!,
      plan.created_at,
    ]);
    assert.deepEqual(rest, ['1 plan']);

    const json = await runCli(['plans', 'list', '--merchant', merchant.merchantId, '--json'], server.env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { plans: [plan], limit: 50, total: 1 });

    const filtered = await runCli(
      [
        'plans',
        'list',
        '--merchant',
        merchant.merchantId,
        '--state',
        'active',
        '--customer',
        customerUuid,
        '--limit',
        '1',
        '--json',
      ],
      server.env,
    );
    assert.deepEqual(
      JSON.parse(filtered.stdout).plans.map((p: RecurringPlan) => p.id),
      [plan.id],
    );
    const none = await runCli(['plans', 'list', '--merchant', merchant.merchantId, '--state', 'cancelled'], server.env);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'No plans.\n');
    const otherCustomer = await runCli(
      ['plans', 'list', '--merchant', merchant.merchantId, '--customer', randomUUID(), '--json'],
      server.env,
    );
    assert.deepEqual(JSON.parse(otherCustomer.stdout).plans, []);
  });

  test('plans show: the plan and each cycle, with its config and items; --json is the API plan', async () => {
    const shown = await runCli(['plans', 'show', plan.id, '--merchant', merchant.merchantId], server.env);
    assert.equal(shown.code, 0, shown.stderr);
    const lines = shown.stdout.split('\n');
    assert.equal(lines[0], `Plan ${plan.id}  ${reference}  active`);
    assert.ok(lines.includes(`  next billing: ${plan.cycles[0]!.next_execute_time}  business time`), shown.stdout);
    // The plan starts on 5 January: its first cycle has not started (issue 35: it read active before its start).
    assert.ok(lines.includes(`  Cycle 1 ${plan.cycles[0]!.id} (Intro): pending, billed 0 times`), shown.stdout);
    assert.ok(
      lines.includes(`    next execute time: ${plan.cycles[0]!.next_execute_time}  business time`),
      shown.stdout,
    );
    assert.ok(lines.includes('    amount: 130.00 HKD  discount: 9.90 HKD'), shown.stdout);
    assert.ok(lines.includes('    config: monthly ×1 automated'), shown.stdout);
    assert.ok(lines.includes('    items: Gold membership ×1 (99.90 HKD), Locker ×2 (20.00 HKD)'), shown.stdout);
    assert.ok(lines.includes(`  Cycle 2 ${plan.cycles[1]!.id}: pending, billed 0 times`), shown.stdout);
    assert.ok(lines.includes('    config: monthly ×1 customized: day 31, proration'), shown.stdout);
    assert.ok(
      lines.some((line) =>
        line.startsWith(`    start: ${plan.cycles[0]!.estimated_start_date}  end: -  interval counts: 2`),
      ),
      shown.stdout,
    );

    const json = await runCli(['plans', 'show', plan.id, '--merchant', merchant.merchantId, '--json'], server.env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { plan });
  });

  test('an unknown plan or merchant: one line, exit 1; a bad option: usage, exit 2', async () => {
    for (const planId of [randomUUID(), 'not-a-plan']) {
      const unknown = await runCli(['plans', 'show', planId, '--merchant', merchant.merchantId], server.env);
      assert.equal(unknown.code, 1, unknown.stderr);
      assert.equal(unknown.stdout, '');
      assert.equal(unknown.stderr, 'error 500301: Recurring plan not found.\n');
    }
    const unknownJson = await runCli(
      ['plans', 'show', randomUUID(), '--merchant', merchant.merchantId, '--json'],
      server.env,
    );
    assert.equal(unknownJson.code, 1);
    assert.deepEqual(JSON.parse(unknownJson.stdout), {
      error: { code: '500301', message: 'Recurring plan not found.' },
    });

    const missing = randomUUID();
    const noMerchant = await runCli(['plans', 'list', '--merchant', missing], server.env);
    assert.equal(noMerchant.code, 1, noMerchant.stderr);
    assert.equal(noMerchant.stderr, `error 100501: merchant ${missing} not found\n`);

    // Without --merchant, the database's only merchant is meant (issue 35): with a second one, --merchant is needed.
    await server.newMerchant({ name: 'Another' });
    for (const args of [
      ['plans', 'list'],
      ['plans', 'list', '--merchant', merchant.merchantId, '--state', 'paused'],
      ['plans', 'list', '--merchant', merchant.merchantId, '--limit', '0'],
      ['plans', 'list', '--merchant', merchant.merchantId, '--customer', 'nobody'],
      ['plans', 'show', '--merchant', merchant.merchantId],
    ]) {
      const usage = await runCli(args, server.env);
      assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.stderr}`);
      assert.match(
        usage.stderr,
        /^paygate plans (list|show): .+\nRun "paygate plans (list|show) --help" for its usage\.\n$/,
        args.join(' '),
      );
    }
  });
});
