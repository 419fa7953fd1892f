import { inTransaction, type Context } from '../context/context.js';
import { emitBatchEvent } from './events.js';
import { dropFileParts, dropRows, findBatch, updateBatch, type BatchRecord } from './store.js';

/**
 * The batch's file could not be fetched or read: the batch fails with the reason, and nothing of the file remains
 * (its sealed parts, the rows read from it). Before its rows are handed over only: none of them has run.
 */
export async function failBatch(ctx: Context, batch: BatchRecord, reason: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now().getTime();
    const current = await findBatch(tx.db, tx.merchant.id, batch.id, true);
    if (!current || current.file_kind !== null) return;
    await dropRows(tx.db, tx.merchant.id, batch.id);
    await dropFileParts(tx.db, tx.merchant.id, batch.id);
    const patch = { upload_status: 'failed', failure_reason: reason, finished_at: now, updated_at: now } as const;
    if (await updateBatch(tx.db, tx.merchant.id, batch.id, patch, ['pending', 'processing'])) {
      await emitBatchEvent(tx, 'batch.failed', { ...current, ...patch, total_records: 0, successful_records: 0, failed_records: 0 });
    }
  });
}
