import { type Context, inTransaction } from '../../context/context.js';
import { businessTimeOf } from '../../platform/clock.js';
import { type Db, isPostgres } from '../../platform/database/database.js';
import { isUniqueViolation } from '../../platform/database/database-errors.js';
import { setDeterminism } from '../../platform/deterministic.js';
import { AppError, invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { findMerchant } from '../../platform/tenants.js';
import { withMerchantClock } from '../../sandbox/index.js';
import { LAB_ERRORS } from '../errors.js';
import { requireSandbox } from '../sandbox-only.js';
import {
  deleteSnapshotRow,
  findSnapshot,
  insertPart,
  insertSnapshot,
  listSnapshotRows,
  lockClockOffset,
  partData,
  partIndex,
  type SnapshotRow,
  setSnapshotSize,
} from './store.js';
import { deleteWorld, insertWorld, resumeDueWork, worldOf, worldParts } from './world.js';

export type { SnapshotRow } from './store.js';

/** A snapshot's name: 1 to 64 letters, digits, dots, underscores and hyphens; per merchant. */
export const SNAPSHOT_NAME = '^[A-Za-z0-9._-]{1,64}$';
const NAME = new RegExp(SNAPSHOT_NAME);

function checkName(name: string): void {
  if (!NAME.test(name)) throw invalid('name', 'must be 1 to 64 letters, digits, dots, underscores or hyphens');
}

export interface SavedSnapshot {
  snapshot: SnapshotRow;
  /** A snapshot of that name was there, and this one replaced it. */
  replaced: boolean;
}

/**
 * Saves the merchant's whole world (catalogue.ts) under `name`, with its business time now: one transaction, which on
 * PostgreSQL reads every table at one instant (REPEATABLE READ), so that the rows saved agree with each other. An
 * existing name is refused unless `force`, which replaces it.
 */
export const MAX_SNAPSHOTS_PER_MERCHANT = 20;

export async function saveSnapshot(ctx: Context, input: { name: string; force?: boolean }): Promise<SavedSnapshot> {
  requireSandbox(ctx.config);
  checkName(input.name);
  const world = await worldOf(ctx);
  const save = () =>
    consistently(ctx, async (db) => {
      await lockClockOffset(db, ctx.merchant.id);
      const merchant = (await findMerchant(db, ctx.merchant.id))!;
      const now = ctx.wallClock.now().getTime();
      const existing = await findSnapshot(db, ctx.merchant.id, input.name);
      if (existing && !input.force) throw new AppError(LAB_ERRORS.snapshotExists);
      // Snapshots are whole worlds, kept in the database: a merchant keeps a bounded number of them.
      if (!existing && (await listSnapshotRows(db, ctx.merchant.id)).length >= MAX_SNAPSHOTS_PER_MERCHANT)
        throw new AppError(
          LAB_ERRORS.snapshotsFull,
          `A merchant keeps at most ${MAX_SNAPSHOTS_PER_MERCHANT} snapshots: delete one, or replace one with force.`,
        );
      if (existing) await deleteSnapshotRow(db, ctx.merchant.id, existing.id);
      const snapshot: SnapshotRow = {
        id: newId(),
        merchant_id: ctx.merchant.id,
        name: input.name,
        business_at: businessTimeOf(now, merchant.clock),
        clock_frozen: merchant.clock.frozenAt === null ? 0 : 1,
        id_seed: merchant.ids?.seed ?? null,
        ids_drawn: merchant.ids?.drawn ?? null,
        row_count: 0,
        byte_count: 0,
        created_at: now,
      };
      await insertSnapshot(db, snapshot);
      let seq = 0;
      for await (const part of worldParts(db, world, ctx.merchant.id)) {
        await insertPart(db, { snapshot_id: snapshot.id, seq: seq++, table_name: part.table, data: part.data });
        snapshot.row_count += part.rows;
        snapshot.byte_count += Buffer.byteLength(part.data);
      }
      await setSnapshotSize(db, snapshot.id, { row_count: snapshot.row_count, byte_count: snapshot.byte_count });
      return { snapshot, replaced: existing !== undefined };
    });
  try {
    return await save();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another save of the same name committed first: with force, replace it in turn; else the name is taken.
    if (input.force) return save();
    throw new AppError(LAB_ERRORS.snapshotExists);
  }
}

/** One transaction whose reads all see the same instant, its reply stored in it for an Idempotency-Key. */
async function consistently<T>(ctx: Context, work: (db: Db) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx.db);
  const transaction = isPostgres(ctx.db)
    ? ctx.db.transaction().setIsolationLevel('repeatable read')
    : ctx.db.transaction();
  return transaction.execute(async (db) => {
    const result = await work(db);
    await ctx.outcome?.record(db, result);
    return result;
  });
}

export async function listSnapshots(ctx: Context): Promise<SnapshotRow[]> {
  requireSandbox(ctx.config);
  return listSnapshotRows(ctx.db, ctx.merchant.id);
}

export async function deleteSnapshot(ctx: Context, name: string): Promise<SnapshotRow> {
  requireSandbox(ctx.config);
  checkName(name);
  return inTransaction(
    ctx,
    async (tx) => {
      const snapshot = await findSnapshot(tx.db, tx.merchant.id, name);
      if (!snapshot) throw new AppError(LAB_ERRORS.snapshotNotFound);
      await deleteSnapshotRow(tx.db, tx.merchant.id, snapshot.id);
      return snapshot;
    },
    { completesRequest: true },
  );
}

export interface RestoredWorld {
  snapshot: SnapshotRow;
  /** Rows removed, and rows put back. */
  removed: number;
  restored: number;
  /** Business time once restored (the snapshot's, and the wall time gone by since the restore). */
  now: number;
}

/**
 * Puts the merchant's world back as the snapshot has it, in one transaction (a crash leaves it as it was before or
 * after, never between): every row of the world removed and the snapshot's put back, the business clock set back to
 * the snapshot's time, and the merchant's due work (jobs, webhook deliveries) unclaimed and due again on that clock.
 * A delivery or job another claim held when the restore began is fenced off: its outcome is recorded nowhere.
 * Other merchants are not touched.
 */
export async function restoreSnapshot(ctx: Context, name: string): Promise<RestoredWorld> {
  requireSandbox(ctx.config);
  checkName(name);
  const world = await worldOf(ctx);
  return withMerchantClock(ctx.merchant.id, () =>
    inTransaction(ctx, async (tx) => {
      await lockClockOffset(tx.db, tx.merchant.id);
      const snapshot = await findSnapshot(tx.db, tx.merchant.id, name);
      if (!snapshot) throw new AppError(LAB_ERRORS.snapshotNotFound);
      const removed = await deleteWorld(tx.db, world, tx.merchant.id);
      const restored = await insertWorld(tx.db, world, await partIndex(tx.db, snapshot.id), (seq) =>
        partData(tx.db, snapshot.id, seq),
      );
      // The clock reads the snapshot's business time as the restore commits (the wall time it took aside).
      const now = tx.wallClock.now().getTime();
      const clock = {
        offsetMs: snapshot.business_at - now,
        frozenAt: snapshot.clock_frozen === 1 ? snapshot.business_at : null,
      };
      const ids = snapshot.id_seed === null ? undefined : { seed: snapshot.id_seed, drawn: snapshot.ids_drawn ?? 0 };
      await setDeterminism(tx.db, tx.merchant.id, { clock, ids }, now);
      await resumeDueWork(tx.db, tx.merchant.id, clock);
      tx.afterCommit?.(() => tx.outbox?.wake());
      return { snapshot, removed, restored, now: snapshot.business_at };
    }),
  );
}
