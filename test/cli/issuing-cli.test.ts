import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { newCard } from '../support/issuing.js';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate issuing authorize CARD AMOUNT` and `paygate issuing endpoint` against a running server (issue 15).

let server: TestServer;
let merchant: TestMerchant;
let client: PaygateClient;
const privateKey = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');
const signing = () => ['--app', merchant.appId, '--key', privateKey, '--base-url', server.url];

before(async () => {
  server = await startTestServer();
  merchant = await server.newMerchant();
  client = merchant.client;
  await client.sandbox.topUp({ currency: 'HKD', amount: '500.00' });
});
after(() => server.close());

test('issuing authorize simulates a purchase: approved, exit 0; declined, exit 1 with the reason', async () => {
  const card = await newCard(client, { limits: [{ period: 'transaction', limit_amount: '100' }] });
  const approved = await runCli(
    ['issuing', 'authorize', card.id, '12.50', '--merchant-name', 'Corner Shop', ...signing()],
    server.env,
  );
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /^Authorized: HKD 12\.50 at Corner Shop = HKD 12\.50, transaction [0-9a-f-]{36}\n$/);
  const usd = await runCli(
    ['issuing', 'authorize', card.id, '10.00', '--currency', 'USD', '--json', ...signing()],
    server.env,
  );
  const shown = JSON.parse(usd.stdout);
  assert.deepEqual(
    [shown.transaction.local_amount, shown.transaction.calculated_fee, shown.decline_reason],
    ['78.00', '1.17', null],
  );
  const declined = await runCli(['issuing', 'authorize', card.id, '150.00', ...signing()], server.env);
  assert.equal(declined.code, 1);
  assert.match(declined.stdout, /^Declined \(transaction_limit_exceeded\): HKD 150\.00/);
  const cash = await runCli(['issuing', 'authorize', card.id, '20.00', '--withdrawal', ...signing()], server.env);
  assert.match(cash.stdout, /^Settled: HKD 20\.00/);
  assert.deepEqual(
    (await client.cards.transactions({ card: card.id })).map((t) => [t.type, t.status]),
    [
      ['Withdrawal', 'Settled'],
      ['Sales', 'Declined'],
      ['Sales', 'Authorized'],
      ['Sales', 'Authorized'],
    ],
  );
});

test('issuing endpoint registers and removes the real-time authorisation endpoint', async () => {
  const set = await runCli(
    ['issuing', 'endpoint', '--url', 'http://127.0.0.1:9/decide', '--default', 'approve', ...signing()],
    server.env,
  );
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /Authorisations go to http:\/\/127\.0\.0\.1:9\/decide; silent for 2 s, approve\./);
  const row = await server.platform.db
    .selectFrom('issuing_authorization_endpoints')
    .selectAll()
    .where('merchant_id', '=', merchant.merchantId)
    .executeTakeFirst();
  assert.deepEqual(
    [row?.url, row?.default_decision, row?.app_id],
    ['http://127.0.0.1:9/decide', 'approve', merchant.appId],
  );
  const usage = await runCli(
    ['issuing', 'endpoint', '--default', 'maybe', '--url', 'http://127.0.0.1:9/', ...signing()],
    server.env,
  );
  assert.equal(usage.code, 2);
  const removed = await runCli(['issuing', 'endpoint', '--remove', ...signing()], server.env);
  assert.match(removed.stdout, /^Removed/);
  assert.equal(await client.cards.removeAuthorizationEndpoint(), false);
});
