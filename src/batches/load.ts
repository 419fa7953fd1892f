import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inTransaction, type Context } from '../context/context.js';
import { newId } from '../platform/ids.js';
import { localTime } from '../platform/time-zone.js';
import { scheduleJob } from '../scheduler/scheduler.js';
import { fileKind, readBatchFile } from './batch-file.js';
import { emitBatchEvent } from './events.js';
import { fetchBatchFile } from './fetch-file.js';
import { checkRow } from './row-rules.js';
import { rowRecord } from './rows.js';
import { RUN_JOB, finishIfDone, type RunPayload } from './run.js';
import { BatchFileError } from './sheet-row.js';
import { countWrittenRows, dropFileParts, dropRows, findBatch, insertRows, readFileParts, skipWaitingRows, updateBatch, type BatchRecord, type BatchRowRecord } from './store.js';

/** Rows written per transaction while a file is read: the write lock is never held for long. */
const ROWS_PER_WRITE = 1000;
/** Rows one job of the runner takes: processes sharing a batch take different chunks. */
const ROWS_PER_CHUNK = 500;

/**
 * The load job: fetches the batch's file (or takes the one its request left), reads every row and checks it on
 * its own, and writes one record per row. No row runs until the whole file has been read: a file that turns out
 * to be unreadable half-way fails the batch with nothing charged. Once read, the rows are handed to the runner in
 * chunks. Run again after a crash, it starts over: the rows written before are dropped (none had run).
 */
export async function loadBatch(ctx: Context, payload: unknown): Promise<void> {
  const { batchId } = payload as { batchId: string };
  const batch = await findBatch(ctx.db, ctx.merchant.id, batchId);
  if (!batch || (batch.upload_status !== 'pending' && batch.upload_status !== 'processing')) return;
  // Read and handed over already (a crash came between the hand-over and the job's end): its rows may be running.
  if (batch.file_kind !== null) return;
  const now = ctx.clock.now().getTime();
  await updateBatch(ctx.db, ctx.merchant.id, batchId, { upload_status: 'processing', started_at: batch.started_at ?? now, updated_at: now }, ['pending', 'processing']);
  const folder = join(ctx.config.dataDir, 'batch-files');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${batchId}-${newId()}`);
  try {
    await spool(ctx, batch, path);
    await whileReading(ctx, batchId, (tx) => dropRows(tx.db, tx.merchant.id, batchId));
    const loaded = await readRows(ctx, batch, path);
    await handOver(ctx, batch, { ...loaded, kind: await fileKind(path), bytes: (await stat(path)).size });
  } catch (error) {
    if (error instanceof HandedOver) return;
    if (!(error instanceof BatchFileError)) throw error;
    await failBatch(ctx, batch, error.message);
  } finally {
    await rm(path, { force: true });
  }
}

/** The file, on this process's disk for the reading (an XLSX workbook is read by random access). */
async function spool(ctx: Context, batch: BatchRecord, path: string): Promise<void> {
  if (batch.file_url !== null) {
    await fetchBatchFile(batch.file_url, path, { timeoutMs: ctx.config.batchFetchTimeoutMs, maxBytes: ctx.config.batchFileMaxBytes, mode: ctx.config.mode });
    return;
  }
  await pipeline(Readable.from(readFileParts(ctx.db, ctx.merchant.id, batch.id)), createWriteStream(path, { mode: 0o600 }));
}

interface Loaded {
  total: number;
  refused: number;
  /** The row ranges the runner's jobs take, in order. */
  chunks: Array<{ first: number; last: number }>;
}

async function readRows(ctx: Context, batch: BatchRecord, path: string): Promise<Loaded> {
  const context = { today: localTime(ctx.clock.now().getTime(), ctx.merchant.timezone), currency: ctx.config.defaultCurrency };
  const loaded: Loaded = { total: 0, refused: 0, chunks: [] };
  let pending: BatchRowRecord[] = [];
  let waiting: number[] = [];
  const write = async () => {
    const rows = pending;
    await whileReading(ctx, batch.id, (tx) => insertRows(tx.db, rows));
    pending = [];
  };
  for await (const row of readBatchFile(path)) {
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
async function handOver(ctx: Context, batch: BatchRecord, loaded: Loaded & { kind: string; bytes: number }): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now().getTime();
    const current = await findBatch(tx.db, tx.merchant.id, batch.id, true);
    if (!current || current.file_kind !== null) return;
    // Another run of this job may have dropped rows this one wrote (a lease that ran out): read again from the start.
    const written = await countWrittenRows(tx.db, tx.merchant.id, batch.id);
    if (written !== loaded.total) throw new Error(`batch ${batch.id}: ${written} rows written for ${loaded.total} read; the load starts over`);
    await dropFileParts(tx.db, tx.merchant.id, batch.id);
    const read = { file_kind: loaded.kind, file_bytes: loaded.bytes, total_records: loaded.total, failed_records: loaded.refused, updated_at: now };
    if (current?.upload_status === 'cancelled') {
      // Cancelled while its file was being read: no row runs.
      const skipped = await skipWaitingRows(tx.db, tx.merchant.id, batch.id, now);
      await updateBatch(tx.db, tx.merchant.id, batch.id, { ...read, skipped_records: skipped });
      return;
    }
    await updateBatch(tx.db, tx.merchant.id, batch.id, read);
    for (const chunk of loaded.chunks) {
      const job: RunPayload = { batchId: batch.id, first: chunk.first, last: chunk.last, look: 0 };
      await scheduleJob(tx, { kind: RUN_JOB, merchantId: tx.merchant.id, dueAt: now, payload: job, dedupeKey: `${RUN_JOB}:${batch.id}:${chunk.first}:0` });
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

/** The file could not be fetched or read: the batch fails with the reason, and no row of it remains. */
async function failBatch(ctx: Context, batch: BatchRecord, reason: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now().getTime();
    const current = await findBatch(tx.db, tx.merchant.id, batch.id, true);
    if (!current || current.file_kind !== null) return;
    await dropRows(tx.db, tx.merchant.id, batch.id);
    await dropFileParts(tx.db, tx.merchant.id, batch.id);
    const patch = { upload_status: 'failed', failure_reason: reason, finished_at: now, updated_at: now } as const;
    if (await updateBatch(tx.db, tx.merchant.id, batch.id, patch, ['pending', 'processing'])) {
      await emitBatchEvent(tx, 'batch.failed', { ...batch, ...patch, total_records: 0, successful_records: 0, failed_records: 0 });
    }
  });
}
