import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate trigger KIND [--set FIELD=VALUE ...] [--json]` against a running server (issue 36, point 3).

let server: TestServer;
let merchant: TestMerchant;
const privateKey = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');
const signing = () => ['--app', merchant.appId, '--key', privateKey, '--base-url', server.url];

before(async () => {
  server = await startTestServer();
  merchant = await server.newMerchant();
});
after(() => server.close());

test('trigger KIND --set ... --json prints the one JSON document of the reply; the order carries what was set', async () => {
  const run = await runCli(
    ['trigger', 'order.paid', '--set', 'currency=USD', '--set', 'charge_fee=12.50', '--json', ...signing()],
    server.env,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim().split('\n').length, 1);
  const outcome = JSON.parse(run.stdout);
  assert.equal(outcome.event, 'order.paid');
  assert.equal(outcome.clock_moved_s, 0);
  assert.deepEqual(Object.keys(outcome.objects), ['order', 'transaction']);
  const order = await merchant.client.orders.check({ order: { number: outcome.objects.order.number } });
  assert.deepEqual([order.currency, order.paid_total], ['USD', '12.50']);
  assert.equal(order.transactions[0]!.uuid, outcome.objects.transaction.uuid);
});

test('without --json, one line: the event, its id, the objects made, and how far the clock moved', async () => {
  const [created, settled] = await Promise.all([
    runCli(['trigger', 'order.created', ...signing()], server.env),
    runCli(['trigger', 'payout.settled', ...signing()], server.env),
  ]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^order\.created [0-9a-f-]{36} \(order \d{18}\)\n$/);
  assert.equal(settled.code, 0, settled.stderr);
  assert.match(
    settled.stdout,
    /^payout\.settled [0-9a-f-]{36} \(payee [0-9a-f-]{36}, top_up [0-9a-f-]{36}, payout_request [0-9a-f-]{36}\); clock moved 1800 s\n$/,
  );
});

test('a refusal is one line and exit 1: an unknown kind, a field that does not apply; a malformed --set is a usage error', async () => {
  // Each a process of its own, started together.
  const [unknown, field, asJson, malformed] = await Promise.all([
    runCli(['trigger', 'order.shipped', ...signing()], server.env),
    runCli(['trigger', 'order.paid', '--set', 'metadata.color=blue', ...signing()], server.env),
    runCli(['trigger', 'order.shipped', '--json', ...signing()], server.env),
    runCli(['trigger', 'order.paid', '--set', 'currency', ...signing()], server.env),
  ]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /^error 900401: No trigger for "order\.shipped": one of order\.created, .*\n$/);
  assert.equal(field.code, 1);
  assert.match(field.stderr, /^error 900402: set\.metadata\.color does not apply to order\.paid.*\n$/);
  assert.equal(asJson.code, 1);
  assert.equal(JSON.parse(asJson.stdout).error.code, '900401');
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /--set must read FIELD=VALUE/);
});
