import type { Selectable } from 'kysely';
import type { Db } from './database/database.js';
import { lockToRead } from './database/locking.js';
import type { MerchantsTable } from './database/schema.js';

/** The tenant: every resource belongs to exactly one merchant. */
export interface Merchant {
  id: string;
  name: string;
  timezone: string;
  clockOffsetMs: number;
  /** Local hour at which the sandbox acquirer settles the day's transactions. */
  settlementHour: number;
}

export type MerchantRow = Selectable<MerchantsTable>;

export function toMerchant(
  row: Pick<MerchantRow, 'id' | 'name' | 'timezone' | 'clock_offset_ms' | 'settlement_hour'>,
): Merchant {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    clockOffsetMs: row.clock_offset_ms,
    settlementHour: row.settlement_hour,
  };
}

export async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  const row = await db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toMerchant(row);
}

/** Every merchant (or the first `limit`), oldest first: for the platform's own upkeep and for operators. */
export async function listMerchants(db: Db, limit?: number): Promise<MerchantRow[]> {
  const query = db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

/**
 * The merchant's clock offset (business time minus wall time), read under a share lock: a sandbox clock move,
 * which changes the offset and realigns the merchant's due work in one transaction, cannot slip in between this
 * read and the writes that rely on it.
 */
export async function readClockOffset(db: Db, merchantId: string): Promise<number | undefined> {
  const row = await lockToRead(
    db,
    db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId),
  ).executeTakeFirst();
  return row?.clock_offset_ms;
}
