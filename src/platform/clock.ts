/**
 * Wall time governs security (signature freshness, nonce and idempotency expiry, link expiry);
 * business time, wall time plus a per-merchant offset, governs everything the domain does.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A merchant's business clock: the wall clock moved by the merchant's offset. */
export function businessClock(wall: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return wall;
  return { now: () => new Date(wall.now().getTime() + offsetMs) };
}
