import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SQLITE_DRIVER, Sqlite } from '../../src/platform/database/sqlite-driver.js';

// Issue 35: paygate runs on Node 20, 22, 24 and 26. better-sqlite3 13 (Node-API 10, prebuilt) is the driver from
// Node 22.14; Node 20 has Node-API 9, where 13 crashes, and runs 12 (docs/architecture.md, "Node versions").
test('the SQLite driver is the one this Node can run, and it runs', () => {
  const napi = Number(process.versions.napi);
  assert.equal(
    SQLITE_DRIVER,
    napi >= 10 ? 'better-sqlite3' : 'better-sqlite3-12',
    `Node ${process.version}, Node-API ${napi}`,
  );
  const db = new Sqlite(':memory:');
  try {
    db.exec('CREATE TABLE t (n INTEGER)');
    db.prepare('INSERT INTO t (n) VALUES (?)').run(9007199254740993n);
    const row = db.prepare('SELECT n FROM t').safeIntegers(true).get() as { n: bigint };
    assert.equal(row.n, 9007199254740993n);
  } finally {
    db.close();
  }
});
