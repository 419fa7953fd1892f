import type { Clock } from './clock.js';

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed; 0 when allowed. */
  retryAfterSeconds: number;
}

export const ALLOWED: RateLimitDecision = { allowed: true, retryAfterSeconds: 0 };

/**
 * A token bucket per key (an app, a caller's address, a link): `ratePerSecond` sustained, `burst` at once. Kept in
 * the process, so with several processes each allows the rate on its own; it protects the process, not a global
 * quota. It remembers at most `maxKeys` keys (anonymous callers choose theirs): past that, the one used least
 * recently is forgotten, which only ever lets that key start again with a full bucket.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
    private readonly maxKeys: number = 100_000,
  ) {}

  take(key: string): RateLimitDecision {
    const now = this.clock.now().getTime();
    this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = now;
    // Map order is insertion order: re-inserting keeps the least recently used first, to be forgotten first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)) };
  }

  /** Forgets buckets that have refilled, so idle keys cost no memory. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const full = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at > full) this.buckets.delete(key);
  }
}
