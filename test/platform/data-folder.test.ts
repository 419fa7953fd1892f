import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { POSTGRES_URL } from '../support/postgres.js';
import { startTestServer } from '../support/server.js';

// The data folder holds the generated platform secret, the apps' encrypted keys and customers' data.
describe('the data folder', { skip: POSTGRES_URL ? 'the data folder holds the database on SQLite only' : false }, () => {
  test('is private to the server\'s user, and so is every file in it, whatever the umask; older files are made private at start', async () => {
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
        for (const expected of ['paygate.sqlite', 'paygate.sqlite-wal', 'paygate.sqlite-shm', 'nonces.sqlite', 'paygate.lock', 'demo-app.json', 'demo-private-key.pem']) {
          assert.ok(files.includes(expected), `${expected} in ${files.join(', ')}`);
        }
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
});
