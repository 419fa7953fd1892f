import { type Context, inTransaction } from '../context/context.js';
import { localTime } from '../platform/time-zone.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { fileKind, readBatchFile } from './batch-file.js';
import { failBatch } from './fail.js';
import { fetchBatchFile } from './fetch-file.js';
import type { FileSource } from './file-source.js';
import { checkRow } from './row-rules.js';
import { rowRecord } from './rows.js';
import { finishIfDone, RUN_JOB, type RunPayload } from './run.js';
import { BatchFileError } from './sheet-row.js';
import {
  type BatchRecord,
  type BatchRowRecord,
  countWrittenRows,
  dropFileParts,
  dropRows,
  findBatch,
  insertRows,
  skipWaitingRows,
  updateBatch,
} from './store.js';
import { FileNoLongerWanted, PartWriter, storedFile, waitingForFile } from './stored-file.js';

export const FETCH_JOB = 'batches.fetch';
export const LOAD_JOB = 'batches.load';

/** Rows written per transaction while a file is read: the write lock is never held for long. */
const ROWS_PER_WRITE = 1000;
/** Rows one job of the runner takes: processes sharing a batch take different chunks. */
const ROWS_PER_CHUNK = 500;

/**
 * The fetch job: downloads a batch's `file_url` and seals it into the batch's stored parts as it arrives, then hands
 * it to the load job. It waits on the network, so the scheduler runs it beside its lanes, never in one. Run again
 * after a crash, it starts over. A file that cannot be fetched fails the batch with the reason.
 */
export async function fetchBatch(ctx: Context, { batchId }: { batchId: string }): Promise<void> {
  const batch = await findBatch(ctx.db, ctx.merchant.id, batchId);
  if (!batch || !waitingForFile(batch) || batch.file_url === null) return;
  await markProcessing(ctx, batch);
  await dropFileParts(ctx.db, ctx.merchant.id, batchId);
  const writer = new PartWriter(ctx, batchId);
  try {
    await fetchBatchFile(batch.file_url, (chunk) => writer.write(chunk), {
      timeoutMs: ctx.config.batchFetchTimeoutMs,
      maxBytes: ctx.config.batchFileMaxBytes,
      mode: ctx.config.mode,
    });
    await writer.end();
  } catch (error) {
    if (error instanceof FileNoLongerWanted) return;
    if (!(error instanceof BatchFileError)) throw error;
    await failBatch(ctx, batch, error.message);
    return;
  }
  await inTransaction(ctx, async (tx) => {
    const current = await findBatch(tx.db, tx.merchant.id, batchId, true);
    if (!current || !waitingForFile(current)) return;
    const now = tx.clock.now().getTime();
    await updateBatch(tx.db, tx.merchant.id, batchId, { file_bytes: writer.bytes, updated_at: now });
    await scheduleJob(tx, {
      kind: LOAD_JOB,
      merchantId: tx.merchant.id,
      dueAt: now,
      payload: { batchId },
      dedupeKey: `${LOAD_JOB}:${batchId}`,
    });
  });
}

/**
 * The load job: reads every row of the batch's stored file and checks it on its own, and writes one record per row.
 * No row runs until the whole file has been read: a file that turns out to be unreadable half-way fails the batch
 * with nothing charged. Once read, the rows are handed to the runner in chunks, and the file's parts are deleted.
 * Run again after a crash, it starts over: the rows written before are dropped (none had run).
 */
export async function loadBatch(ctx: Context, { batchId }: { batchId: string }): Promise<void> {
  const batch = await findBatch(ctx.db, ctx.merchant.id, batchId);
  // A batch cancelled before it was read is still read, so that each of its rows is shown skipped, and its file erased.
  if (
    !batch ||
    (batch.upload_status !== 'pending' && batch.upload_status !== 'processing' && batch.upload_status !== 'cancelled')
  )
    return;
  // Read and handed over already (a crash came between the hand-over and the job's end): its rows may be running.
  if (batch.file_kind !== null) return;
  if (batch.file_bytes === null) {
    // A batch created by a version whose load job fetched the file itself: the fetch job gets it first.
    if (batch.file_url !== null) {
      const now = ctx.clock.now().getTime();
      await scheduleJob(ctx, {
        kind: FETCH_JOB,
        merchantId: ctx.merchant.id,
        dueAt: now,
        payload: { batchId },
        dedupeKey: `${FETCH_JOB}:${batchId}`,
      });
    }
    return;
  }
  await markProcessing(ctx, batch);
  const source = storedFile(ctx, batchId, batch.file_bytes);
  try {
    await whileReading(ctx, batchId, (tx) => dropRows(tx.db, tx.merchant.id, batchId));
    const loaded = await readRows(ctx, batch, source);
    await handOver(ctx, batch, { ...loaded, kind: await fileKind(source), bytes: source.size });
  } catch (error) {
    if (error instanceof HandedOver) return;
    if (error instanceof BatchFileError) {
      await failBatch(ctx, batch, error.message);
      return;
    }
    throw error;
  }
}

