import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { currencyExponent } from './money/currencies.js';
import { type FeeSchedule, parseFeeSchedule, SANDBOX_FEES } from './money/fees.js';
import { type Cidr, parseCidr } from './net.js';

export type Mode = 'sandbox' | 'live';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL connection string; SQLite in `dataDir` when absent. */
  databaseUrl: string | undefined;
  /** Where payers and webhooks' readers reach this server; links are built from it, never from a Host header. */
  publicBaseUrl: string;
  /** False when publicBaseUrl was derived from HOST and PORT (then PORT 0 is replaced by the port actually taken). */
  publicBaseUrlSet: boolean;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  pgPoolSize: number;
  /** Proxies whose `X-Forwarded-For` is believed; empty means the socket address is the caller. */
  trustedProxies: Cidr[];
  /** Key material for request fingerprints and encryption at rest; required in live mode. */
  secret: Buffer | undefined;
  shutdownTimeoutMs: number;
  /** Create the demo merchant and keys on first start (sandbox only). */
  demo: boolean;
  /** How often the scheduler looks for due work. */
  schedulerPollMs: number;
  /**
   * How long a claimed job is its process's alone: renewed while it runs, taken over by another process once it runs
   * out.
   */
  jobLeaseMs: number;
  /** Jobs a process runs at once; one merchant's take at most half of them while another's wait. */
  jobLanes: number;
  /**
   * Jobs that wait on the network (a batch's file fetched) a process runs at once, beside the lanes; a quarter per
   * merchant.
   */
  jobNetworkSlots: number;
  /**
   * How old a rail call without a recorded answer must be before recovery takes it for interrupted (on
   * PostgreSQL; SQLite recovers at start). Must stay above the longest an acquirer call can take.
   */
  recoveryAfterMs: number;
  /**
   * How long an Idempotency-Key claim holds before a retry may take it over: a crashed process's claims are
   * freed at start on SQLite, but on PostgreSQL only this tells them apart from slow ones. Above the longest request.
   */
  idempotencyLockMs: number;
  /** Requests per second per app, sustained; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  /** Requests an app may send at once before the sustained rate applies. */
  rateLimitBurst: number;
  /** Requests per second to the hosted pages from one address (an IPv6 /64), sustained, and at once; 0 turns it off. */
  pageRateLimit: { perSecond: number; burst: number };
  /**
   * Requests per second to the pages of one link (a payment, receipt or binding link), sustained, and at once; 0 turns
   * it off.
   */
  linkRateLimit: { perSecond: number; burst: number };
  /** How long a webhook receiver has to answer before the attempt counts as timed out (and is retried). */
  webhookTimeoutMs: number;
  /** How long a payment link given to a payer stays usable (wall time). */
  paymentLinkTtlMs: number;
  /** How long a receipt download link stays usable (wall time). */
  receiptLinkTtlMs: number;
  /**
   * Card attempts that did not pay (or save a card) that a payment page (per order) or binding page (per link) allows.
   */
  pageDeclineLimit: number;
  /** How long webhook events, with their deliveries and attempts, are kept once nothing is left to send (wall time). */
  eventRetentionMs: number;
  /** The sandbox lab's capture inbox, per merchant: at most this many captures, none older (wall time). */
  labInbox: { maxCaptures: number; retentionMs: number };
  /**
   * Sandbox only: every merchant deterministic (docs/lab.md, "Deterministic runs"), its identifiers seeded by this
   * seed and its clock standing still from the fixed start; a reset without a seed uses it.
   */
  deterministicSeed: string | undefined;
  /** Minutes a dashboard session may stay idle before it ends (docs/dashboard.md). */
  dashboardIdleMinutes: number;
  /**
   * A TrueType/OpenType font for PDF receipts (`path`, or `path#PostScriptName` in a collection); Helvetica when
   * absent.
   */
  receiptFont: { path: string; family: string | undefined } | undefined;
  /** The currency of a batch row that names none (ISO 4217). */
  defaultCurrency: string;
  /** A batch file's size limit: as a request's body, and as fetched from its file_url. */
  batchFileMaxBytes: number;
  /** How long fetching a batch's file_url may take, from connecting to the last byte. */
  batchFetchTimeoutMs: number;
  /** What settlement charges per payment method (docs/ledger.md): the sandbox's rates, laid over by PAYGATE_FEES. */
  fees: FeeSchedule;
  /**
   * Whether money movements post to the ledger. Off only to measure what posting costs (bench/): a ledger left
   * behind by a run without it fails `paygate ledger check`.
   */
  ledgerPosting: boolean;
  /**
   * How far V8 lets the heap grow past what survived the last full collection, in per cent (100: to twice it);
   * 0 leaves V8's own choice, which on a large machine lets it grow to four times before collecting.
   */
  heapGrowthPercent: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the whole configuration once; reports every bad value at the same time. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T | string): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const parsed = parse(raw);
    if (typeof parsed === 'string' && typeof fallback !== 'string') {
      problems.push(`${name}: ${parsed} (got ${JSON.stringify(raw)})`);
      return fallback;
    }
    return parsed as T;
  };
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name}: must be one of ${values.join(', ')} (got ${JSON.stringify(raw)})`);
    return fallback;
  };
  const integer = (min: number, max: number) => (raw: string) => {
    if (!/^\d+$/.test(raw)) return `must be a whole number from ${min} to ${max}`;
    const value = Number(raw);
    return value >= min && value <= max ? value : `must be a whole number from ${min} to ${max}`;
  };

  const mode = oneOf<Mode>('PAYGATE_MODE', ['sandbox', 'live'], 'sandbox');
  const host = env.HOST || '127.0.0.1';
  const port = read('PORT', 8080, integer(0, 65535));
  const dataDir = resolve(env.PAYGATE_DATA_DIR || './data');

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(
      'DATABASE_URL: must start with postgres:// or postgresql:// (leave it unset for the embedded SQLite)',
    );
  }

  const publicBaseUrl = (
    env.PAYGATE_PUBLIC_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');
  if (!isHttpUrl(publicBaseUrl)) problems.push('PAYGATE_PUBLIC_BASE_URL: must be an http:// or https:// URL');

  const logLevel = oneOf<LogLevel>('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info');
  const bodyLimitBytes = read('PAYGATE_BODY_LIMIT', 1024 * 1024, integer(1024, 64 * 1024 * 1024));
  const sqliteSynchronous = oneOf('PAYGATE_SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const, 'FULL');
  const pgPoolSize = read('PAYGATE_PG_POOL_SIZE', 10, integer(1, 200));
  const shutdownTimeoutMs = read('PAYGATE_SHUTDOWN_TIMEOUT_MS', 10_000, integer(0, 600_000));
  const schedulerPollMs = read('PAYGATE_SCHEDULER_POLL_MS', 1_000, integer(10, 60_000));
  const jobLeaseMs = read('PAYGATE_JOB_LEASE_MS', 20_000, integer(3_000, 600_000));
  const jobLanes = read('PAYGATE_JOB_LANES', 4, integer(1, 64));
  const jobNetworkSlots = read('PAYGATE_JOB_NETWORK_SLOTS', 8, integer(1, 256));
  const recoveryAfterMs = read('PAYGATE_RECOVERY_AFTER_MS', 30_000, integer(1_000, 3_600_000));
  const idempotencyLockMs = read('PAYGATE_IDEMPOTENCY_LOCK_MS', 60_000, integer(1_000, 3_600_000));
  const rateLimitPerSecond = read('PAYGATE_RATE_LIMIT', 0, integer(0, 1_000_000));
  const rateLimitBurst = read('PAYGATE_RATE_LIMIT_BURST', rateLimitPerSecond * 2, integer(1, 10_000_000));
  const pagePerSecond = read('PAYGATE_PAGE_RATE_LIMIT', 10, integer(0, 1_000_000));
  const pageRateLimit = {
    perSecond: pagePerSecond,
    burst: read('PAYGATE_PAGE_RATE_BURST', Math.max(1, pagePerSecond * 10), integer(1, 10_000_000)),
  };
  const linkPerSecond = read('PAYGATE_LINK_RATE_LIMIT', 1, integer(0, 1_000_000));
  const linkRateLimit = {
    perSecond: linkPerSecond,
    burst: read('PAYGATE_LINK_RATE_BURST', 30, integer(1, 10_000_000)),
  };
  const webhookTimeoutMs = read('PAYGATE_WEBHOOK_TIMEOUT_MS', 10_000, integer(100, 60_000));
  const paymentLinkTtlMs = read('PAYGATE_PAYMENT_LINK_TTL_MINUTES', 24 * 60, integer(1, 90 * 24 * 60)) * 60_000;
  const receiptLinkTtlMs = read('PAYGATE_RECEIPT_LINK_TTL_MINUTES', 60, integer(1, 90 * 24 * 60)) * 60_000;
  const pageDeclineLimit = read('PAYGATE_PAGE_DECLINE_LIMIT', 5, integer(1, 100));
  const receiptFont = readFontSetting(env.PAYGATE_RECEIPT_FONT, problems);
  const eventRetentionMs = read('PAYGATE_EVENT_RETENTION_DAYS', 90, integer(1, 3650)) * 24 * 60 * 60_000;
  const labInbox = {
    maxCaptures: read('PAYGATE_LAB_INBOX_MAX_CAPTURES', 10_000, integer(1, 1_000_000)),
    retentionMs: read('PAYGATE_LAB_INBOX_RETENTION_DAYS', 7, integer(1, 365)) * 24 * 60 * 60_000,
  };
  const dashboardIdleMinutes = read('PAYGATE_DASHBOARD_IDLE_MINUTES', 30, integer(5, 24 * 60));
  const deterministicSeed = env.PAYGATE_DETERMINISTIC_SEED || undefined;
  if (deterministicSeed !== undefined && mode === 'live')
    problems.push('PAYGATE_DETERMINISTIC_SEED: sandbox only (a live platform draws its identifiers at random)');
  if (deterministicSeed !== undefined && deterministicSeed.length > 200)
    problems.push('PAYGATE_DETERMINISTIC_SEED: at most 200 characters');
  const defaultCurrency = read('PAYGATE_DEFAULT_CURRENCY', 'HKD', (raw) =>
    /^[A-Z]{3}$/.test(raw) && currencyExponent(raw) !== undefined
      ? raw
      : 'must be an ISO 4217 currency code such as HKD',
  );
  const batchFileMaxBytes = read('PAYGATE_BATCH_FILE_LIMIT', 20 * 1024 * 1024, integer(1024, 1024 * 1024 * 1024));
  const batchFetchTimeoutMs = read('PAYGATE_BATCH_FETCH_TIMEOUT_MS', 30_000, integer(100, 600_000));
  const baseFees = mode === 'sandbox' ? SANDBOX_FEES : {};
  const fees = read<FeeSchedule>('PAYGATE_FEES', baseFees, (raw) => parseFeeSchedule(raw, baseFees));
  const ledgerPosting = oneOf('PAYGATE_LEDGER', ['on', 'off'], 'on') === 'on';
  const heapGrowthPercent = read('PAYGATE_HEAP_GROWTH_PERCENT', 100, integer(0, 1000));
  const demo = oneOf('PAYGATE_DEMO', ['0', '1'], '1') === '1' && mode === 'sandbox';

  const trustedProxies: Cidr[] = [];
  for (const item of (env.PAYGATE_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(item);
    if (cidr) trustedProxies.push(cidr);
    else problems.push(`PAYGATE_TRUSTED_PROXIES: ${JSON.stringify(item)} is not an IP address or CIDR range`);
  }

  let secret: Buffer | undefined;
  if (env.PAYGATE_SECRET) {
    secret = decodeSecret(env.PAYGATE_SECRET);
    if (!secret) problems.push('PAYGATE_SECRET: must be at least 32 bytes, written as hex or base64');
  } else if (mode === 'live') {
    problems.push('PAYGATE_SECRET: required in live mode (32 random bytes as hex, e.g. `openssl rand -hex 32`)');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    mode,
    host,
    port,
    dataDir,
    databaseUrl,
    publicBaseUrl,
    publicBaseUrlSet: Boolean(env.PAYGATE_PUBLIC_BASE_URL),
    logLevel,
    bodyLimitBytes,
    sqliteSynchronous,
    pgPoolSize,
    trustedProxies,
    secret,
    shutdownTimeoutMs,
    demo,
    schedulerPollMs,
    jobLeaseMs,
    jobLanes,
    jobNetworkSlots,
    recoveryAfterMs,
    idempotencyLockMs,
    rateLimitPerSecond,
    rateLimitBurst,
    pageRateLimit,
    linkRateLimit,
    webhookTimeoutMs,
    paymentLinkTtlMs,
    receiptLinkTtlMs,
    pageDeclineLimit,
    eventRetentionMs,
    labInbox,
    deterministicSeed,
    dashboardIdleMinutes,
    receiptFont,
    defaultCurrency,
    batchFileMaxBytes,
    batchFetchTimeoutMs,
    fees,
    ledgerPosting,
    heapGrowthPercent,
  };
}

/** `path` or `path#PostScriptName`; the file must exist (a missing font is a start-up error, not a failed receipt). */
function readFontSetting(raw: string | undefined, problems: string[]): Config['receiptFont'] {
  if (!raw) return undefined;
  const [path, family] = raw.split('#') as [string, string | undefined];
  if (!existsSync(path)) {
    problems.push(`PAYGATE_RECEIPT_FONT: no font file at ${JSON.stringify(path)}`);
    return undefined;
  }
  return { path, family: family || undefined };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function decodeSecret(text: string): Buffer | undefined {
  const bytes =
    /^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0
      ? Buffer.from(text, 'hex')
      : /^[A-Za-z0-9+/]+={0,2}$/.test(text)
        ? Buffer.from(text, 'base64')
        : undefined;
  return bytes && bytes.length >= 32 ? bytes : undefined;
}
