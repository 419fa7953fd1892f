import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { GroupCommit } from '../../src/platform/database/group-commit.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  test('callers arriving together share flushes, and each waits for a flush that began after it called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-gc-'));
    const wal = join(dir, 'x.sqlite-wal');
    writeFileSync(wal, '');
    const flushes: Array<() => void> = [];
    const durable: string[] = [];
    const flush = (fd: number) =>
      new Promise<void>((resolve) => {
        assert.equal(typeof fd, 'number');
        flushes.push(resolve);
      });
    try {
      const commit = new GroupCommit(wal, () => {}, flush);
      await commit.sync();
      assert.equal(flushes.length, 0, 'nothing written: nothing to flush');
      commit.noteWrite();
      const first = commit.sync().then(() => durable.push('first'));
      while (flushes.length < 1) await tick();
      // These commit while the first flush runs: it may have begun before them, so they wait for the next one.
      commit.noteWrite();
      const later = [commit.sync(), commit.sync(), commit.sync()].map((p) => p.then(() => durable.push('later')));
      flushes[0]!();
      await first;
      while (flushes.length < 2) await tick();
      assert.deepEqual(
        durable,
        ['first'],
        'the later callers were not made durable by the flush that began before them',
      );
      flushes[1]!();
      await Promise.all(later);
      assert.equal(flushes.length, 2, 'three callers shared one flush');
      assert.deepEqual(durable, ['first', 'later', 'later', 'later']);
      await commit.sync();
      assert.equal(flushes.length, 2, 'no write since the last flush: nothing more to flush');
      await commit.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a failed flush fails its waiters and every later sync, and is reported once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-gc-'));
    const wal = join(dir, 'x.sqlite-wal');
    writeFileSync(wal, '');
    const reported: Error[] = [];
    let flushes = 0;
    const flush = async () => {
      flushes += 1;
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    };
    try {
      const commit = new GroupCommit(wal, (error) => reported.push(error), flush);
      commit.noteWrite();
      const waiting = [commit.sync(), commit.sync()];
      for (const sync of waiting) await assert.rejects(sync, /EIO/);
      assert.equal(commit.failure?.message, 'EIO: i/o error, fsync');
      // Nothing new written, or something: either way durability can no longer be promised.
      await assert.rejects(commit.sync(), /EIO/);
      commit.noteWrite();
      await assert.rejects(commit.sync(), /EIO/);
      assert.equal(flushes, 1, 'a failed flush is not retried: a later success would prove nothing');
      assert.equal(reported.length, 1);
      await commit.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
