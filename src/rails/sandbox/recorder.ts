import type { Selectable } from 'kysely';
import { type Db, preparedInsertRows } from '../../platform/database/database.js';
import type { SandboxAcquirerOperationsTable } from '../../platform/database/schema.js';

/** What the sandbox acquirer keeps of an operation, as a real acquirer keeps its own ledger. */
export type SandboxOperation = Selectable<SandboxAcquirerOperationsTable>;

/** More than this many at once are written in several transactions, each of a bounded size. */
const ROWS_PER_TRANSACTION = 500;

/** The rows of one turn, a reference already recorded left out: the references written answer. */
const insertOperations = preparedInsertRows(
  'sandbox_acquirer_operations',
  {
    reference: true,
    merchant_id: true,
    kind: true,
    status: true,
    payment_method: true,
    amount: true,
    currency: true,
    original_reference: true,
    card_first6: true,
    card_last4: true,
    card_brand: true,
    response_code: true,
    response_message: true,
    auth_code: true,
    rrn: true,
    payer_token: true,
    created_at: true,
    updated_at: true,
  },
  { onConflictDoNothing: ['reference'], returning: 'reference' },
);

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
    for (let i = 0; i < turn.length; i += ROWS_PER_TRANSACTION) {
      const part = turn.slice(i, i + ROWS_PER_TRANSACTION);
      void this.insertTogether(part).catch(() => this.insertOneByOne(part));
    }
  }

  /**
   * In one transaction, in as few statements as the turn allows; a reference named twice in the turn is recorded by
   * its first caller. A row written is the one given; one recorded before is read back.
   */
  private async insertTogether(part: Waiting[]): Promise<void> {
    const first = new Map<string, SandboxOperation>();
    for (const { row } of part) if (!first.has(row.reference)) first.set(row.reference, row);
    const recorded = await this.db.transaction().execute(async (tx) => {
      const written = new Set(await insertOperations(tx, [...first.values()]));
      const recorded = new Map([...first].filter(([reference]) => written.has(reference)));
      const before = [...first.keys()].filter((reference) => !written.has(reference));
      if (before.length > 0) {
        for (const row of await tx
          .selectFrom('sandbox_acquirer_operations')
          .selectAll()
          .where('reference', 'in', before)
          .execute()) {
          recorded.set(row.reference, row);
        }
      }
      return recorded;
    });
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

/**
 * Records one operation (on an open transaction, or alone): this row, or the one recorded first under its reference.
 */
export async function recordOne(db: Db, row: SandboxOperation): Promise<SandboxOperation> {
  const inserted = await db
    .insertInto('sandbox_acquirer_operations')
    .values(row)
    .onConflict((oc) => oc.column('reference').doNothing())
    .returningAll()
    .executeTakeFirst();
  const recorded =
    inserted ??
    (await db
      .selectFrom('sandbox_acquirer_operations')
      .selectAll()
      .where('reference', '=', row.reference)
      .executeTakeFirst());
  if (!recorded) throw new Error(`sandbox acquirer: operation ${row.reference} neither recorded nor found`);
  return recorded;
}
