import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the Node running paygate (docs/architecture.md, "Node versions"). better-sqlite3 13 is
 * built on Node-API 10 and ships prebuilt binaries: it runs on every Node from 22.14 (24 and 26 included) and needs
 * no compiler. Node 20 (and 22 before 22.14) has only Node-API 9, on which 13 crashes at its first database; there
 * paygate uses better-sqlite3 12, installed under the name `better-sqlite3-12` and compiled for that Node. 12 aborts
 * on Node 24.19 and later, so it is never tried there. Both are optional dependencies: npm skips the one whose
 * Node range excludes the Node installing it (13 on Node 20).
 */
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
/** Node-API 10 is what better-sqlite3 13 is compiled for (Node 22.14 and later). */
const MODERN = Number(process.versions.napi) >= 10;
/** 12 compiled against these Node headers aborts the process when it finalises a statement (nodejs/node#65446). */
const TWELVE_ABORTS = major > 24 || (major === 24 && minor >= 19);
const CANDIDATES = [...(MODERN ? ['better-sqlite3'] : []), ...(TWELVE_ABORTS ? [] : ['better-sqlite3-12'])];

/**
 * The first candidate whose package is there and whose native binary opens a database: both load their binary at
 * the first database, not at `require`, so a package installed without its binary (no prebuilt one for this
 * platform, an install with --ignore-scripts) is found out here and the next one is tried.
 */
function loadDriver(): { name: string; Database: typeof BetterSqlite3 } {
  const require = createRequire(import.meta.url);
  const problems: string[] = [];
  for (const name of CANDIDATES) {
    try {
      const Database = require(name) as typeof BetterSqlite3;
      new Database(':memory:').close();
      return { name, Database };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`${name}: ${code === 'MODULE_NOT_FOUND' ? 'not installed' : (error as Error).message}`);
    }
  }
  throw new Error(
    `No SQLite driver runs on Node ${process.version} (${problems.join('; ') || 'none fits this Node'}). ` +
      (MODERN
        ? 'Run npm ci: it installs better-sqlite3, prebuilt for Linux, macOS and Windows on x64 and arm64.'
        : 'npm ci compiles better-sqlite3 12 for this Node when no prebuilt binary can be downloaded, which needs ' +
          'python3, make and a C++ compiler: install those and run npm ci again, or run paygate on Node 22.14 or later.'),
  );
}

const driver = loadDriver();

/** better-sqlite3's Database class, from the driver this Node runs. */
export const Sqlite: typeof BetterSqlite3 = driver.Database;

/** The package it came from (`better-sqlite3` or `better-sqlite3-12`). */
export const SQLITE_DRIVER: string = driver.name;
