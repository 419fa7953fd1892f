import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { PaygateClient, type PaygateClientOptions, signRequest } from '@paygate/client';
import type { PlatformContext } from '../../src/context/context.js';
import { createApp } from '../../src/merchants/apps.js';
import { createMerchant } from '../../src/merchants/merchants.js';
import type { Clock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { TEST_PRIVATE_KEY, TEST_PUBLIC_KEY } from './keys.js';
import { createTestSchema, POSTGRES_URL } from './postgres.js';

/** A wall clock the test can move; it follows real time from wherever it was set, unless frozen. */
export class TestClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  /** Stops the clock where it is (or at `at`): only advance() and set() move it. */
  freeze(at?: Date): this {
    this.frozenAt = at?.getTime() ?? this.now().getTime();
    return this;
  }

  /** Lets the clock follow real time again, from where it stands. */
  unfreeze(): void {
    if (this.frozenAt === undefined) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }

  now(): Date {
    return new Date(this.frozenAt ?? Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  set(at: Date): void {
    if (this.frozenAt !== undefined) this.frozenAt = at.getTime();
    else this.offsetMs = at.getTime() - Date.now();
  }
}

export interface TestMerchant {
  merchantId: string;
  appId: string;
  privateKey: string;
  webhookPublicKey: string;
  client: PaygateClient;
}

export interface TestServer {
  url: string;
  server: RunningServer;
  platform: PlatformContext;
  clock: TestClock;
  dataDir: string;
  /** The environment this server was configured from (to start a CLI or a second process against it). */
  env: Record<string, string>;
  newMerchant(options?: NewMerchantOptions): Promise<TestMerchant>;
  client(merchant: Pick<TestMerchant, 'appId' | 'privateKey'>, options?: Partial<PaygateClientOptions>): PaygateClient;
  close(): Promise<void>;
}

export interface NewMerchantOptions {
  name?: string;
  timezone?: string;
  allowedIps?: string[];
  publicKeyPem?: string;
  privateKeyPem?: string;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Start on this database instead of a fresh one (a restart, or a second process). */
  databaseUrl?: string;
  dataDir?: string;
  /** Collect the server's log lines (parsed) here instead of writing them to stderr. */
  logLines?: Array<Record<string, unknown>>;
  /** The wall clock the server starts on (a fresh one following real time by default). */
  clock?: TestClock;
}

/**
 * A real server on a random port, on a fresh SQLite folder or a fresh PostgreSQL schema (when DATABASE_URL is
 * set). It fails the test file at close if any route broke its contract (an undeclared error code, a reply
 * unlike the one stored for its Idempotency-Key).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'paygate-test-'));
  const schema = !options.databaseUrl && POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
  const databaseUrl = options.databaseUrl ?? schema?.url;
  const env: Record<string, string> = {
    PAYGATE_DATA_DIR: dataDir,
    PORT: '0',
    PAYGATE_DEMO: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PAYGATE_SCHEDULER_POLL_MS: '50',
    // Every test is one address asking for many payers' pages in a row; the per-link limit stays as configured.
    PAYGATE_PAGE_RATE_LIMIT: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = options.clock ?? new TestClock();
  const breaches: string[] = [];
  const server = await startServer(config, {
    wallClock: clock,
    logger: options.logLines
      ? createLogger({ logLevel: 'info' }, collector(options.logLines))
      : createLogger(config, process.stderr),
    onContractBreach: (route, problem) => breaches.push(`${route} ${problem}`),
  });
  const port = new URL(server.url).port;
  const url = server.url;

  const client = (
    merchant: Pick<TestMerchant, 'appId' | 'privateKey'>,
    overrides: Partial<PaygateClientOptions> = {},
  ) =>
    new PaygateClient({
      baseUrl: url,
      appId: merchant.appId,
      privateKey: merchant.privateKey,
      retry: { maxAttempts: 1 },
      ...overrides,
    });

  return {
    url,
    server,
    platform: server.platform,
    clock,
    dataDir,
    env: { ...env, PORT: port, PAYGATE_PUBLIC_BASE_URL: url },
    client,
    async newMerchant(merchantOptions = {}) {
      const merchant = await createMerchant(server.platform, {
        name: merchantOptions.name ?? 'Test Merchant',
        timezone: merchantOptions.timezone,
      });
      const privateKey = merchantOptions.privateKeyPem ?? TEST_PRIVATE_KEY;
      const app = await createApp(server.platform, {
        merchantId: merchant.merchant_id,
        publicKeyPem: merchantOptions.publicKeyPem ?? TEST_PUBLIC_KEY,
        allowedIps: merchantOptions.allowedIps,
      });
      const identity = { appId: app.app_id, privateKey };
      return {
        merchantId: merchant.merchant_id,
        ...identity,
        webhookPublicKey: app.webhook_public_key,
        client: client(identity),
      };
    },
    async close() {
      await server.close();
      await schema?.drop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (breaches.length > 0) throw new Error(`Routes broke their contract:\n${breaches.join('\n')}`);
    },
  };
}

function collector(lines: Array<Record<string, unknown>>): { write(line: string): void } {
  return { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/**
 * One HTTP request with nothing normalised: the target goes on the wire as given, the body as the exact
 * bytes, the headers as set. For tests of what arrives at the server byte for byte.
 */
export function rawRequest(
  baseUrl: string,
  input: { method: string; target: string; body?: string | Buffer; headers?: Record<string, string> },
): Promise<RawReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: input.method,
        path: input.target,
        headers: input.headers,
        agent: false,
      },
      (res) => {
        // A stream of server-sent events (the lab's) answers with its status and headers: it is not read to its end.
        if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: 200, headers: res.headers, text: '', json: undefined });
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (input.body !== undefined) req.write(input.body);
    req.end();
  });
}

/** Signed headers for a raw request; `body` must be the exact bytes that will be sent. */
export function signedHeaders(
  merchant: Pick<TestMerchant, 'appId' | 'privateKey'>,
  input: { method: string; target: string; body?: string | Buffer; at?: Date; nonce?: string; contentType?: boolean },
): Record<string, string> {
  const signed = signRequest({
    appId: merchant.appId,
    privateKey: merchant.privateKey,
    method: input.method,
    target: input.target,
    body: input.body ?? '',
    at: input.at,
    nonce: input.nonce,
  });
  return {
    credential: signed.Credential,
    nonce: signed.Nonce,
    signature: signed.Signature,
    ...(input.body !== undefined && input.body.length > 0 && input.contentType !== false
      ? { 'content-type': 'application/json' }
      : {}),
  };
}

/** Sends a signed request with exact bytes and returns the reply. */
export function signedRaw(
  baseUrl: string,
  merchant: Pick<TestMerchant, 'appId' | 'privateKey'>,
  input: {
    method: string;
    target: string;
    body?: string | Buffer;
    at?: Date;
    nonce?: string;
    headers?: Record<string, string>;
  },
): Promise<RawReply> {
  return rawRequest(baseUrl, {
    method: input.method,
    target: input.target,
    body: input.body,
    headers: { ...signedHeaders(merchant, input), ...input.headers },
  });
}

/**
 * A server and one merchant for the tests of a `describe`: started before them, closed after. `assign` receives
 * them, so the suite keeps its own names (`({ server, merchant, client } = bed)`).
 */
export function serverWithMerchant(
  assign: (bed: { server: TestServer; merchant: TestMerchant; client: PaygateClient }) => void,
): void {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer();
    const merchant = await server.newMerchant();
    assign({ server, merchant, client: merchant.client });
  });
  after(() => server?.close());
}
