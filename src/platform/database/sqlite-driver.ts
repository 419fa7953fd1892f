import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the Node running paygate (docs/architecture.md, "Node versions"). better-sqlite3 13 is
 * built on Node-API 10 and ships prebuilt binaries: it runs on every Node from 22.14 (24 and 26 included) and needs
 * no compiler. Node 20 (and 22 before 22.14) has only Node-API 9, on which 13 crashes at its first database; there
 * paygate uses better-sqlite3 12, installed under the name `better-sqlite3-12`, compiled for that Node (12 aborts
 * on Node 24.19 and later, so it is never used there). Both are optional dependencies, and `.npmrc`'s
 * `engine-strict` makes npm skip the one whose Node range excludes the Node installing it.
 */
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;

/** Node-API 10 is what better-sqlite3 13 is compiled for (Node 22.14 and later). */
const MODERN = Number(process.versions.napi) >= 10;
const CANDIDATES = MODERN ? ['better-sqlite3', 'better-sqlite3-12'] : ['better-sqlite3-12'];

function loadDriver(): { name: string; Database: typeof BetterSqlite3 } {
  const require = createRequire(import.meta.url);
  for (const name of CANDIDATES) {
    try {
      return { name, Database: require(name) as typeof BetterSqlite3 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  throw new Error(
    MODERN
      ? 'No SQLite driver is installed: run npm ci (it installs better-sqlite3, prebuilt for this platform).'
      : `No SQLite driver is installed for Node ${process.version}: npm ci compiles better-sqlite3 12 for it when no ` +
          'prebuilt binary can be downloaded, which needs python3, make and a C++ compiler (docs/operations.md). ' +
          'Install those and run npm ci again, or run paygate on Node 22.14 or later.',
  );
}

const driver = loadDriver();

/** better-sqlite3's Database class, from the driver this Node runs. */
export const Sqlite: typeof BetterSqlite3 = driver.Database;

/** The package it came from (`better-sqlite3` or `better-sqlite3-12`). */
export const SQLITE_DRIVER: string = driver.name;
