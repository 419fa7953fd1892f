import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  type CompiledQuery,
  createQueryId,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  type QueryResult,
  RawNode,
  type Selectable,
} from 'kysely';
import pg from 'pg';
import { Checkpointer, type CheckpointerEvent } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';
import { createPrivately, privateDataDir } from './private-files.js';
import type { Schema } from './schema.js';
import { SqliteWriterDialect } from './sqlite-dialect.js';
import { Sqlite, type SqliteDatabase, type SqliteStatement } from './sqlite-driver.js';

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
  /**
   * SQLite: copy the write-ahead log back into the database on a thread of its own instead of inside commits
   * (the server; a short command keeps SQLite's default). Told of what the thread reports.
   */
  backgroundCheckpoints?: (event: CheckpointerEvent) => void;
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
export type ReadBuilder<P extends object, R> = (
  db: Db,
  params: P,
) => {
  compile(): CompiledQuery<R>;
  executeTakeFirst(): Promise<R | undefined>;
};

/** A statement built from its named parameters, each bound as it is (see {@link preparedQuery}). */
export type StatementBuilder<P extends object, R> = (db: Db, params: P) => { compile(): CompiledQuery<R> };

export const SQLITE_FILE = 'paygate.sqlite';

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options);
}

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function openSqlite(options: DatabaseOptions): Database {
  const file = join(privateDataDir(options.dataDir), SQLITE_FILE);
  const writer = createPrivately(() => new Sqlite(file));
  writer.pragma('journal_mode = WAL');
  // Commits never wait on the disk; FULL durability comes from flushing the WAL before a write is told about
  // (group commit), which costs the event loop nothing and serves many commits with one flush.
  writer.pragma('synchronous = NORMAL');
  const groupCommit =
    options.sqliteSynchronous === 'FULL'
      ? new GroupCommit(`${file}-wal`, (error) => options.onDurabilityFailure?.(error))
      : undefined;
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  // After a restart of a log grown long, the file is cut back: a burst of writes does not keep its disk space.
  writer.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const db = new Kysely<Schema>({ dialect: new SqliteWriterDialect(writer, () => groupCommit?.noteWrite()) });
  const checkpointer =
    options.backgroundCheckpoints &&
    new Checkpointer(writer, file, (during) => db.connection().execute(during), options.backgroundCheckpoints);

  let reader: SqliteDatabase | undefined;
  const readerConnection = () => {
    if (!reader) {
      reader = new Sqlite(file, { readonly: true, fileMustExist: true });
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
      let statement: SqliteStatement | undefined;
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
      await checkpointer?.stop();
      reader?.close();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  // The data folder holds no database here, but the demo key pair and any other file of the server's: private too.
  privateDataDir(options.dataDir);
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

/** A statement compiled with placeholders: its SQL, and per position the named parameter bound there. */
interface SlottedStatement {
  sql: string;
  /** Per position: the named parameter bound there, or undefined where the builder put a constant. */
  slots: ReadonlyArray<string | undefined>;
  constants: readonly unknown[];
}

/**
 * Compiles a query built with placeholder parameters, remembering which placeholder is which named parameter.
 * A placeholder the builder altered (concatenated, inlined with sql.raw) would bind the wrong value: refused.
 */
function compileSlots<P extends object, R>(db: Db, build: StatementBuilder<P, R>): SlottedStatement {
  const read = new Set<string>();
  const placeholders = new Proxy(
    {},
    {
      get: (_, key) => {
        read.add(String(key));
        return `${SLOT}${String(key)}`;
      },
    },
  ) as P;
  const compiled: CompiledQuery<R> = build(db, placeholders).compile();
  const bound = new Set(compiled.parameters.filter((v): v is string => typeof v === 'string' && v.startsWith(SLOT)));
  const intact =
    [...read].every((key) => bound.has(`${SLOT}${key}`)) && [...bound].every((v) => read.has(v.slice(SLOT.length)));
  if (!intact || compiled.sql.includes(SLOT))
    throw new Error(`a prepared statement must bind its parameters as they are: ${compiled.sql}`);
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(SLOT) ? value.slice(SLOT.length) : undefined,
  );
  return { sql: compiled.sql, slots, constants: compiled.parameters };
}

/** {@link compileSlots}, with the parameters bound from an object of named values. */
function compileWithSlots<P extends object, R>(
  db: Db,
  build: StatementBuilder<P, R>,
): { sql: string; bind: (params: P) => unknown[] } {
  const slotted = compileSlots(db, build);
  return { sql: slotted.sql, bind: namedValues(slotted) };
}

/**
 * A statement compiled once per engine (a transaction shares its database's adapter, and SQLite and PostgreSQL
 * compile differently), run with the values `bind` puts in its positions. Its query node is made once: Kysely's
 * `CompiledQuery.raw` makes and freezes a new one on every run, which only plugins (paygate has none) would read.
 */
function compiledStatement<P extends object, B, R>(
  build: StatementBuilder<P, R>,
  binderOf: (statement: SlottedStatement) => (bound: B) => unknown[],
): (db: Db, bound: B) => Promise<QueryResult<R>> {
  const compiled = new WeakMap<object, { sql: string; query: RawNode; bind: (bound: B) => unknown[] }>();
  // (async: a statement refused as it is first compiled rejects, as a statement that fails to run does)
  return async (db, bound) => {
    const executor = db.getExecutor();
    let statement = compiled.get(executor.adapter);
    if (!statement) {
      const slotted = compileSlots(db, build);
      statement = { sql: slotted.sql, query: RawNode.createWithSql(slotted.sql), bind: binderOf(slotted) };
      compiled.set(executor.adapter, statement);
    }
    const query: CompiledQuery<R> = {
      sql: statement.sql,
      query: statement.query,
      parameters: statement.bind(bound),
      queryId: createQueryId(),
    };
    // Straight to the connection, as Kysely's executeQuery ends up doing (through a new executor and three more
    // async steps a statement): the executor still refuses a transaction that has ended. Only plugins would
    // transform the result, and paygate has none.
    if (executor.plugins.length > 0) return db.executeQuery<R>(query);
    return executor.provideConnection((connection) => connection.executeQuery<R>(query));
  };
}

/** Binds each position from an object of named values. */
const namedValues =
  ({ slots, constants }: SlottedStatement) =>
  (params: object): unknown[] => {
    const named = params as Record<string, unknown>;
    const values = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i += 1) {
      const slot = slots[i];
      values[i] = slot === undefined ? constants[i] : named[slot];
    }
    return values;
  };

/**
 * Declares a hot read once, at module level; it is compiled and prepared the first time it runs on a given
 * database, and reused after. Inside a transaction it runs on that transaction instead: it then sees the
 * transaction's own writes, and takes no second connection while the transaction holds one.
 */
export function preparedRead<P extends object, R>(
  build: ReadBuilder<P, R>,
): (scope: { database: Database; db: Db }, params: P) => Promise<R | undefined> {
  const prepared = new WeakMap<Database, (params: P) => Promise<R | undefined>>();
  const inTransaction = preparedQuery(build);
  return async (scope, params) => {
    if (scope.db.isTransaction) return (await inTransaction(scope.db, params)).rows[0];
    let read = prepared.get(scope.database);
    if (!read) {
      read = scope.database.prepareOne(build);
      prepared.set(scope.database, read);
    }
    return read(params);
  };
}

/**
 * Declares a hot statement once, at module level: Kysely builds and compiles it the first time it runs on a
 * database engine, and after that it runs from its SQL text with the parameters bound in place, on the database
 * or the transaction it is given. Building and compiling a query cost about as much CPU as SQLite running it on the
 * payment path (docs/benchmarks.md); what is built must not depend on the parameters' values.
 */
export function preparedQuery<P extends object, R>(
  build: StatementBuilder<P, R>,
): (db: Db, params: P) => Promise<QueryResult<R>> {
  return compiledStatement<P, P, R>(build, namedValues);
}

/**
 * A prepared UPDATE that sets the columns a patch names (those not undefined), prepared once for each set of
 * columns met; `build` makes the statement from the SET object and the other parameters.
 */
export function preparedPatch<P extends object, R>(
  build: (db: Db, set: Record<string, unknown>, params: P) => { compile(): CompiledQuery<R> },
): (db: Db, patch: object, params: P) => Promise<QueryResult<R>> {
  type Bound = { patch: Record<string, unknown>; params: Record<string, unknown> };
  // By the columns set, in the patch's order: a patch's shape is found by following its column names, so no key
  // string is built for each update.
  interface Shape {
    update?: (db: Db, bound: Bound) => Promise<QueryResult<R>>;
    next: Map<string, Shape>;
  }
  const shapes: Shape = { next: new Map() };
  const updateOf = (columns: string[]) =>
    compiledStatement<Record<string, unknown>, Bound, R>(
      (db, p) => build(db, Object.fromEntries(columns.map((column) => [column, p[`${PATCH_SLOT}${column}`]])), p as P),
      ({ slots, constants }) => {
        const patched = slots.map((slot) => (slot?.startsWith(PATCH_SLOT) ? slot.slice(PATCH_SLOT.length) : undefined));
        return ({ patch, params }) => {
          const values = new Array<unknown>(slots.length);
          for (let i = 0; i < slots.length; i += 1) {
            const column = patched[i];
            const slot = slots[i];
            values[i] = column !== undefined ? patch[column] : slot === undefined ? constants[i] : params[slot];
          }
          return values;
        };
      },
    );
  return (db, patch, params) => {
    const values = patch as Record<string, unknown>;
    let shape = shapes;
    const columns: string[] = [];
    for (const column in values) {
      if (values[column] === undefined) continue;
      columns.push(column);
      let next = shape.next.get(column);
      if (!next) {
        next = { next: new Map() };
        shape.next.set(column, next);
      }
      shape = next;
    }
    shape.update ??= updateOf(columns);
    return shape.update(db, { patch: values, params: params as Record<string, unknown> });
  };
}

/** The prefix of a patch's columns among a prepared update's named parameters. */
const PATCH_SLOT = '\u0000set:';

/**
 * A prepared INSERT of one whole row of `table`: `columns` names every column (the compiler checks that none is
 * missing), and each is bound from the row given.
 */
export function preparedInsert<T extends keyof Schema & string>(
  table: T,
  columns: Record<keyof Selectable<Schema[T]> & string, true>,
): (db: Db, row: Selectable<Schema[T]>) => Promise<void> {
  const names = Object.keys(columns);
  const insert = preparedQuery((db, row: Record<string, unknown>) =>
    db.insertInto(table).values(Object.fromEntries(names.map((name) => [name, row[name]])) as never),
  );
  return async (db, row) => {
    await insert(db, row as Record<string, unknown>);
  };
}

/** The sizes a multi-row INSERT is cut into, largest first: each size is one statement, compiled and prepared once. */
const ROWS_LADDER = [256, 64, 16, 4, 1] as const;

/**
 * A prepared INSERT of many whole rows of `table` (as {@link preparedInsert}), in as few statements as the sizes of
 * {@link ROWS_LADDER} allow: a statement per row costs its own round trip (PostgreSQL) or its own run through the
 * driver (SQLite), several rows in one statement share it. A fixed set of sizes keeps the statements few enough to
 * stay prepared. `onConflictDoNothing` names a unique key whose duplicates are left out; `returning` a column each
 * row written answers (the rows left out answer nothing).
 */
export function preparedInsertRows<T extends keyof Schema & string>(
  table: T,
  columns: Record<keyof Selectable<Schema[T]> & string, true>,
  options: {
    onConflictDoNothing?: Array<keyof Selectable<Schema[T]> & string>;
    returning?: keyof Selectable<Schema[T]> & string;
  } = {},
): (db: Db, rows: ReadonlyArray<Selectable<Schema[T]>>) => Promise<unknown[]> {
  const names = Object.keys(columns);
  type Rows = { rows: ReadonlyArray<Record<string, unknown>>; first: number };
  const bySize = new Map<number, (db: Db, bound: Rows) => Promise<QueryResult<Record<string, unknown>>>>();
  const statementOf = (size: number) => {
    let insert = bySize.get(size);
    if (!insert) {
      insert = compiledStatement<Record<string, unknown>, Rows, Record<string, unknown>>(
        (db, p) => {
          const rows = Array.from({ length: size }, (_, row) =>
            Object.fromEntries(names.map((name) => [name, p[`${row}:${name}`]])),
          );
          let query = db.insertInto(table).values(rows as never);
          if (options.onConflictDoNothing)
            query = query.onConflict((oc) => oc.columns(options.onConflictDoNothing as never).doNothing());
          return options.returning ? query.returning(options.returning as never) : query;
        },
        ({ slots, constants }) => {
          // Per position: the row (within the statement) and the column bound there.
          const rowOf = slots.map((slot) => (slot === undefined ? -1 : Number(slot.slice(0, slot.indexOf(':')))));
          const columnOf = slots.map((slot) => (slot === undefined ? '' : slot.slice(slot.indexOf(':') + 1)));
          return ({ rows, first }) => {
            const values = new Array<unknown>(slots.length);
            for (let i = 0; i < slots.length; i += 1) {
              const row = rowOf[i]!;
              values[i] = row < 0 ? constants[i] : rows[first + row]![columnOf[i]!];
            }
            return values;
          };
        },
      );
      bySize.set(size, insert);
    }
    return insert;
  };
  return async (db, rows) => {
    const answered: unknown[] = [];
    let next = 0;
    for (const size of ROWS_LADDER) {
      while (rows.length - next >= size) {
        const result = await statementOf(size)(db, {
          rows: rows as ReadonlyArray<Record<string, unknown>>,
          first: next,
        });
        next += size;
        if (options.returning) for (const written of result.rows) answered.push(written[options.returning]);
      }
    }
    return answered;
  };
}
