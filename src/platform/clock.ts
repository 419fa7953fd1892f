/**
 * Wall time governs security (signature freshness, nonce and idempotency expiry, link expiry);
 * business time, wall time plus a per-merchant offset, governs everything the domain does.
 * This file is the one place that turns one into the other.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * How a merchant's business clock stands. Running, it reads wall time plus `offsetMs`. Standing still (a deterministic
 * sandbox merchant, docs/lab.md), it reads `frozenAt` until moved, and `offsetMs` is `frozenAt` minus the wall time of
 * the last move: the work due by then sits at wall times already past, claimable at once.
 */
export interface ClockSetting {
  offsetMs: number;
  frozenAt: number | null;
}

export const RUNNING: ClockSetting = { offsetMs: 0, frozenAt: null };

/**
 * How far past its wall time work waits when it falls due after a clock that stands still: a thousand years, so only
 * a move of the clock (which realigns it) ever makes it due, and it keeps its order among the rest meanwhile.
 */
export const STANDING_STILL_MS = 1000 * 365 * 86_400_000;

/** A merchant's business clock: the wall clock moved by the merchant's offset, or a clock standing still. */
export function businessClock(wall: Clock, setting: ClockSetting): Clock {
  if (setting.frozenAt !== null) {
    const at = setting.frozenAt;
    return { now: () => new Date(at) };
  }
  if (setting.offsetMs === 0) return wall;
  return { now: () => new Date(wall.now().getTime() + setting.offsetMs) };
}

/** The business time of a wall-clock instant, for a merchant whose clock stands as `setting` says. */
export function businessTimeOf(wallMs: number, setting: ClockSetting): number {
  return setting.frozenAt ?? wallMs + setting.offsetMs;
}

/**
 * The wall-clock instant at which work due at `businessMs` is claimed, for a merchant whose clock stands as `setting`
 * says: when the clock reaches it, or never on its own when the clock stands still short of it.
 */
export function wallTimeOf(businessMs: number, setting: ClockSetting): number {
  const wall = businessMs - setting.offsetMs;
  return setting.frozenAt !== null && businessMs > setting.frozenAt ? wall + STANDING_STILL_MS : wall;
}

/** An instant (epoch milliseconds) as the interface writes times: ISO 8601 in UTC, with milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();
