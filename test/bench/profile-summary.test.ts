import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CpuProfile, categoryOf, summarize } from '../../bench/profile-summary.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

describe('npm run bench:profile', () => {
  test('a native function counts for its nearest caller with a source file; idle is left out of the shares', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 5, 7, 8]),
        frame(2, 'run', 'file:///x/node_modules/better-sqlite3/lib/methods/wrappers.js', [3]),
        frame(3, 'run', '', [4]),
        frame(4, '(anonymous)', ''),
        frame(5, 'verify', 'node:internal/crypto/sig', [6]),
        frame(6, 'verify', ''),
        frame(7, 'findCustomer', 'file:///x/dist/src/customers/store.js'),
        frame(8, '(idle)', ''),
      ],
      samples: [4, 4, 6, 7, 8, 8, 8],
      timeDeltas: [1000, 2000, 3000, 4000, 50_000, 50_000, 50_000],
    };
    const summary = summarize(profile);
    assert.equal(summary.busyMs, 10);
    assert.equal(summary.idleMs, 150);
    assert.deepEqual(summary.categories, [
      { category: 'paygate customers/ (a capability)', ms: 4, share: 40 },
      { category: 'SQL: driver and query builder', ms: 3, share: 30 },
      { category: 'crypto: signature verification, hashing', ms: 3, share: 30 },
    ]);
  });

  test('--last: only the samples of the last seconds of the profile', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 3]),
        frame(2, 'boot', 'node:internal/modules/esm/loader'),
        frame(3, 'findCustomer', 'file:///x/dist/src/customers/store.js'),
      ],
      samples: [2, 2, 3, 3],
      timeDeltas: [1_000_000, 1_000_000, 500_000, 500_000],
    };
    assert.deepEqual(summarize(profile, 0.9).categories, [
      { category: 'paygate customers/ (a capability)', ms: 1000, share: 100 },
    ]);
    assert.equal(summarize(profile).busyMs, 3000);
  });

  test('files by what they are', () => {
    assert.equal(categoryOf('file:///a/node_modules/fastify/lib/route.js', 'x'), 'Fastify: routing, hooks, reply');
    assert.equal(categoryOf('file:///a/node_modules/pino/lib/proto.js', 'x'), 'logging (pino)');
    assert.equal(categoryOf('file:///a/node_modules/ajv/dist/core.js', 'x'), 'validation (ajv)');
    assert.equal(categoryOf('file:///a/dist/src/platform/money/money.js', 'x'), 'paygate platform/');
    assert.equal(categoryOf('file:///a/dist/src/platform/database/database.js', 'x'), 'SQL: driver and query builder');
    assert.equal(categoryOf('node:_http_server', 'x'), 'Node: HTTP, sockets, streams, timers');
    assert.equal(categoryOf('', '(garbage collector)'), 'garbage collection');
  });
});
