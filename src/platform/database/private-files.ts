import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data folder holds the platform's secret (sandbox mode keeps it in the database), the apps' encrypted keys
 * and customers' data: it is the server's user's alone (0700), and so is every file in it (0600), whatever the
 * umask. Files made before this rule are made private at start.
 */
export function privateDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isFile()) chmodSync(path, 0o600);
  }
  return dir;
}

/**
 * Runs `create`, which makes files in the data folder (an SQLite database), with a umask that makes them 0600.
 * SQLite gives a database's -wal and -shm files the mode of the database file, so they are private too.
 */
export function createPrivately<T>(create: () => T): T {
  const previous = process.umask(0o077);
  try {
    return create();
  } finally {
    process.umask(previous);
  }
}
