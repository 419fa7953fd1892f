import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../platform/database/database.js';
import { forUpdate } from '../../platform/database/locking.js';
import type { LabSnapshotPartsTable, LabSnapshotsTable } from '../tables.js';

export type SnapshotRow = Selectable<LabSnapshotsTable>;

export async function findSnapshot(db: Db, merchantId: string, name: string): Promise<SnapshotRow | undefined> {
  return db
    .selectFrom('lab_snapshots')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function listSnapshotRows(db: Db, merchantId: string): Promise<SnapshotRow[]> {
  return db.selectFrom('lab_snapshots').selectAll().where('merchant_id', '=', merchantId).orderBy('name').execute();
}

export async function insertSnapshot(db: Db, row: Insertable<LabSnapshotsTable>): Promise<void> {
  await db.insertInto('lab_snapshots').values(row).execute();
}

export async function setSnapshotSize(
  db: Db,
  id: string,
  size: { row_count: number; byte_count: number },
): Promise<void> {
  await db.updateTable('lab_snapshots').set(size).where('id', '=', id).execute();
}

/** Deletes a snapshot and its parts. */
export async function deleteSnapshotRow(db: Db, merchantId: string, id: string): Promise<void> {
  await db.deleteFrom('lab_snapshot_parts').where('snapshot_id', '=', id).execute();
  await db.deleteFrom('lab_snapshots').where('merchant_id', '=', merchantId).where('id', '=', id).execute();
}

export async function insertPart(db: Db, part: Insertable<LabSnapshotPartsTable>): Promise<void> {
  await db.insertInto('lab_snapshot_parts').values(part).execute();
}

/** Which table each part holds, in the order they were written (without their data). */
export async function partIndex(db: Db, snapshotId: string): Promise<Array<{ seq: number; table_name: string }>> {
  return db
    .selectFrom('lab_snapshot_parts')
    .select(['seq', 'table_name'])
    .where('snapshot_id', '=', snapshotId)
    .orderBy('seq')
    .execute();
}

export async function partData(db: Db, snapshotId: string, seq: number): Promise<string> {
  const part = await db
    .selectFrom('lab_snapshot_parts')
    .select('data')
    .where('snapshot_id', '=', snapshotId)
    .where('seq', '=', seq)
    .executeTakeFirstOrThrow();
  return part.data;
}

/**
 * The merchant's clock offset, its row locked until the transaction ends: no clock move, webhook record or other
 * restore of the merchant's slips in between.
 */
export async function lockClockOffset(db: Db, merchantId: string): Promise<number> {
  const row = await forUpdate(
    db,
    db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId),
  ).executeTakeFirstOrThrow();
  return row.clock_offset_ms;
}
