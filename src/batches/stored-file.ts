import { Readable } from 'node:stream';
import { type Context, inTransaction } from '../context/context.js';
import type { FileSource } from './file-source.js';
import { findBatch, insertFilePart, readFilePart } from './store.js';

// A batch file in the database, sealed from its first byte: each part under authenticated encryption with the
// platform secret, bound to its batch and its place, before it is written anywhere. Nothing readable ever reaches a
// table, the write-ahead log or a free page, and the parts are deleted when the batch's rows are read, or it ends.

/** A stored file is kept in parts of this size, each sealed on its own, so a part can be read without the rest. */
export const PART_BYTES = 1024 * 1024;
/**
 * Each part is sealed in frames of this size (a multiple of 3, so that their base64 texts are cut on whole groups):
 * no buffer of the sealing or the opening is larger, and so none reaches the allocator's size for memory of its own
 * (128 KiB), which it would keep for the rest of the process's life once a large one was freed.
 */
const FRAME_BYTES = 48 * 1024;
/** Decrypted parts a reader keeps at hand: an XLSX reader goes back and forth between a few. */
const PARTS_AT_HAND = 4;

/** What a frame is sealed as: its batch, and its place in the file. */
const frameLabel = (batchId: string, part: number, frame: number) =>
  `paygate batch file ${batchId} part ${part} frame ${frame}`;

/** Seals a file sent as a request's body into the batch's parts, in the caller's transaction. */
export async function storeFile(tx: Context, batchId: string, bytes: Buffer): Promise<void> {
  for (let part = 0; part * PART_BYTES < bytes.length; part += 1) {
    const frames: Buffer[] = [];
    for (let at = part * PART_BYTES; at < Math.min(bytes.length, (part + 1) * PART_BYTES); at += FRAME_BYTES) {
      frames.push(bytes.subarray(at, Math.min(at + FRAME_BYTES, (part + 1) * PART_BYTES)));
    }
    await insertFilePart(tx.db, tx.merchant.id, batchId, part, sealPart(tx, batchId, part, frames));
  }
}

/** A part as its text is kept: `s1:`, then each frame sealed, as base64, joined by dots. */
function sealPart(ctx: Context, batchId: string, part: number, frames: Buffer[]): string {
  const sealed = frames.map((bytes, frame) =>
    ctx.secrets.sealBytes(bytes, frameLabel(batchId, part, frame)).toString('base64'),
  );
  return `${SEALED_PREFIX}${sealed.join('.')}`;
}

/**
 * What marks a sealed part's text. A part stored by an earlier version is the file's bytes as base64, which has no ':'.
 */
const SEALED_PREFIX = 's1:';

/** A part's bytes, frame by frame. */
function openPart(ctx: Context, batchId: string, part: number, content: string): Buffer[] {
  if (!content.startsWith(SEALED_PREFIX)) return [Buffer.from(content, 'base64')];
  return content
    .slice(SEALED_PREFIX.length)
    .split('.')
    .map((frame, index) => ctx.secrets.openBytes(Buffer.from(frame, 'base64'), frameLabel(batchId, part, index)));
}

/**
 * Takes a file as it arrives (a file_url's answer) and seals it into the batch's parts a part at a time, each in a
 * transaction of its own taken while the batch still waits for its file: a batch that failed meanwhile, whose parts
 * were erased, gets none back ({@link FileNoLongerWanted}).
 */
export class PartWriter {
  /** What has arrived and is not stored yet, in the chunks it came in. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private part = 0;
  bytes = 0;

  constructor(
    private readonly ctx: Context,
    private readonly batchId: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.bytes += chunk.length;
    while (this.pendingBytes >= PART_BYTES) await this.store(this.frames(PART_BYTES));
  }

  /** Stores what is left: the last part. */
  async end(): Promise<void> {
    if (this.pendingBytes > 0) await this.store(this.frames(this.pendingBytes));
  }

  /** The next `total` bytes that arrived, as frames (never one buffer of a whole part). */
  private frames(total: number): Buffer[] {
    const frames: Buffer[] = [];
    for (let left = total; left > 0; ) {
      const size = Math.min(FRAME_BYTES, left);
      const pieces: Buffer[] = [];
      for (let need = size; need > 0; ) {
        const head = this.pending[0]!;
        if (head.length <= need) {
          pieces.push(this.pending.shift()!);
          need -= head.length;
        } else {
          pieces.push(head.subarray(0, need));
          this.pending[0] = head.subarray(need);
          need = 0;
        }
      }
      frames.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
      left -= size;
    }
    this.pendingBytes -= total;
    return frames;
  }

  private async store(frames: Buffer[]): Promise<void> {
    const part = this.part;
    await inTransaction(this.ctx, async (tx) => {
      const batch = await findBatch(tx.db, tx.merchant.id, this.batchId, true);
      if (!batch || !waitingForFile(batch)) throw new FileNoLongerWanted();
      await insertFilePart(tx.db, tx.merchant.id, this.batchId, part, sealPart(tx, this.batchId, part, frames));
    });
    this.part += 1;
  }
}

/**
 * A batch whose file is still to come: its file not yet stored whole, and the batch not failed. A batch cancelled
 * before its file was read still gets it, so that each of its rows is shown skipped; the file is erased once read.
 */
export const waitingForFile = (batch: { upload_status: string; file_bytes: number | null; file_kind: string | null }) =>
  batch.upload_status !== 'failed' &&
  batch.upload_status !== 'success' &&
  batch.file_bytes === null &&
  batch.file_kind === null;

/** The batch stopped waiting for its file (it failed) while it was arriving. */
export class FileNoLongerWanted extends Error {}

/** The batch's stored file, `size` bytes, opened a part at a time as its readers ask for its bytes. */
export function storedFile(ctx: Context, batchId: string, size: number): FileSource {
  const atHand = new Map<number, Buffer[]>();
  const part = async (index: number): Promise<Buffer[]> => {
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
      return Readable.from(
        (async function* () {
          for (let index = Math.floor(start / PART_BYTES); index * PART_BYTES < end; index += 1) {
            let offset = index * PART_BYTES;
            for (const frame of await part(index)) {
              const from = Math.max(0, start - offset);
              const to = Math.min(frame.length, end - offset);
              if (to > from) yield frame.subarray(from, to);
              offset += frame.length;
            }
          }
        })(),
        { objectMode: false },
      );
    },
  };
}
