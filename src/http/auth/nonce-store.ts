import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../platform/database/database.js';
import { createPrivately } from '../../platform/database/private-files.js';
import { Sqlite, type SqliteDatabase } from '../../platform/database/sqlite-driver.js';

/** Remembers (app, nonce) pairs for as long as a request carrying them could still be accepted. */
export interface NonceStore {
  /** True when the nonce was free (or kept past its expiry) and is now taken, until `expiresAt`. */
  claim(appId: string, nonce: string, expiresAt: number, now: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
  close(): void;
}

export const NONCE_FILE = 'nonces.sqlite';

export function openNonceStore(database: Database): NonceStore {
  return database.engine === 'sqlite'
    ? sqliteNonceStore(join(database.dataDir, NONCE_FILE))
    : postgresNonceStore(database);
}

/**
 * Nonces are written on every request, so they live in a file of their own that never waits behind the main
 * database's writer, at synchronous=OFF: they survive a process crash (the operating system has the writes)
 * and cost no flush, not even at checkpoints (at NORMAL those flushes were two thirds of a claim's cost).
 * A power cut may lose recent nonces or damage the file; it only ever holds 30 minutes of replay protection,
 * so a file that fails its check at open is started afresh.
 */
function sqliteNonceStore(file: string): NonceStore {
  const db = createPrivately(() => openCheckedOrFresh(file));
  db.exec(`CREATE TABLE IF NOT EXISTS nonces (
    app_id TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (app_id, nonce)
  ) WITHOUT ROWID`);
  db.exec('CREATE INDEX IF NOT EXISTS nonces_expiry ON nonces (expires_at)');
  const insert = db.prepare(`INSERT INTO nonces (app_id, nonce, expires_at) VALUES (?, ?, ?)
    ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at < ?`);
  const purge = db.prepare('DELETE FROM nonces WHERE expires_at < ?');

  // Group commit: claims arriving within a millisecond go into one transaction, in arrival order (so a duplicate
  // within the batch still loses); each request waits for its commit. A commit per request cost a quarter of a
  // signed request's time, and a batch per event-loop turn was still mostly one or two claims.
  type Pending = {
    args: [string, string, number, number];
    resolve(fresh: boolean): void;
    reject(error: unknown): void;
  };
  let pending: Pending[] = [];
  const insertAll = db.transaction((batch: Pending[]) => batch.map((claim) => insert.run(...claim.args).changes === 1));
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    try {
      for (const [index, fresh] of insertAll(batch).entries()) batch[index]!.resolve(fresh);
    } catch (error) {
      for (const claim of batch) claim.reject(error);
    }
  };
  return {
    claim(appId, nonce, expiresAt, now) {
      return new Promise<boolean>((resolve, reject) => {
        const size = pending.push({ args: [appId, nonce, expiresAt, now], resolve, reject });
        if (size >= MAX_BATCH) flush();
        else if (size === 1) timer = setTimeout(flush, BATCH_WINDOW_MS);
      });
    },
    async purgeExpired(now) {
      return purge.run(now).changes;
    },
    close() {
      if (pending.length > 0) flush();
      db.close();
    },
  };
}

function openCheckedOrFresh(file: string): SqliteDatabase {
  const open = () => {
    const db = new Sqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('busy_timeout = 5000');
    return db;
  };
  try {
    const db = open();
    if (db.pragma('quick_check', { simple: true }) === 'ok') return db;
    db.close();
  } catch {
    // Unreadable: start afresh below.
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return open();
}

const BATCH_WINDOW_MS = 1;
const MAX_BATCH = 256;

function postgresNonceStore(database: Database): NonceStore {
  return {
    async claim(appId, nonce, expiresAt, now) {
      const result = await database.db
        .insertInto('nonces')
        .values({ app_id: appId, nonce, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.columns(['app_id', 'nonce']).doUpdateSet({ expires_at: expiresAt }).where('nonces.expires_at', '<', now),
        )
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) === 1n;
    },
    async purgeExpired(now) {
      const result = await database.db.deleteFrom('nonces').where('expires_at', '<', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    close() {},
  };
}
