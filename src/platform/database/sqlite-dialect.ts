import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { AppError, PLATFORM_ERRORS } from '../errors.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';

/**
 * Kysely's own SQLite dialect prepares every statement anew (a sixth of the speed of a reused statement), opens
 * transactions with a deferred BEGIN, which fails instead of waiting when the CLI writes at the same time, and
 * runs migrations outside any transaction. This one keeps prepared statements, begins with BEGIN IMMEDIATE, and
 * migrates in one transaction: a migration that fails leaves nothing behind, and a second process migrating
 * at the same moment waits for the first and then finds nothing to do.
 */
export class SqliteWriterDialect implements Dialect {
  constructor(
    private readonly database: SqliteDatabase,
    /** Told of every statement that writes (for group commit). */
    private readonly onWrite: () => void = () => {},
    private readonly waitLimitMs = 30_000,
  ) {}

  createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  createDriver(): Driver {
    return new SqliteWriterDriver(this.database, this.onWrite, this.waitLimitMs);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}

/** SQLite does run CREATE and ALTER inside transactions; Kysely's adapter just does not claim it. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class SqliteWriterDriver implements Driver {
  private readonly connection: CachedStatementConnection;
  private readonly mutex = new Mutex();

  constructor(
    private readonly database: SqliteDatabase,
    onWrite: () => void,
    private readonly waitLimitMs: number,
  ) {
    this.connection = new CachedStatementConnection(database, onWrite);
  }

  async init(): Promise<void> {}

  /** One connection, one user at a time: transactions are serialised in the process, never interleaved. */
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock(this.waitLimitMs);
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

class Mutex {
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  async lock(waitLimitMs: number): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        // A 503: the client may retry. If it happens without load, suspect a query outside its open transaction.
        reject(new AppError(PLATFORM_ERRORS.unavailable, `Waited over ${waitLimitMs} ms for the database.`));
      }, waitLimitMs);
      this.waiters.push(waiter);
    });
  }

  /** Hands the lock straight to the next waiter, so it never looks free while someone waits. */
  unlock(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}

const STATEMENT_CACHE_SIZE = 500;
/** Not writes, though SQLite does not count them as read-only. */
const TRANSACTION_CONTROL = /^\s*(begin|rollback|savepoint|release)\b/i;

class CachedStatementConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(
    private readonly database: SqliteDatabase,
    private readonly onWrite: () => void,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.statement(compiled.sql);
    const parameters = compiled.parameters as unknown[];
    if (!statement.readonly && !TRANSACTION_CONTROL.test(compiled.sql)) this.onWrite();
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.statement(compiled.sql);
    for (const row of statement.iterate(compiled.parameters as unknown[])) yield { rows: [row as R] };
  }

  // A hit only looks up: moving it to the end (an exact LRU) cost a delete and a set, each hashing the SQL text
  // again, on every statement run. The first prepared is the first evicted; a busy statement evicted is prepared
  // again at its next run.
  private statement(sql: string): SqliteStatement {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const statement = this.database.prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      this.statements.delete(this.statements.keys().next().value as string);
    }
    this.statements.set(sql, statement);
    return statement;
  }
}
