import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { Checkpointer, type CheckpointerEvent, type HoldWriter } from '../../src/platform/database/checkpointer.js';
import { type Database, openDatabase, SQLITE_FILE } from '../../src/platform/database/database.js';
import { Sqlite, type SqliteDatabase } from '../../src/platform/database/sqlite-driver.js';
import { POSTGRES_URL } from '../support/postgres.js';

// The server's SQLite checkpoints run on a thread of their own (src/platform/database/checkpointer.ts): the writer's
// commits never copy the log back, the log still starts again from its beginning under writes without a pause, and
// a lost thread hands checkpointing back to the writer.

async function withDatabase(
  work: (database: Database, dataDir: string, events: CheckpointerEvent[]) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-checkpoints-'));
  const events: CheckpointerEvent[] = [];
  const database = openDatabase({
    databaseUrl: undefined,
    dataDir,
    sqliteSynchronous: 'FULL',
    pgPoolSize: 1,
    backgroundCheckpoints: (event) => events.push(event),
  });
  try {
    await sql`CREATE TABLE blobs (id INTEGER PRIMARY KEY, content BLOB NOT NULL)`.execute(database.db);
    await work(database, dataDir, events);
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The log's restarts so far: its header's checkpoint sequence number, read from the file (which changes nothing). */
function restartsOf(databaseFile: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(`${databaseFile}-wal`, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

/** A writer of the test's own (better-sqlite3 directly), in WAL mode, with a table to write to. */
async function withWriter(
  work: (writer: SqliteDatabase, file: string, events: CheckpointerEvent[]) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-checkpoints-'));
  const file = join(dataDir, 'writer.sqlite');
  const writer = new Sqlite(file);
  try {
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, content BLOB NOT NULL)');
    await work(writer, file, []);
  } finally {
    writer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Writes 16 KiB a transaction, letting the event loop turn between them, until `done` (at most 30 s). */
async function writeUntil(writer: SqliteDatabase, done: () => boolean): Promise<void> {
  const insert = writer.prepare('INSERT INTO blobs (content) VALUES (?)');
  const content = Buffer.alloc(16 * 1024, 3);
  const until = Date.now() + 30_000;
  while (!done() && Date.now() < until) {
    insert.run(content);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('checkpoints on a thread of their own', { skip: POSTGRES_URL ? 'SQLite only' : false }, () => {
  test('a writer that never pauses: the thread copies the log back and restarts it between two transactions', async () => {
    await withDatabase(async (database, dataDir, events) => {
      const {
        rows: [setting],
      } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(database.db);
      assert.equal(setting?.wal_autocheckpoint, 0, 'the writer does not checkpoint in its commits');
      const restarts = () => restartsOf(join(dataDir, SQLITE_FILE));
      const content = Buffer.alloc(16 * 1024, 7);
      let written = 0;
      // Each transaction lets the event loop turn before it commits (as a server's does between requests), and
      // the next is queued before it ends: the writer is never idle, so only a pause the thread asks for lets the
      // log start again.
      const write = () =>
        database.db.transaction().execute(async (tx) => {
          await sql`INSERT INTO blobs (content) VALUES (${content})`.execute(tx);
          await new Promise((resolve) => setImmediate(resolve));
          written += 1;
        });
      await write();
      const before = restarts();
      const until = Date.now() + 30_000;
      const writing = () => restarts() < before + 2 && Date.now() < until;
      // Four writers, until the log has restarted twice (at most 30 s).
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (writing()) await write();
        }),
      );
      assert.ok(
        restarts() >= before + 2,
        `the log restarted ${restarts() - before} times while ${written} transactions were written`,
      );
      assert.deepEqual(events, [], 'no checkpoint failed');
      const {
        rows: [count],
      } = await sql<{ n: number }>`SELECT count(*) AS n FROM blobs`.execute(database.db);
      assert.equal(count?.n, written, 'every transaction is there');
    });
  });

  test('the data is all there after close and reopen, and every page is in the database file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-checkpoints-'));
    try {
      const database = openDatabase({
        databaseUrl: undefined,
        dataDir,
        sqliteSynchronous: 'FULL',
        pgPoolSize: 1,
        backgroundCheckpoints: () => {},
      });
      await sql`CREATE TABLE blobs (id INTEGER PRIMARY KEY, content BLOB NOT NULL)`.execute(database.db);
      for (let i = 0; i < 500; i += 1)
        await sql`INSERT INTO blobs (content) VALUES (${Buffer.alloc(8 * 1024, i % 256)})`.execute(database.db);
      await database.close();
      // The thread's connection closed first, so the writer's close (the last) copied the log back and removed it.
      assert.equal(existsSync(join(dataDir, `${SQLITE_FILE}-wal`)), false, 'no log is left after close');
      const reopened = new Sqlite(join(dataDir, SQLITE_FILE), { readonly: true });
      try {
        const row = reopened.prepare('SELECT count(*) AS n, sum(length(content)) AS bytes FROM blobs').get() as {
          n: number;
          bytes: number;
        };
        assert.equal(row.n, 500);
        assert.equal(row.bytes, 500 * 8 * 1024);
      } finally {
        reopened.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a pause the writer cannot give is given up, and the thread goes on: the log still restarts', async () => {
    await withWriter(async (writer, file, events) => {
      let refusals = 0;
      // The first two pauses fail (as when the writer's lock waits too long); the writer writes on regardless.
      const hold: HoldWriter = async (during) => {
        if (refusals < 2) {
          refusals += 1;
          throw new Error('the writer could not be held');
        }
        await during();
      };
      const checkpointer = new Checkpointer(writer, file, hold, (event) => events.push(event), {
        restartAbovePages: 64,
        batchPages: 16,
        intervalMs: 5,
      });
      try {
        const before = restartsOf(file);
        await writeUntil(writer, () => restartsOf(file) >= before + 2);
        assert.equal(refusals, 2, 'both refusals happened first');
        assert.ok(restartsOf(file) >= before + 2, 'the log restarted after the refusals');
        assert.deepEqual(
          events.map((e) => e.kind),
          ['failed', 'failed'],
          `each refusal was reported, and the thread was not lost: ${JSON.stringify(events)}`,
        );
      } finally {
        await checkpointer.stop();
      }
    });
  });

  test('a log that keeps growing (the writer never held) makes the thread give up: the writer checkpoints again', async () => {
    await withWriter(async (writer, file, events) => {
      const never: HoldWriter = async () => {
        throw new Error('the writer could not be held');
      };
      const lost = new Promise<void>((resolve) => {
        const checkpointer = new Checkpointer(
          writer,
          file,
          never,
          (event) => {
            events.push(event);
            if (event.kind === 'lost') resolve();
          },
          { restartAbovePages: 32, batchPages: 16, intervalMs: 5, giveUpAbovePages: 512 },
        );
        void checkpointer;
      });
      let gone = false;
      void lost.then(() => (gone = true));
      await writeUntil(writer, () => gone);
      assert.equal(events.at(-1)?.kind, 'lost');
      assert.match((events.at(-1) as { message: string }).message, /without a restart/);
      assert.equal(
        writer.pragma('wal_autocheckpoint', { simple: true }),
        1000,
        'the writer checkpoints in its commits again',
      );
    });
  });

  test('a thread that cannot run gives checkpointing back to the writer, and says so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-checkpoints-'));
    const writer = new Sqlite(join(dataDir, 'writer.sqlite'));
    try {
      writer.pragma('journal_mode = WAL');
      const events: CheckpointerEvent[] = [];
      const lost = new Promise<void>((resolve) => {
        // The thread's connection opens a file that is not there: it fails at once.
        const checkpointer = new Checkpointer(
          writer,
          join(dataDir, 'missing.sqlite'),
          (during) => during(),
          (event) => {
            events.push(event);
            if (event.kind === 'lost') resolve();
          },
        );
        void checkpointer;
      });
      await lost;
      assert.equal(events[0]?.kind, 'lost');
      assert.equal(
        writer.pragma('wal_autocheckpoint', { simple: true }),
        1000,
        'the writer checkpoints in its commits again',
      );
    } finally {
      writer.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
