import { type Context, inTransaction } from '../context/context.js';
import { emitBatchEvent } from './events.js';
import type { RunPayload } from './run.js';
import { type BatchRecord, dropFileParts, dropRows, endUnfinishedRows, findBatch, updateBatch } from './store.js';

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
      await emitBatchEvent(tx, 'batch.failed', {
        ...current,
        ...patch,
        total_records: 0,
        successful_records: 0,
        failed_records: 0,
      });
    }
  });
}

/**
 * What a merchant reads of a fault of paygate's own (the error itself is for the operator: the job's last_error, the
 * log).
 */
const INTERNAL_FAULT = 'an internal fault of paygate, recorded for its operator';

/** The fetch or the load of a batch failed for good: the batch fails, and nothing of its file is left. */
export async function giveUpFile(ctx: Context, { batchId }: { batchId: string }): Promise<void> {
  const batch = await findBatch(ctx.db, ctx.merchant.id, batchId, true);
  if (batch) await failBatch(ctx, batch, `The file could not be read: ${INTERNAL_FAULT}. No row ran.`);
}

/**
 * A chunk of a batch's rows failed to run for good: the batch stops, failed, naming those rows. Its rows that ended
 * keep their outcome; a row begun is failed (its transaction, if it made one, ends on its own and reads back as it
 * ends); a row not begun is skipped; no row keeps its card.
 */
export async function giveUpRun(ctx: Context, { batchId, first, last }: RunPayload): Promise<void> {
  const seen = await findBatch(ctx.db, ctx.merchant.id, batchId);
  if (!seen || (seen.upload_status !== 'processing' && seen.upload_status !== 'cancelled')) return;
  const now = ctx.clock.now().getTime();
  // The rows first, then the batch: the order the runner's rounds lock them in (a cancel's too).
  const ended = await endUnfinishedRows(
    ctx.db,
    ctx.merchant.id,
    batchId,
    {
      running: `Not finished: ${INTERNAL_FAULT}. Its transaction, if it made one, ends on its own; read it by its id.`,
      waiting: 'Skipped: the batch stopped before this row ran.',
    },
    now,
  );
  const batch = (await findBatch(ctx.db, ctx.merchant.id, batchId, true))!;
  const counts = {
    failed_records: batch.failed_records + ended.failed,
    skipped_records: batch.skipped_records + ended.skipped,
    updated_at: now,
  };
  if (batch.upload_status !== 'processing') {
    // Cancelled meanwhile: it stays cancelled, and the rows its cancel left running are counted as they ended.
    await updateBatch(ctx.db, ctx.merchant.id, batchId, counts);
    return;
  }
  const patch = {
    ...counts,
    upload_status: 'failed',
    finished_at: now,
    failure_reason: `Rows ${first} to ${last} could not be run: ${INTERNAL_FAULT}. Rows not yet run were skipped.`,
  } as const;
  await updateBatch(ctx.db, ctx.merchant.id, batchId, patch);
  await emitBatchEvent(ctx, 'batch.failed', { ...batch, ...patch });
}
