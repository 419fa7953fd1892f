import type { Selectable } from 'kysely';
import type { ClockSetting } from './clock.js';
import type { Db } from './database/database.js';
import { lockToRead } from './database/locking.js';
import type { MerchantsTable } from './database/schema.js';

/** The tenant: every resource belongs to exactly one merchant. */
export interface Merchant {
  id: string;
  name: string;
  timezone: string;
  /** Its business clock: an offset from wall time, or standing still. */
  clock: ClockSetting;
  /** Its identifiers' seeded sequence when they are deterministic (platform/ids.ts). */
  ids?: SeededIds;
  /** Local hour at which the sandbox acquirer settles the day's transactions. */
  settlementHour: number;
}

/** A merchant's seeded identifiers: the seed, and how many of the sequence were used when the merchant was read. */
export interface SeededIds {
  seed: string;
  drawn: number;
}

export type MerchantRow = Selectable<MerchantsTable>;

type ClockColumns = Pick<MerchantRow, 'clock_offset_ms' | 'clock_frozen_at'>;

export const clockSettingOf = (row: ClockColumns): ClockSetting => ({
  offsetMs: Number(row.clock_offset_ms),
  frozenAt: row.clock_frozen_at === null ? null : Number(row.clock_frozen_at),
});

export function toMerchant(
  row: Pick<
    MerchantRow,
    'id' | 'name' | 'timezone' | 'clock_offset_ms' | 'clock_frozen_at' | 'id_seed' | 'ids_drawn' | 'settlement_hour'
  >,
): Merchant {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    clock: clockSettingOf(row),
    ...(row.id_seed !== null && { ids: { seed: row.id_seed, drawn: Number(row.ids_drawn) } }),
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

/** Sets the merchant's clock; the caller realigns its due work in the same transaction. */
export async function setClock(db: Db, merchantId: string, clock: ClockSetting, now: number): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ clock_offset_ms: clock.offsetMs, clock_frozen_at: clock.frozenAt, updated_at: now })
    .where('id', '=', merchantId)
    .execute();
}

/**
 * How the merchant's clock stands, read under a share lock: a sandbox clock move, which changes it and realigns the
 * merchant's due work in one transaction, cannot slip in between this read and the writes that rely on it.
 */
export async function readClockSetting(db: Db, merchantId: string): Promise<ClockSetting | undefined> {
  const row = await lockToRead(
    db,
    db.selectFrom('merchants').select(['clock_offset_ms', 'clock_frozen_at']).where('id', '=', merchantId),
  ).executeTakeFirst();
  return row && clockSettingOf(row);
}
