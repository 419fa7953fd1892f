import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { paidOrder } from '../support/fixtures.js';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate sandbox snapshot save|restore|list|delete` and `paygate sandbox reset`: signed calls to a running server
// (issue 36, point 6). Run here without a terminal, as a CI script runs them: restore, delete and reset go ahead
// without asking.

describe('paygate sandbox snapshot and reset', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let folder: string;
  let signing: string[];

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant({ name: 'Snapshot CLI' });
    folder = mkdtempSync(join(tmpdir(), 'paygate-snapshot-cli-'));
    const key = join(folder, 'key.pem');
    writeFileSync(key, merchant.privateKey);
    signing = ['--app', merchant.appId, '--key', key, '--base-url', server.url];
  });
  after(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const sandbox = (...args: string[]) => runCli(['sandbox', ...args, ...signing], server.env);
  const refusedInOneLine = (result: { code: number; stdout: string; stderr: string }, code: string) => {
    assert.equal(result.code, 1, result.stdout);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(code));
  };
  const orderCount = async () => (await merchant.client.orders.list({ limit: 100 })).orders.length;

  test('save, list, restore, delete and reset, in words and in JSON', async () => {
    await paidOrder(merchant.client, '10.00');
    const saved = await sandbox('snapshot', 'save', 'one-order', '--json');
    assert.equal(saved.code, 0, saved.stderr);
    const savedJson = JSON.parse(saved.stdout);
    assert.equal(savedJson.snapshot.name, 'one-order');
    assert.equal(savedJson.replaced, false);
    assert.ok(savedJson.snapshot.row_count > 0);

    refusedInOneLine(await sandbox('snapshot', 'save', 'one-order'), '900502');
    const forced = await sandbox('snapshot', 'save', 'one-order', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^Replaced one-order {2}business time \S+ {2}\d+ rows {2}\d+ bytes\n$/);
    refusedInOneLine(await sandbox('snapshot', 'save', 'not a name'), '100207');

    const listed = await sandbox('snapshot', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^one-order {2}business time /);
    const listedJson = JSON.parse((await sandbox('snapshot', 'list', '--json')).stdout);
    assert.deepEqual(
      listedJson.snapshots.map((s: { name: string }) => s.name),
      ['one-order'],
    );
    // --merchant signs as the merchant's oldest active app, found in the data folder's database.
    const byMerchant = await runCli(
      [
        'sandbox',
        'snapshot',
        'list',
        '--json',
        '--merchant',
        merchant.merchantId,
        '--key',
        signing[3]!,
        '--base-url',
        server.url,
      ],
      server.env,
    );
    assert.equal(byMerchant.code, 0, byMerchant.stderr);
    assert.deepEqual(JSON.parse(byMerchant.stdout), listedJson);

    // No terminal: restore asks nothing and goes ahead.
    await paidOrder(merchant.client, '20.00');
    assert.equal(await orderCount(), 2);
    const restored = await sandbox('snapshot', 'restore', 'one-order');
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /^Restored one-order: \d+ rows \(\d+ removed\); business time \S+\n$/);
    assert.equal(await orderCount(), 1);
    const restoredJson = JSON.parse((await sandbox('snapshot', 'restore', 'one-order', '--json')).stdout);
    assert.equal(restoredJson.snapshot.name, 'one-order');
    assert.equal(restoredJson.restored_rows, restoredJson.snapshot.row_count);

    const reset = await sandbox('reset', '--json');
    assert.equal(reset.code, 0, reset.stderr);
    assert.ok(JSON.parse(reset.stdout).removed_rows > 0);
    assert.equal(await orderCount(), 0);
    const resetAgain = await sandbox('reset');
    assert.match(resetAgain.stdout, /^Reset: \d+ rows removed; business time \S+ \(wall time\)\n$/);

    // Deterministic: seeded identifiers and a clock standing at the fixed start; --random undoes it.
    const seeded = await sandbox('reset', '--seed', 'ci-1');
    assert.equal(seeded.code, 0, seeded.stderr);
    assert.match(
      seeded.stdout,
      /^Reset: \d+ rows removed; deterministic with seed "ci-1", business time 2026-01-01T00:00:00\.000Z \(standing still until moved\)\n$/,
    );
    const standing = await merchant.client.sandbox.clock();
    assert.deepEqual([standing.now, standing.stands_still], ['2026-01-01T00:00:00.000Z', true]);
    const byDefault = JSON.parse((await sandbox('reset', '--deterministic', '--json')).stdout);
    assert.deepEqual([byDefault.deterministic, byDefault.seed], [true, 'paygate']);
    const random = JSON.parse((await sandbox('reset', '--random', '--json')).stdout);
    assert.deepEqual([random.deterministic, random.seed], [false, null]);
    assert.equal((await merchant.client.sandbox.clock()).stands_still, false);
    const contradiction = await sandbox('reset', '--random', '--seed', 'x');
    assert.equal(contradiction.code, 2, contradiction.stderr);
    assert.match(contradiction.stderr, /--random goes with neither --deterministic nor --seed/);

    const deleted = await sandbox('snapshot', 'delete', 'one-order', '--yes');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, 'Deleted one-order.\n');
    refusedInOneLine(await sandbox('snapshot', 'restore', 'one-order'), '900501');
    // With --json the refusal is one JSON document on stdout, where a script reads.
    const asJson = await sandbox('snapshot', 'delete', 'one-order', '--json');
    assert.equal(asJson.code, 1);
    assert.equal(JSON.parse(asJson.stdout).error.code, '900501');
    assert.equal((await sandbox('snapshot', 'list')).stdout, 'No snapshots.\n');
  });

  test('a live server refuses them in one line', async () => {
    const live = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ef'.repeat(32) } });
    try {
      const liveMerchant = await live.newMerchant();
      const key = join(folder, 'live-key.pem');
      writeFileSync(key, liveMerchant.privateKey);
      for (const args of [
        ['snapshot', 'save', 'x'],
        ['snapshot', 'list'],
        ['reset', '--yes'],
      ]) {
        const result = await runCli(
          ['sandbox', ...args, '--app', liveMerchant.appId, '--key', key, '--base-url', live.url],
          live.env,
        );
        refusedInOneLine(result, '900101');
      }
    } finally {
      await live.close();
    }
  });
});