async function markProcessing(ctx: Context, batch: BatchRecord): Promise<void> {
  const now = ctx.clock.now().getTime();
  await updateBatch(
    ctx.db,
    ctx.merchant.id,
    batch.id,
    { upload_status: 'processing', started_at: batch.started_at ?? now, updated_at: now },
    ['pending', 'processing'],
  );
}

interface Loaded {
  total: number;
  refused: number;
  /** The row ranges the runner's jobs take, in order. */
  chunks: Array<{ first: number; last: number }>;
}

async function readRows(ctx: Context, batch: BatchRecord, source: FileSource): Promise<Loaded> {
  const context = {
    today: localTime(ctx.clock.now().getTime(), ctx.merchant.timezone),
    currency: ctx.config.defaultCurrency,
  };
  const loaded: Loaded = { total: 0, refused: 0, chunks: [] };
  let pending: BatchRowRecord[] = [];
  let waiting: number[] = [];
  const write = async () => {
    const rows = pending;
    await whileReading(ctx, batch.id, (tx) => insertRows(tx.db, rows));
    pending = [];
  };
  for await (const row of readBatchFile(source)) {
    const record = rowRecord(batch, checkRow(row, context), ctx.secrets, row.fields.remark, ctx.clock.now().getTime());
    loaded.total += 1;
    if (record.state === 'failed') loaded.refused += 1;
    else waiting.push(record.row_number);
    if (waiting.length === ROWS_PER_CHUNK) {
      loaded.chunks.push({ first: waiting[0]!, last: waiting.at(-1)! });
      waiting = [];
    }
    pending.push(record);
    if (pending.length === ROWS_PER_WRITE) await write();
  }
  await write();
  if (waiting.length > 0) loaded.chunks.push({ first: waiting[0]!, last: waiting.at(-1)! });
  return loaded;
}

/** The file is read: the counts, the runner's jobs, and the file's parts dropped, together. */
async function handOver(
  ctx: Context,
  batch: BatchRecord,
  loaded: Loaded & { kind: string; bytes: number },
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now().getTime();
    const current = await findBatch(tx.db, tx.merchant.id, batch.id, true);
    if (!current || current.file_kind !== null) return;
    // Another run of this job may have dropped rows this one wrote (a lease that ran out): read again from the start.
    const written = await countWrittenRows(tx.db, tx.merchant.id, batch.id);
    if (written !== loaded.total)
      throw new Error(`batch ${batch.id}: ${written} rows written for ${loaded.total} read; the load starts over`);
    await dropFileParts(tx.db, tx.merchant.id, batch.id);
    const read = {
      file_kind: loaded.kind,
      file_bytes: loaded.bytes,
      total_records: loaded.total,
      failed_records: loaded.refused,
      updated_at: now,
    };
    if (current?.upload_status === 'cancelled') {
      // Cancelled while its file was being read: no row runs.
      const skipped = await skipWaitingRows(tx.db, tx.merchant.id, batch.id, now);
      await updateBatch(tx.db, tx.merchant.id, batch.id, { ...read, skipped_records: skipped });
      return;
    }
    await updateBatch(tx.db, tx.merchant.id, batch.id, read);
    for (const chunk of loaded.chunks) {
      const job: RunPayload = { batchId: batch.id, first: chunk.first, last: chunk.last, look: 0 };
      await scheduleJob(tx, {
        kind: RUN_JOB,
        merchantId: tx.merchant.id,
        dueAt: now,
        payload: job,
        dedupeKey: `${RUN_JOB}:${batch.id}:${chunk.first}:0`,
      });
    }
    await finishIfDone(tx, batch.id);
  });
}

/** A load that finds its batch handed over by another run of its job: it stops, and leaves the rows alone. */
class HandedOver extends Error {}

/**
 * A write of the load, made only while no run of the job has handed the rows over (the batch, locked, has no
 * file_kind yet). Once rows may run, no other load drops or adds any.
 */
async function whileReading(ctx: Context, batchId: string, write: (tx: Context) => Promise<void>): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const current = await findBatch(tx.db, tx.merchant.id, batchId, true);
    if (!current || current.file_kind !== null) throw new HandedOver();
    await write(tx);
  });
}
