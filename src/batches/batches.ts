import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { localTime } from '../platform/time-zone.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { findMisnumbering } from './batch-file.js';
import { BATCH_ERRORS } from './errors.js';
import { emitBatchEvent } from './events.js';
import { bufferSource } from './file-source.js';
import { FETCH_JOB, LOAD_JOB } from './load.js';
import {
  BATCH_FILTERS,
  type BatchRecord,
  findBatch,
  insertBatch,
  listBatches,
  skipWaitingRows,
  updateBatch,
} from './store.js';
import { storeFile } from './stored-file.js';

/** What a new batch is made from: a URL to fetch, or the file itself (the request's body). */
export type BatchSource = { fileUrl: string } | { file: Buffer };

/**
 * Creates a batch, pending: the file is fetched (or taken from where the request left it) and read by background
 * work; the request only reads an XLSX body for misnumbered rows and cells, and seals the body into the batch's parts.
 * A `file_url` is checked as every URL a merchant gives (http or https, no
 * credentials, no address paygate may not call); what it answers is found out by that work, which fails the batch
 * with the reason.
 */
export async function createBatch(ctx: Context, source: BatchSource, name: string | undefined): Promise<BatchRecord> {
  if ('fileUrl' in source) checkMerchantUrl(source.fileUrl, 'batch.file_url', ctx.config.mode);
  if ('file' in source && source.file.length === 0)
    throw new AppError(BATCH_ERRORS.batchFileMissing, 'The body is empty: send the file.');
  if ('file' in source) {
    const misnumbered = await findMisnumbering(bufferSource(source.file));
    if (misnumbered) throw new AppError(BATCH_ERRORS.batchFileMisnumbered, misnumbered.message);
  }
  const now = ctx.clock.now().getTime();
  const appId = ctx.actor.kind === 'app' ? ctx.actor.appId : null;
  const batch: BatchRecord = {
    id: ctx.ids.sortable(now),
    merchant_id: ctx.merchant.id,
    batch_name: name ?? defaultName(source, ctx.merchant.timezone, now),
    upload_status: 'pending',
    file_url: 'fileUrl' in source ? source.fileUrl : null,
    file_kind: null,
    file_bytes: 'file' in source ? source.file.length : null,
    total_records: 0,
    successful_records: 0,
    failed_records: 0,
    skipped_records: 0,
    failure_reason: null,
    app_id: appId,
    created_by: appId ?? 'operator',
    started_at: null,
    finished_at: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  return inTransaction(
    ctx,
    async (tx) => {
      await insertBatch(tx.db, batch);
      if ('file' in source) await storeFile(tx, batch.id, source.file);
      // A file to fetch waits on the network (the fetch job), a file at hand is read at once (the load job).
      const kind = 'file' in source ? LOAD_JOB : FETCH_JOB;
      await scheduleJob(tx, {
        kind,
        merchantId: tx.merchant.id,
        dueAt: now,
        payload: { batchId: batch.id },
        dedupeKey: `${kind}:${batch.id}`,
      });
      return batch;
    },
    { completesRequest: true },
  );
}

/** A batch without a name is named after its file (the URL's last segment), or its upload time. */
function defaultName(source: BatchSource, zone: string, now: number): string {
  if ('fileUrl' in source) {
    const last = decodeURIComponent(new URL(source.fileUrl).pathname.split('/').pop() ?? '').slice(0, 255);
    if (last !== '') return last;
  }
  const t = localTime(now, zone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `Upload ${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)}`;
}

export async function getBatch(ctx: Context, id: string): Promise<BatchRecord> {
  const batch = await findBatch(ctx.db, ctx.merchant.id, id);
  if (!batch) throw new AppError(BATCH_ERRORS.batchNotFound);
  return batch;
}

export async function listMerchantBatches(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ rows: BatchRecord[]; total: number }> {
  return listBatches(ctx.db, ctx.merchant.id, parseFilters(query, BATCH_FILTERS), page);
}

/**
 * Cancels a batch that has not finished: the rows that have not begun are skipped (counted in skipped_records);
 * a row already sent to the acquirer finishes and is counted as it ends. A batch not yet read is never read.
 */
export async function cancelBatch(ctx: Context, id: string): Promise<BatchRecord> {
  return inTransaction(
    ctx,
    async (tx) => {
      const now = tx.clock.now().getTime();
      // Locks in the order the batch's other writers take them, so that none of them deadlocks with a cancel on
      // PostgreSQL. Once the file is read, the runner's rounds hold their rows and then take the batch, to count
      // them: the rows first, then the batch. While it is read, the load holds the batch and then writes or drops
      // its rows: the batch first.
      const seen = await findBatch(tx.db, tx.merchant.id, id);
      const loaded = seen !== undefined && seen.file_kind !== null;
      const skippedFirst = loaded ? await skipWaitingRows(tx.db, tx.merchant.id, id, now) : 0;
      const batch = await findBatch(tx.db, tx.merchant.id, id, true);
      if (!batch) throw new AppError(BATCH_ERRORS.batchNotFound);
      // (A refusal here undoes the rows skipped above with the rest of the transaction.)
      if (batch.upload_status !== 'pending' && batch.upload_status !== 'processing')
        throw new AppError(BATCH_ERRORS.batchNotCancellable);
      const skipped = loaded ? skippedFirst : await skipWaitingRows(tx.db, tx.merchant.id, id, now);
      const cancelled: BatchRecord = {
        ...batch,
        upload_status: 'cancelled',
        deleted_at: now,
        finished_at: now,
        skipped_records: batch.skipped_records + skipped,
        updated_at: now,
      };
      await updateBatch(tx.db, tx.merchant.id, id, {
        upload_status: 'cancelled',
        deleted_at: now,
        finished_at: now,
        skipped_records: cancelled.skipped_records,
        updated_at: now,
      });
      await emitBatchEvent(tx, 'batch.cancelled', cancelled);
      return cancelled;
    },
    { completesRequest: true },
  );
}
