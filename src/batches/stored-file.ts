import { Readable } from 'node:stream';
import { inTransaction, type Context } from '../context/context.js';
import type { FileSource } from './file-source.js';
import { findBatch, insertFilePart, readFilePart } from './store.js';

/** A stored file is kept in parts of this size, each sealed on its own, so a part can be read without the rest. */
export const PART_BYTES = 1024 * 1024;
/** Decrypted parts a reader keeps at hand: an XLSX reader goes back and forth between a few. */
const PARTS_AT_HAND = 4;

/**
 * A batch file in the database, sealed from its first byte: each part under authenticated encryption with the
 * platform secret, bound to its batch and its place, before it is written anywhere. Nothing readable ever reaches
 * a table, the write-ahead log or a free page, and the parts are deleted when the batch's rows are read, or it ends.
 */
const partLabel = (batchId: string, part: number) => `paygate batch file ${batchId} part ${part}`;

/** Seals a file sent as a request's body into the batch's parts, in the caller's transaction. */
export async function storeFile(tx: Context, batchId: string, bytes: Buffer): Promise<void> {
  for (let part = 0; part * PART_BYTES < bytes.length; part += 1) {
    await insertFilePart(tx.db, tx.merchant.id, batchId, part, sealPart(tx, batchId, part, bytes.subarray(part * PART_BYTES, (part + 1) * PART_BYTES)));
  }
}

function sealPart(ctx: Context, batchId: string, part: number, bytes: Buffer): string {
  return `${SEALED_PREFIX}${ctx.secrets.sealBytes(bytes, partLabel(batchId, part)).toString('base64')}`;
}

/** What marks a sealed part's text. A part stored by an earlier version is the file's bytes as base64, which has no ':'. */
const SEALED_PREFIX = 's1:';

function openPart(ctx: Context, batchId: string, part: number, content: string): Buffer {
  if (!content.startsWith(SEALED_PREFIX)) return Buffer.from(content, 'base64');
  return ctx.secrets.openBytes(Buffer.from(content.slice(SEALED_PREFIX.length), 'base64'), partLabel(batchId, part));
}

/**
 * Takes a file as it arrives (a file_url's answer) and seals it into the batch's parts a part at a time, each in a
 * transaction of its own taken while the batch still waits for its file: a batch that failed meanwhile, whose parts
 * were erased, gets none back ({@link FileNoLongerWanted}).
 */
export class PartWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private part = 0;
  bytes = 0;

  constructor(private readonly ctx: Context, private readonly batchId: string) {}

  async write(chunk: Buffer): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.bytes += chunk.length;
    while (this.pendingBytes >= PART_BYTES) {
      const whole = Buffer.concat(this.pending);
      await this.store(whole.subarray(0, PART_BYTES));
      this.pending = [whole.subarray(PART_BYTES)];
      this.pendingBytes = whole.length - PART_BYTES;
    }
  }

  /** Stores what is left: the last part. */
  async end(): Promise<void> {
    if (this.pendingBytes > 0) await this.store(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }

  private async store(bytes: Buffer): Promise<void> {
    const part = this.part;
    await inTransaction(this.ctx, async (tx) => {
      const batch = await findBatch(tx.db, tx.merchant.id, this.batchId, true);
      if (!batch || !waitingForFile(batch)) throw new FileNoLongerWanted();
      await insertFilePart(tx.db, tx.merchant.id, this.batchId, part, sealPart(tx, this.batchId, part, bytes));
    });
    this.part += 1;
  }
}

/**
 * A batch whose file is still to come: its file not yet stored whole, and the batch not failed. A batch cancelled
 * before its file was read still gets it, so that each of its rows is shown skipped; the file is erased once read.
 */
export const waitingForFile = (batch: { upload_status: string; file_bytes: number | null; file_kind: string | null }) =>
  batch.upload_status !== 'failed' && batch.upload_status !== 'success' && batch.file_bytes === null && batch.file_kind === null;

/** The batch stopped waiting for its file (it failed) while it was arriving. */
export class FileNoLongerWanted extends Error {}

/** The batch's stored file, `size` bytes, opened a part at a time as its readers ask for its bytes. */
export function storedFile(ctx: Context, batchId: string, size: number): FileSource {
  const atHand = new Map<number, Buffer>();
  const part = async (index: number): Promise<Buffer> => {
    const known = atHand.get(index);
    if (known) return known;
    const content = await readFilePart(ctx.db, ctx.merchant.id, batchId, index);
    if (content === undefined) throw new Error(`batch ${batchId}: part ${index} of its file is missing`);
    const opened = openPart(ctx, batchId, index, content);
    if (atHand.size >= PARTS_AT_HAND) atHand.delete(atHand.keys().next().value!);
    atHand.set(index, opened);
    return opened;
  };
  return {
    size,
    range(start, end) {
      return Readable.from((async function* () {
        for (let index = Math.floor(start / PART_BYTES); index * PART_BYTES < end; index += 1) {
          const bytes = await part(index);
          const from = Math.max(0, start - index * PART_BYTES);
          const to = Math.min(bytes.length, end - index * PART_BYTES);
          if (to > from) yield bytes.subarray(from, to);
        }
      })(), { objectMode: false });
    },
  };
}
