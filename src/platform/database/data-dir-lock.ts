import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'paygate.lock';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/**
 * One server per SQLite folder: SQLite has one writer, and the scheduler assumes nobody else claims its jobs.
 * The lock file names the holder's pid; a lock whose process is gone (killed) is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release() {
          try {
            if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new DataDirLockedError(
          `Another paygate server (pid ${holder}) is serving the data folder ${dataDir}. ` +
            'One server per SQLite folder; use PostgreSQL (DATABASE_URL) to run several.',
        );
      }
      unlinkSync(file);
    }
  }
  throw new DataDirLockedError(`Could not lock the data folder ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
