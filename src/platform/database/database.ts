import { createHash } from 'node:crypto';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { GroupCommit } from './group-commit.js';
import { createPrivately, privateDataDir } from './private-files.js';
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
  /** Told once if the disk refuses a flush: from then on nothing written can be promised durable. */
  onDurabilityFailure?(error: Error): void;
}

export interface Database {
  readonly engine: Engine;
  readonly db: Db;
  readonly dataDir: string;
  /**
   * A read compiled once and kept prepared: on the read-only connection for SQLite (never behind the
   * writer's open transaction), as a named statement for PostgreSQL. Use it through {@link preparedRead}.
   */
  prepareOne<P extends object, R>(build: ReadBuilder<P, R>): (params: P) => Promise<R | undefined>;
  /**
   * Resolves once every write committed before the call is on disk. Await it before telling anyone outside
   * about a write (a reply, an acquirer call, a webhook). With SQLite at synchronous=FULL it is a group-commit
   * flush; otherwise commits are as durable as they will be already, and it resolves at once.
   */
  durable(): Promise<void>;
  /** Set once a flush has failed: the process must stop answering (not ready) and be restarted. */
  durabilityFailure(): Error | undefined;
  /** Makes every write durable, then closes. */
  close(): Promise<void>;
}

/** A one-row read, built from its parameters; run prepared, or on an open transaction. */
export type ReadBuilder<P extends object, R> = (db: Db, params: P) => {
  compile(): CompiledQuery<R>;
  executeTakeFirst(): Promise<R | undefined>;
};

export const SQLITE_FILE = 'paygate.sqlite';

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options);
}

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function openSqlite(options: DatabaseOptions): Database {
  const file = join(privateDataDir(options.dataDir), SQLITE_FILE);
  const writer = createPrivately(() => new BetterSqlite3(file));
  writer.pragma('journal_mode = WAL');
  // Commits never wait on the disk; FULL durability comes from flushing the WAL before a write is told about
  // (group commit), which costs the event loop nothing and serves many commits with one flush.
  writer.pragma('synchronous = NORMAL');
  const groupCommit = options.sqliteSynchronous === 'FULL'
    ? new GroupCommit(`${file}-wal`, (error) => options.onDurabilityFailure?.(error))
    : undefined;
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteWriterDialect(writer, () => groupCommit?.noteWrite()) });

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
    prepareOne<P extends object, R>(build: ReadBuilder<P, R>) {
      const { sql, bind } = compileWithSlots(db, build);
      let statement: BetterSqlite3.Statement | undefined;
      return async (params: P) => {
        statement ??= readerConnection().prepare(sql);
        return statement.get(bind(params)) as R | undefined;
      };
    },
    durable: () => groupCommit?.sync() ?? Promise.resolve(),
    durabilityFailure: () => groupCommit?.failure,
    async close() {
      try {
        await groupCommit?.sync();
      } finally {
        await groupCommit?.close();
      }
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
    // Bounded waits: a request never hangs on a busy pool, a slow statement or a forgotten transaction.
    connectionTimeoutMillis: 10_000,
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 60_000,
  });
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    engine: 'postgres',
    db,
    dataDir: options.dataDir,
    prepareOne<P extends object, R>(build: ReadBuilder<P, R>) {
      const { sql, bind } = compileWithSlots(db, build);
      const name = `p_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      return async (params: P) => {
        const result = await pool.query({ name, text: sql, values: bind(params) });
        return result.rows[0] as R | undefined;
      };
    },
    durable: () => Promise.resolve(),
    durabilityFailure: () => undefined,
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

/**
 * Compiles a query built with placeholder parameters, remembering which placeholder is which named parameter.
 * A placeholder the builder altered (concatenated, inlined with sql.raw) would bind the wrong value: refused.
 */
function compileWithSlots<P extends object, R>(db: Db, build: ReadBuilder<P, R>): { sql: string; bind: (params: P) => unknown[] } {
  const read = new Set<string>();
  const placeholders = new Proxy({}, { get: (_, key) => (read.add(String(key)), `${SLOT}${String(key)}`) }) as P;
  const compiled: CompiledQuery<R> = build(db, placeholders).compile();
  const bound = new Set(compiled.parameters.filter((v): v is string => typeof v === 'string' && v.startsWith(SLOT)));
  const intact = [...read].every((key) => bound.has(`${SLOT}${key}`)) && [...bound].every((v) => read.has(v.slice(SLOT.length)));
  if (!intact || compiled.sql.includes(SLOT)) throw new Error(`a prepared read must bind its parameters as they are: ${compiled.sql}`);
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
 * database, and reused after. Inside a transaction it runs on that transaction instead: it then sees the
 * transaction's own writes, and takes no second connection while the transaction holds one.
 */
export function preparedRead<P extends object, R>(
  build: ReadBuilder<P, R>,
): (scope: { database: Database; db: Db }, params: P) => Promise<R | undefined> {
  const prepared = new WeakMap<Database, (params: P) => Promise<R | undefined>>();
  return (scope, params) => {
    if (scope.db.isTransaction) return build(scope.db, params).executeTakeFirst();
    let read = prepared.get(scope.database);
    if (!read) {
      read = scope.database.prepareOne(build);
      prepared.set(scope.database, read);
    }
    return read(params);
  };
}

/** A database that is busy or timed out (a 503 the client may retry), not a fault in the request. */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '57014' || code === '55P03' || code === '40001' || code === '40P01' || code === 'SQLITE_BUSY') return true;
  return error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
}

/** A unique constraint refused an insert (a concurrent writer got there first). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
