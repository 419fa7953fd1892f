import type { PlatformContext } from '../platform/context.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { insertMerchant, listMerchants } from './store.js';

export interface CreateMerchantInput {
  name: string;
  timezone?: string;
}

export interface MerchantSummary {
  merchant_id: string;
  name: string;
  timezone: string;
  created_at: string;
}

export async function createMerchant(ctx: PlatformContext, input: CreateMerchantInput): Promise<MerchantSummary> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 255) throw new AppError('merchantInvalid', 'name must be 1 to 255 characters');
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) {
    throw new AppError('merchantInvalid', `timezone ${JSON.stringify(timezone)} is not an IANA time zone such as Asia/Hong_Kong`);
  }
  const now = ctx.wallClock.now().getTime();
  const id = newId();
  await insertMerchant(ctx.db, { id, name, timezone, clock_offset_ms: 0, created_at: now, updated_at: now });
  return { merchant_id: id, name, timezone, created_at: new Date(now).toISOString() };
}

export async function listAllMerchants(ctx: PlatformContext): Promise<MerchantSummary[]> {
  const rows = await listMerchants(ctx.db);
  return rows.map((r) => ({
    merchant_id: r.id, name: r.name, timezone: r.timezone, created_at: new Date(r.created_at).toISOString(),
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
