import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaygateClient } from '@paygate/client';
import { type Database, openDatabase } from '../../src/platform/database/database.js';
import { TEST_PRIVATE_KEY, TEST_PUBLIC_KEY } from './keys.js';
import { createTestSchema, POSTGRES_URL } from './postgres.js';
import { freePort, runCli, type ServeProcess, startServe } from './processes.js';

/** A `paygate serve` process the crash tests start, kill and start again, and a client of its merchant. */
export interface CrashServer {
  env: Record<string, string>;
  client: PaygateClient;
  serve: ServeProcess | undefined;
}

/**
 * What the crash tests share: one server process per SQLite folder, or two sharing one PostgreSQL schema (when
 * DATABASE_URL is set); one merchant (Hong Kong) with an app signing with the test key; and a connection of the
 * test's own to read the stored state.
 */
export interface CrashBed {
  servers: CrashServer[];
  /** True on PostgreSQL: the servers share a schema (and recover each other's pending rail calls). */
  shared: boolean;
  database: Database;
  close(): Promise<void>;
}

export async function startCrashBed(options: {
  label: string;
  merchantName: string;
  startAll: boolean;
  env?: Record<string, string>;
}): Promise<CrashBed> {
  const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
  const dirs: string[] = [];
  const servers: CrashServer[] = [];
  for (let i = 0; i < (schema ? 2 : 1); i += 1) {
    const dataDir = mkdtempSync(join(tmpdir(), `paygate-${options.label}-`));
    dirs.push(dataDir);
    const env: Record<string, string> = {
      PAYGATE_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      PAYGATE_DEMO: '0',
      PAYGATE_MODE: 'sandbox',
      PAYGATE_SCHEDULER_POLL_MS: '50',
      // PostgreSQL recovers pending rail calls this old, periodically (SQLite at start).
      PAYGATE_RECOVERY_AFTER_MS: '1000',
      // Names this process's PostgreSQL sessions, so that a test can see whether it holds a transaction open.
      PGAPPNAME: `paygate-${options.label}-${i}`,
      ...(schema ? { DATABASE_URL: schema.url } : {}),
      ...options.env,
    };
    servers.push({ env, client: undefined as never, serve: undefined });
  }
  const env = servers[0]!.env;
  const merchant = await runCli(
    ['merchant', 'create', '--name', options.merchantName, '--timezone', 'Asia/Hong_Kong', '--json'],
    env,
  );
  assert.equal(merchant.code, 0, merchant.stderr);
  const merchantId = JSON.parse(merchant.stdout).merchant_id as string;
  const keyFile = join(dirs[0]!, 'public.pem');
  writeFileSync(keyFile, TEST_PUBLIC_KEY);
  const app = await runCli(['app', 'create', '--merchant', merchantId, '--public-key', keyFile, '--json'], env);
  assert.equal(app.code, 0, app.stderr);
  const appId = JSON.parse(app.stdout).app_id as string;
  for (const [i, server] of servers.entries()) {
    server.client = new PaygateClient({
      baseUrl: `http://127.0.0.1:${server.env.PORT}`,
      appId,
      privateKey: TEST_PRIVATE_KEY,
      retry: { maxAttempts: 1 },
      timeoutMs: 120_000,
    });
    if (i === 0 || options.startAll) server.serve = await startServe(server.env);
  }
  const database = openDatabase({
    databaseUrl: schema?.url,
    dataDir: dirs[0]!,
    sqliteSynchronous: 'NORMAL',
    pgPoolSize: 2,
  });
  return {
    servers,
    shared: schema !== undefined,
    database,
    async close() {
      for (const server of servers) await server.serve?.stop('SIGKILL');
      await database.close();
      await schema?.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
