import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../../platform/database/database.js';

/** Remembers (app, nonce) pairs for as long as a request carrying them could still be accepted. */
export interface NonceStore {
  /** True when the nonce was free (or its window has passed) and is now taken. */
  claim(appId: string, nonce: string, expiresAt: number, now: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
  close(): void;
}

export const NONCE_FILE = 'nonces.sqlite';

export function openNonceStore(database: Database): NonceStore {
  return database.engine === 'sqlite' ? sqliteNonceStore(join(database.dataDir, NONCE_FILE)) : postgresNonceStore(database);
}

/**
 * Nonces are written on every request. In a file of their own at synchronous=NORMAL they survive a process
 * crash and cost no flush per request, and they never wait behind the main database's writer.
 */
function sqliteNonceStore(file: string): NonceStore {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS nonces (
    app_id TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (app_id, nonce)
  ) WITHOUT ROWID`);
  db.exec('CREATE INDEX IF NOT EXISTS nonces_expiry ON nonces (expires_at)');
  const claim = db.prepare(`INSERT INTO nonces (app_id, nonce, expires_at) VALUES (?, ?, ?)
    ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ?`);
  const purge = db.prepare('DELETE FROM nonces WHERE expires_at <= ?');
  return {
    async claim(appId, nonce, expiresAt, now) {
      return claim.run(appId, nonce, expiresAt, now).changes === 1;
    },
    async purgeExpired(now) {
      return purge.run(now).changes;
    },
    close() {
      db.close();
    },
  };
}

function postgresNonceStore(database: Database): NonceStore {
  return {
    async claim(appId, nonce, expiresAt, now) {
      const result = await database.db
        .insertInto('nonces')
        .values({ app_id: appId, nonce, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.columns(['app_id', 'nonce']).doUpdateSet({ expires_at: expiresAt }).where('nonces.expires_at', '<=', now),
        )
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) === 1n;
    },
    async purgeExpired(now) {
      const result = await database.db.deleteFrom('nonces').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    close() {},
  };
}
