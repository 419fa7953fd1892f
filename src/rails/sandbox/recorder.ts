import type { Selectable } from 'kysely';
import type { Db } from '../../platform/database/database.js';
import type { SandboxAcquirerOperationsTable } from '../../platform/database/schema.js';

/** What the sandbox acquirer keeps of an operation, as a real acquirer keeps its own ledger. */
export type SandboxOperation = Selectable<SandboxAcquirerOperationsTable>;

/** More than this many at once go in several statements (SQLite binds at most 32,766 values to one). */
const ROWS_PER_STATEMENT = 500;

interface Waiting {
  row: SandboxOperation;
  resolve(recorded: SandboxOperation): void;
  reject(error: unknown): void;
}

/**
 * Writes the sandbox acquirer's records of its operations. Operations that arrive in one turn of the event loop
 * (a batch's round, a billing round, concurrent API requests) are inserted in one statement, so one commit
 * instead of one each (on SQLite every commit writes the pages it touched to the WAL again). Each caller still
 * learns what is recorded under its reference once that statement has committed: its own row, or the one recorded
 * first (the acquirer never does an operation twice).
 */
export class OperationRecorder {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  record(row: SandboxOperation): Promise<SandboxOperation> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const turn = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    for (let i = 0; i < turn.length; i += ROWS_PER_STATEMENT) {
      const part = turn.slice(i, i + ROWS_PER_STATEMENT);
      void this.insertTogether(part).catch(() => this.insertOneByOne(part));
    }
  }

  /** One statement for them all; a reference named twice in the turn is recorded by its first caller. */
  private async insertTogether(part: Waiting[]): Promise<void> {
    const first = new Map<string, SandboxOperation>();
    for (const { row } of part) if (!first.has(row.reference)) first.set(row.reference, row);
    const recorded = new Map((await this.db.insertInto('sandbox_acquirer_operations').values([...first.values()])
      .onConflict((oc) => oc.column('reference').doNothing()).returningAll().execute()).map((row) => [row.reference, row]));
    const before = [...first.keys()].filter((reference) => !recorded.has(reference));
    if (before.length > 0) {
      for (const row of await this.db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', 'in', before).execute()) {
        recorded.set(row.reference, row);
      }
    }
    for (const waiting of part) {
      const row = recorded.get(waiting.row.reference);
      if (row) waiting.resolve(row);
      else waiting.reject(new Error(`sandbox acquirer: operation ${waiting.row.reference} neither recorded nor found`));
    }
  }

  /** When the statement fails, each row alone: only a faulty one fails its caller. */
  private async insertOneByOne(part: Waiting[]): Promise<void> {
    for (const waiting of part) {
      try {
        waiting.resolve(await recordOne(this.db, waiting.row));
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}

/** Records one operation (on an open transaction, or alone): this row, or the one recorded first under its reference. */
export async function recordOne(db: Db, row: SandboxOperation): Promise<SandboxOperation> {
  const inserted = await db.insertInto('sandbox_acquirer_operations').values(row)
    .onConflict((oc) => oc.column('reference').doNothing()).returningAll().executeTakeFirst();
  const recorded = inserted ?? (await db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', row.reference).executeTakeFirst());
  if (!recorded) throw new Error(`sandbox acquirer: operation ${row.reference} neither recorded nor found`);
  return recorded;
}
