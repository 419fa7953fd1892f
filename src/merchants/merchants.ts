import { inTransaction, merchantContext, type PlatformContext } from '../context/context.js';
import { deterministic, RANDOM, seededMerchantId } from '../platform/deterministic.js';
import { AppError } from '../platform/errors.js';
import { newId, SeededIdSource } from '../platform/ids.js';
import { listMerchants, toMerchant } from '../platform/tenants.js';
import { MERCHANT_ERRORS } from './errors.js';
import { countMerchants, insertMerchant } from './store.js';

export interface CreateMerchantInput {
  name: string;
  timezone?: string;
  /** Local hour (0-23) at which the sandbox settles the day's card transactions; 23 unless given. */
  settlementHour?: number;
}

export interface MerchantSummary {
  merchant_id: string;
  name: string;
  timezone: string;
  settlement_hour: number;
  created_at: string;
}

export const DEFAULT_SETTLEMENT_HOUR = 23;

export async function createMerchant(ctx: PlatformContext, input: CreateMerchantInput): Promise<MerchantSummary> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 255)
    throw new AppError(MERCHANT_ERRORS.merchantInvalid, 'name must be 1 to 255 characters');
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) {
    throw new AppError(
      MERCHANT_ERRORS.merchantInvalid,
      `timezone ${JSON.stringify(timezone)} is not an IANA time zone such as Asia/Hong_Kong`,
    );
  }
  const settlementHour = input.settlementHour ?? DEFAULT_SETTLEMENT_HOUR;
  if (!Number.isInteger(settlementHour) || settlementHour < 0 || settlementHour > 23) {
    throw new AppError(MERCHANT_ERRORS.merchantInvalid, 'settlement hour must be a whole hour from 0 to 23');
  }
  const now = ctx.wallClock.now().getTime();
  const seed = ctx.config.deterministicSeed;
  const id = seed === undefined ? newId() : seededMerchantId(seed, await countMerchants(ctx.db));
  const determinism = seed === undefined ? RANDOM : deterministic(seed, now);
  await inTransaction(ctx, async (tx) => {
    const row = {
      id,
      name,
      timezone,
      clock_offset_ms: determinism.clock.offsetMs,
      clock_frozen_at: determinism.clock.frozenAt,
      id_seed: determinism.ids?.seed ?? null,
      ids_drawn: 0,
      settlement_hour: settlementHour,
      created_at: now,
      updated_at: now,
    };
    await insertMerchant(tx.db, row);
    const merchant = toMerchant(row);
    // A deterministic merchant's set-up draws from its sequence (its first settlement's job), as a reset's does.
    const fresh = merchantContext(tx, merchant, { kind: 'operator' }, 'merchant-create');
    for (const setUp of tx.merchantSetup) await setUp(fresh, merchant);
    if (fresh.ids instanceof SeededIdSource && fresh.ids.unsaved) await fresh.ids.saveDrawn(tx.db);
  });
  return { merchant_id: id, name, timezone, settlement_hour: settlementHour, created_at: new Date(now).toISOString() };
}

export async function listAllMerchants(ctx: PlatformContext): Promise<MerchantSummary[]> {
  const rows = await listMerchants(ctx.db);
  return rows.map((r) => ({
    merchant_id: r.id,
    name: r.name,
    timezone: r.timezone,
    settlement_hour: r.settlement_hour,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
