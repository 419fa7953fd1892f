import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import { callerKey } from '../platform/net.js';
import { ALLOWED, type RateLimitDecision, RateLimiter } from '../platform/rate-limit.js';

/**
 * The hosted pages answer anyone with a link, without a signature: what one caller, or one link, may ask of the
 * process is bounded, per address (an IPv6 /64) and per link. A payer's whole visit is a few dozen requests.
 */
export function pageLimits(
  config: Config,
  wallClock: Clock,
): (address: string, token: string | undefined) => RateLimitDecision {
  const limiter = (limit: { perSecond: number; burst: number }) =>
    limit.perSecond > 0 ? new RateLimiter(limit.perSecond, limit.burst, wallClock) : undefined;
  const perAddress = limiter(config.pageRateLimit);
  const perLink = limiter(config.linkRateLimit);
  return (address, token) => {
    const byAddress = perAddress?.take(callerKey(address)) ?? ALLOWED;
    if (!byAddress.allowed) return byAddress;
    return token !== undefined && perLink ? perLink.take(token) : ALLOWED;
  };
}
