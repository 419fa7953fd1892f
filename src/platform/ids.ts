import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Db } from './database/database.js';
import { AppError, PLATFORM_ERRORS } from './errors.js';
import type { SeededIds } from './tenants.js';

/**
 * Where a merchant's identifiers and tokens come from: the system's generator, or, for a deterministic sandbox
 * merchant (docs/lab.md), a sequence seeded by the merchant's seed, so the same calls give the same ids run after run.
 * Domain code draws every identifier its replies, events and documents show from the one in its context.
 */
export interface IdSource {
  /** A UUID. */
  uuid(): string;
  /** A UUIDv7: by `ms`, then in the order drawn. */
  sortable(ms: number): string;
  /** `count` bytes for a token. */
  bytes(count: number): Buffer;
  /** A whole number from 0 to `below` - 1. */
  below(below: number): number;
}

/** The system's generator: what every merchant not made deterministic draws from. */
export const randomIds: IdSource = {
  uuid: () => randomUUID(),
  sortable: (ms) => newSortableId(ms),
  bytes: (count) => randomBytes(count),
  below: (below) => randomInt(below),
};

/** An identifier the platform keeps for itself (a lease's token, a process's name), never shown to a merchant. */
export function newId(): string {
  return randomUUID();
}

/**
 * A merchant's seeded sequence. Draw n is HMAC-SHA256(seed, "merchant id:n"), so a different seed, or another merchant,
 * gives other ids. The count drawn is saved with the transaction that used them ({@link saveDrawn}, called by
 * inTransaction), guarded by the count read: two writes of the merchant drawing at once cannot both commit the same
 * ids, the second is refused (a deterministic merchant's writes go one at a time). A transaction that rolls back gives
 * its draws back, as a restart would.
 */
export class SeededIdSource implements IdSource {
  private saved: number;
  private drawn: number;

  constructor(
    private readonly merchantId: string,
    private readonly sequence: SeededIds,
  ) {
    this.saved = sequence.drawn;
    this.drawn = sequence.drawn;
  }

  uuid(): string {
    const bytes = this.draw(16);
    bytes[6] = 0x40 | (bytes[6]! & 0x0f);
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    return formatUuid(bytes);
  }

  /**
   * Sorts in the order drawn, whatever `ms` says: the callers' instants are often wall time, which a run cannot repeat.
   * The prefix is the seed's and the merchant's, so another seed's ids differ.
   */
  sortable(_ms: number): string {
    const n = this.drawn;
    this.draw(0);
    const bytes = Buffer.from(this.prefix());
    bytes[6] = 0x70 | (bytes[6]! & 0x0f);
    bytes.writeBigUInt64BE(BigInt(n), 8);
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    return formatUuid(bytes);
  }

  bytes(count: number): Buffer {
    return this.draw(count);
  }

  below(below: number): number {
    return this.draw(6).readUIntBE(0, 6) % below;
  }

  /** Draws not yet saved. */
  get unsaved(): boolean {
    return this.drawn !== this.saved;
  }

  /** Saves the count drawn in `db`'s transaction; refused when another write of the merchant saved meanwhile. */
  async saveDrawn(db: Db): Promise<void> {
    const result = await db
      .updateTable('merchants')
      .set({ ids_drawn: this.drawn })
      .where('id', '=', this.merchantId)
      .where('ids_drawn', '=', this.saved)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new AppError(PLATFORM_ERRORS.deterministicWriteConflict);
  }

  /**
   * Whether another write of the merchant saved draws since this one read the count: then an identifier this one drew
   * may be one that write committed (a unique key refused it), and the write is refused as {@link saveDrawn} would.
   */
  async overtaken(db: Db): Promise<boolean> {
    const row = await db
      .selectFrom('merchants')
      .select('ids_drawn')
      .where('id', '=', this.merchantId)
      .executeTakeFirst();
    return row !== undefined && Number(row.ids_drawn) !== this.saved;
  }

  /** The transaction committed: its draws are the merchant's. */
  committed(): void {
    this.saved = this.drawn;
  }

  /** The transaction rolled back: its draws are given back. */
  rolledBack(): void {
    this.drawn = this.saved;
  }

  private prefixBytes: Buffer | undefined;

  private prefix(): Buffer {
    this.prefixBytes ??= createHmac('sha256', this.sequence.seed).update(`${this.merchantId}:sortable`).digest();
    return this.prefixBytes.subarray(0, 16);
  }

  private draw(count: number): Buffer {
    const n = this.drawn++;
    const blocks: Buffer[] = [];
    for (let block = 0; block * 32 < count; block++) {
      blocks.push(createHmac('sha256', this.sequence.seed).update(`${this.merchantId}:${n}:${block}`).digest());
    }
    return Buffer.concat(blocks).subarray(0, count);
  }
}

let lastMs = 0;
let sequence = 0;

/** Random bytes drawn 4 KiB at a time: one call into the system's generator for 256 ids, not one per id. */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = POOL_SIZE;

function random16(): Buffer {
  if (poolOffset + 16 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  // A copy: the caller writes into it.
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

/**
 * A UUIDv7: the wall time in milliseconds, then a counter, then random bits. Ids made one after another in a
 * process sort in the order they were made, also within one millisecond (events of one order, say).
 */
export function newSortableId(nowMs: number): string {
  const ms = Math.max(nowMs, lastMs);
  sequence = ms === lastMs ? sequence + 1 : 0;
  if (sequence > 0xfff) return newSortableId(ms + 1);
  lastMs = ms;
  const bytes = random16();
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return formatUuid(bytes);
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}
