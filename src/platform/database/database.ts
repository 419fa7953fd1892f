import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type Compilable, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Schema } from './schema.js';
import { SqliteWriterDialect } from './sqlite-dialect.js';

export type Engine = 'sqlite' | 'postgres';

/** The database, or an open transaction on it: verbs take either, so transactions compose. */
export type Db = Kysely<Schema>;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  pgPoolSize: number;
}

export interface Database {
  readonly engine: Engine;
  readonly db: Db;
  readonly dataDir: string;
  /**
   * A read compiled once and kept prepared: on the read-only connection for SQLite (never behind the
   * writer's open transaction), as a named statement for PostgreSQL. Only for reads outside a transaction.
   */
  prepareOne<P extends object, R>(build: (db: Db, params: P) => Compilable<R>): (params: P) => Promise<R | undefined>;
  close(): Promise<void>;
}

export const SQLITE_FILE = 'paygate.sqlite';

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options);
}

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function openSqlite(options: DatabaseOptions): Database {
  mkdirSync(options.dataDir, { recursive: true });
  const file = join(options.dataDir, SQLITE_FILE);
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma(`synchronous = ${options.sqliteSynchronous}`);
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteWriterDialect(writer) });

  let reader: BetterSqlite3.Database | undefined;
  const readerConnection = () => {
    if (!reader) {
      reader = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
      reader.pragma('busy_timeout = 5000');
    }
    return reader;
  };

  return {
    engine: 'sqlite',
    db,
    dataDir: options.dataDir,
    prepareOne<P extends object, R>(build: (db: Db, params: P) => Compilable<R>) {
      const { sql, bind } = compileWithSlots(db, build);
      let statement: BetterSqlite3.Statement | undefined;
      return async (params: P) => {
        statement ??= readerConnection().prepare(sql);
        return statement.get(bind(params)) as R | undefined;
      };
    },
    async close() {
      reader?.close();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
  });
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    engine: 'postgres',
    db,
    dataDir: options.dataDir,
    prepareOne<P extends object, R>(build: (db: Db, params: P) => Compilable<R>) {
      const { sql, bind } = compileWithSlots(db, build);
      const name = `p_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      return async (params: P) => {
        const result = await pool.query({ name, text: sql, values: bind(params) });
        return result.rows[0] as R | undefined;
      };
    },
    async close() {
      await db.destroy();
    },
  };
}

/** `pg` returns 64-bit integers as text; ours (money, milliseconds) are always within the safe range. */
function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === pg.types.builtins.INT8) {
    return (value: string) => {
      const parsed = Number(value);
      if (!Number.isSafeInteger(parsed)) throw new RangeError(`integer ${value} is beyond the safe range`);
      return parsed;
    };
  }
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

const SLOT = '\u0000slot:';

/** Compiles a query built with placeholder parameters, remembering which placeholder is which named parameter. */
function compileWithSlots<P extends object, R>(
  db: Db,
  build: (db: Db, params: P) => Compilable<R>,
): { sql: string; bind: (params: P) => unknown[] } {
  const placeholders = new Proxy({}, { get: (_, key) => `${SLOT}${String(key)}` }) as P;
  const compiled: CompiledQuery<R> = build(db, placeholders).compile();
  const order = compiled.parameters.map((value): { slot: string } | { value: unknown } =>
    typeof value === 'string' && value.startsWith(SLOT) ? { slot: value.slice(SLOT.length) } : { value },
  );
  return {
    sql: compiled.sql,
    bind: (params) => order.map((item) => ('slot' in item ? (params as Record<string, unknown>)[item.slot] : item.value)),
  };
}

/**
 * Declares a hot read once, at module level; it is compiled and prepared the first time it runs on a given
 * database, and reused after.
 */
export function preparedRead<P extends object, R>(
  build: (db: Db, params: P) => Compilable<R>,
): (database: Database, params: P) => Promise<R | undefined> {
  const prepared = new WeakMap<Database, (params: P) => Promise<R | undefined>>();
  return (database, params) => {
    let read = prepared.get(database);
    if (!read) {
      read = database.prepareOne(build);
      prepared.set(database, read);
    }
    return read(params);
  };
}
