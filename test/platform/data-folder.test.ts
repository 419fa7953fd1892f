import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { POSTGRES_URL } from '../support/postgres.js';
import { startTestServer } from '../support/server.js';

// The data folder holds the generated platform secret, the apps' encrypted keys and customers' data.
describe('the data folder', () => {
  test("is private to the server's user, and so is every file in it, whatever the umask; older files are made private at start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-private-'));
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'left-by-an-older-version'), 'x', { mode: 0o644 });
    const previous = process.umask(0o022);
    try {
      const server = await startTestServer({ dataDir, env: { PAYGATE_DEMO: '1' } });
      try {
        const merchant = await server.newMerchant();
        await merchant.client.orders.create({ reference_number: 'PRIVATE-1', currency: 'HKD', charge_fee: '1.00' });
        await merchant.client.echo('a nonce is written');
        const files = readdirSync(dataDir);
        // On PostgreSQL the folder holds no database, but the demo key pair all the same (issue 35: it was 0755 there).
        const expected = POSTGRES_URL
          ? ['demo-app.json', 'demo-private-key.pem']
          : [
              'paygate.sqlite',
              'paygate.sqlite-wal',
              'paygate.sqlite-shm',
              'nonces.sqlite',
              'paygate.lock',
              'demo-app.json',
              'demo-private-key.pem',
            ];
        for (const name of expected) assert.ok(files.includes(name), `${name} in ${files.join(', ')}`);
        assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'the folder');
        for (const name of files) assert.equal(statSync(join(dataDir, name)).mode & 0o777, 0o600, name);
      } finally {
        await server.close();
      }
    } finally {
      process.umask(previous);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a folder that does not exist yet is made, private, on either database', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'paygate-fresh-'));
    const dataDir = join(parent, 'data');
    const previous = process.umask(0o022);
    try {
      const server = await startTestServer({ dataDir, env: { PAYGATE_DEMO: '1' } });
      try {
        assert.equal(statSync(dataDir).mode & 0o777, 0o700);
        assert.equal(statSync(join(dataDir, 'demo-private-key.pem')).mode & 0o777, 0o600);
      } finally {
        await server.close();
      }
    } finally {
      process.umask(previous);
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
