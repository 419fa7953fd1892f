import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { RateLimitDecision } from '../platform/rate-limit.js';
import { messagePage } from './layout.js';
import { pageLimits } from './page-limits.js';

/** A hosted page's URL pattern, as its capability declares it (`/pay/:token/card`). */
export interface GatedPattern {
  url: string;
}

export interface PageGateOptions {
  config: Config;
  wallClock: Clock;
  patterns: readonly GatedPattern[];
  /** Paths that are the same bytes for everyone and cached by browsers (stylesheet, icons): never counted. */
  freePaths: readonly string[];
  /** Response headers every hosted page carries. */
  headers: Readonly<Record<string, string>>;
  /** Told of each refusal, for the metrics. */
  onRefused?(): void;
}

/** Answers the request itself when it was refused; otherwise leaves it to the application. */
export type PageGate = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * The hosted pages' rate limits, applied before the web framework sees the request. A caller over its limit is
 * answered from bytes built once: the refusal must cost the process far less than a page, or a crowd of anonymous
 * callers that ignore Retry-After would take the server from the merchants' signed requests just by being told no.
 */
export function createPageGate(options: PageGateOptions): PageGate {
  const limit = pageLimits(options.config, options.wallClock);
  const trusted =
    options.config.trustedProxies.length > 0
      ? proxyAddr.compile(options.config.trustedProxies.map((cidr) => cidr.text))
      : undefined;
  const match = patternMatcher(options.patterns, new Set(options.freePaths));
  const refusals = refusalPages(options);
  return (request, response) => {
    const target = match(request.url ?? '/');
    if (!target) return false;
    const address = (trusted ? proxyAddr(request, trusted) : request.socket.remoteAddress) ?? '';
    const decision = limit(address, target.token);
    if (decision.allowed) return false;
    options.onRefused?.();
    const { head, body } = refusals(decision);
    response.writeHead(429, [...head, 'x-request-id', randomUUID()]);
    response.end(body);
    return true;
  };
}

interface CompiledPattern {
  segments: ReadonlyArray<string | undefined>;
  tokenAt: number | undefined;
}

/**
 * Which requests count, and for which link: any path under a page's first segment (`/pay/...`, also one that
 * matches no page, which would otherwise be a free 404), with the link token where the path has one.
 */
function patternMatcher(
  patterns: readonly GatedPattern[],
  freePaths: ReadonlySet<string>,
): (url: string) => { token: string | undefined } | undefined {
  const compiled: CompiledPattern[] = patterns.map(({ url }) => {
    const segments = url
      .split('/')
      .slice(1)
      .map((segment) => (segment.startsWith(':') ? undefined : segment));
    const tokenAt = url.split('/').slice(1).indexOf(':token');
    return { segments, tokenAt: tokenAt < 0 ? undefined : tokenAt };
  });
  // The most specific pattern first: `/pay/3ds/:token` before `/pay/:token/card`.
  compiled.sort((a, b) => staticCount(b) - staticCount(a));
  const roots = new Set(
    compiled.map((pattern) => pattern.segments[0]).filter((segment): segment is string => segment !== undefined),
  );
  return (url) => {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (freePaths.has(path)) return undefined;
    const segments = path.split('/').slice(1);
    if (!roots.has(segments[0] ?? '')) return undefined;
    for (const pattern of compiled) {
      if (pattern.segments.length !== segments.length) continue;
      if (pattern.segments.every((segment, index) => segment === undefined || segment === segments[index])) {
        return { token: pattern.tokenAt === undefined ? undefined : decoded(segments[pattern.tokenAt]!) };
      }
    }
    return { token: undefined };
  };
}

const staticCount = (pattern: CompiledPattern) => pattern.segments.filter((segment) => segment !== undefined).length;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The refusal page for each Retry-After value, rendered once. */
function refusalPages(options: PageGateOptions): (decision: RateLimitDecision) => { head: string[]; body: Buffer } {
  const built = new Map<number, { head: string[]; body: Buffer }>();
  const sandbox = options.config.mode === 'sandbox';
  return ({ retryAfterSeconds: seconds }) => {
    const known = built.get(seconds);
    if (known) return known;
    const body = Buffer.from(
      messagePage({
        title: 'Too many requests',
        heading: 'One moment',
        sandbox,
        message: `This page was asked for too often. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      }),
    );
    const head = [
      ...Object.entries(options.headers).flat(),
      'content-type',
      'text/html; charset=utf-8',
      'content-length',
      String(body.length),
      'retry-after',
      String(seconds),
    ];
    const refusal = { head, body };
    // Retry-After takes few values for a given configuration; the bound only guards against a strange one.
    if (built.size < 256) built.set(seconds, refusal);
    return refusal;
  };
}
