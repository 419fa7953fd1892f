/**
 * Wall time governs security (signature freshness, nonce and idempotency expiry, link expiry);
 * business time, wall time plus a per-merchant offset, governs everything the domain does.
 * This file is the one place that turns one into the other.
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

/** The business time of a wall-clock instant, for a merchant whose clock is `offsetMs` ahead. */
export function businessTimeOf(wallMs: number, offsetMs: number): number {
  return wallMs + offsetMs;
}

/** The wall-clock instant at which a merchant whose clock is `offsetMs` ahead reaches `businessMs`. */
export function wallTimeOf(businessMs: number, offsetMs: number): number {
  return businessMs - offsetMs;
}

/** An instant (epoch milliseconds) as the interface writes times: ISO 8601 in UTC, with milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();
