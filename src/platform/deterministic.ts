import { createHmac } from 'node:crypto';
import type { ClockSetting } from './clock.js';
import type { Db } from './database/database.js';
import type { SeededIds } from './tenants.js';

/**
 * Where a deterministic merchant's business clock starts, and stands until moved (docs/lab.md, "Deterministic runs").
 * A fixed instant, so that every time a run shows is the same run after run.
 */
export const DETERMINISTIC_START = Date.UTC(2026, 0, 1, 0, 0, 0);

/** How a merchant is made deterministic, or random again (`seed` undefined). */
export interface Determinism {
  clock: ClockSetting;
  ids: SeededIds | undefined;
}

/** A merchant made deterministic with `seed` at `wallNow`: its clock standing at the start, its sequence unused. */
export function deterministic(seed: string, wallNow: number): Determinism {
  return {
    clock: { offsetMs: DETERMINISTIC_START - wallNow, frozenAt: DETERMINISTIC_START },
    ids: { seed, drawn: 0 },
  };
}

/** A merchant as a fresh one is without a seed: its clock running with wall time, its identifiers random. */
export const RANDOM: Determinism = { clock: { offsetMs: 0, frozenAt: null }, ids: undefined };

/**
 * The id of the server's `ordinal`-th merchant when the whole server is deterministic (PAYGATE_DETERMINISTIC_SEED): its
 * identifiers are seeded by the seed and the merchant's id, so a fresh database made the same way gives the same ones.
 */
export function seededMerchantId(seed: string, ordinal: number): string {
  const hex = createHmac('sha256', seed).update(`merchant:${ordinal}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Writes the merchant's clock and identifier sequence; the caller realigns its due work in the same transaction. */
export async function setDeterminism(db: Db, merchantId: string, determinism: Determinism, now: number): Promise<void> {
  await db
    .updateTable('merchants')
    .set({
      clock_offset_ms: determinism.clock.offsetMs,
      clock_frozen_at: determinism.clock.frozenAt,
      id_seed: determinism.ids?.seed ?? null,
      ids_drawn: determinism.ids?.drawn ?? 0,
      updated_at: now,
    })
    .where('id', '=', merchantId)
    .execute();
}
