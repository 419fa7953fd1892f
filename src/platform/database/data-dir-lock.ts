import { join } from 'node:path';
import { DataDirLockedError } from './database-errors.js';
import { createPrivately, privateDataDir } from './private-files.js';
import { Sqlite } from './sqlite-driver.js';

export const LOCK_FILE = 'paygate.lock';

/**
 * One server per SQLite folder: SQLite has one writer, and the scheduler assumes nobody else claims its jobs.
 * The lock is an exclusive SQLite transaction on a file of its own, held for the life of the process: the
 * operating system drops it when the process ends, however it ends, so a killed server never leaves a lock
 * behind and a reused pid can never look like a live holder.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const db = createPrivately(() => new Sqlite(join(privateDataDir(dataDir), LOCK_FILE), { timeout: 0 }));
  try {
    // In exclusive locking mode the first write takes the file lock and keeps it until the connection closes
    // (an empty file is never locked at all, hence the write).
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    db.transaction(() => {
      db.exec('DELETE FROM holder');
      db.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    })();
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DataDirLockedError(
        `Another paygate server is serving the data folder ${dataDir}. ` +
          'One server per SQLite folder; use PostgreSQL (DATABASE_URL) to run several.',
      );
    }
    throw error;
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
