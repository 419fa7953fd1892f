import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { csv, customerWithToken } from '../batches/support.js';
import { CARDS } from '../support/fixtures.js';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate batch upload FILE --wait` and `paygate batch show ID` against a running server (issue 13).

let server: TestServer;
let merchant: TestMerchant;
let client: PaygateClient;
const privateKey = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');

before(async () => {
  server = await startTestServer();
  merchant = await server.newMerchant();
  client = merchant.client;
});
after(() => server.close());

const signing = () => ['--app', merchant.appId, '--key', privateKey, '--base-url', server.url];

test('batch upload --wait follows the batch to the end and prints a summary; batch show lists the failed rows', async () => {
  const { customer, token } = await customerWithToken(client);
  const file = join(server.dataDir, 'dues.csv');
  writeFileSync(
    file,
    csv([
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
      ...Array.from({ length: 30 }, () => ['payment', `CLI-${randomUUID()}`, customer, '5.00', token]),
      ['payment', `CLI-${randomUUID()}`, customer, '5.001', token],
    ]),
  );
  const uploaded = await runCli(['batch', 'upload', file, '--wait', ...signing()], server.env);
  // A row failed: the file was not done as asked, and a script must see it (issue 35: this exited 0).
  assert.equal(uploaded.code, 1, uploaded.stderr);
  const id = /^batch (\S+) "dues\.csv": success$/m.exec(uploaded.stdout)?.[1];
  assert.ok(id, uploaded.stdout);
  assert.match(
    uploaded.stdout,
    /rows 31: 30 succeeded, 1 failed\nfailed rows:\n {2}row 32 \(Amount\): "5\.001" must have at most 2 decimals \(HKD\)\.$/m,
  );
  // stderr is a pipe here, not a terminal: progress comes as plain lines, never a bar drawn in place.
  assert.doesNotMatch(uploaded.stderr, /\r|\[#*\.*\]/);
  assert.equal((await client.batches.get(id)).batch_info.successful_records, 30);

  const shown = await runCli(['batch', 'show', id, ...signing()], server.env);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /failed rows:\n {2}row 32 \(Amount\): /);

  const json = await runCli(['batch', 'show', id, '--json', ...signing()], server.env);
  assert.equal(JSON.parse(json.stdout).batch_info.upload_status, 'success');
});

test('a batch that fails makes upload --wait exit with 1, saying why; an unknown batch is an error', async () => {
  const file = join(server.dataDir, 'broken.csv');
  writeFileSync(file, 'Action,Amount\r\npayment,1.00\r\n');
  const uploaded = await runCli(['batch', 'upload', file, '--wait', '--name', 'Broken', ...signing()], server.env);
  assert.equal(uploaded.code, 1);
  assert.match(uploaded.stdout, /"Broken": failed\n.*\n {2}.*Reference Number/);
  const unknown = await runCli(['batch', 'show', randomUUID(), ...signing()], server.env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Batch not found/);
});

test('batch upload --wait exits 0 only when every row succeeded; a slow batch reports plain progress lines', async () => {
  const { customer, token } = await customerWithToken(client);
  const file = join(server.dataDir, 'all-good.csv');
  // The slow card's payment takes three seconds: the batch is seen running at least once.
  writeFileSync(
    file,
    csv([
      [
        'Action',
        'Reference Number',
        'Customer UUID',
        'Amount',
        'Token ID',
        'Card Number',
        'Expiry Month',
        'Expiry Year',
      ],
      ...Array.from({ length: 5 }, () => ['payment', `CLI-OK-${randomUUID()}`, customer, '5.00', token, '', '', '']),
      ['payment', `CLI-OK-${randomUUID()}`, '', '5.00', '', CARDS.slow, '12', '2040'],
    ]),
  );
  const uploaded = await runCli(['batch', 'upload', file, '--wait', ...signing()], server.env);
  assert.equal(uploaded.code, 0, uploaded.stderr);
  assert.match(uploaded.stdout, /rows 6: 6 succeeded, 0 failed$/m);
  assert.doesNotMatch(uploaded.stdout, /failed rows/);
  const id = /^batch (\S+) /m.exec(uploaded.stdout)![1];
  assert.match(
    uploaded.stderr,
    new RegExp(`^batch ${id}: (processing: reading the file|\\d+/6 rows) · \\d+ failed · \\d+ rows/s$`, 'm'),
  );
});
