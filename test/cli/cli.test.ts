import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { demoCallCommand } from '../../src/cli/serve.js';
import { byTestId, DashboardBrowser } from '../support/dashboard-browser.js';
import { TEST_PUBLIC_KEY } from '../support/keys.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { freePort, runCli, runShell, type ServeProcess, startServe } from '../support/processes.js';

describe('the paygate command line', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let serve: ServeProcess;
  let dropSchema: (() => Promise<void>) | undefined;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-cli-'));
    const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    dropSchema = schema?.drop;
    env = {
      PAYGATE_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      ...(schema ? { DATABASE_URL: schema.url } : {}),
    };
    serve = await startServe(env);
  });
  after(async () => {
    await serve?.stop();
    await dropSchema?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the first start creates the demo merchant, writes its keys and prints a command that works', async () => {
    const banner = serve.output();
    const appId = /AppID:\s+(\S+)/.exec(banner)?.[1];
    const privateKeyPath = /Private key:\s+(\S+)/.exec(banner)?.[1];
    assert.ok(appId && privateKeyPath, banner);
    assert.match(banner, /created on this first start/);
    assert.ok(existsSync(privateKeyPath) || existsSync(join(process.cwd(), privateKeyPath)));
    assert.ok(existsSync(join(dataDir, 'demo-public-key.pem')));
    assert.ok(existsSync(join(dataDir, 'demo-webhook-public-key.pem')));

    // Pasted as printed into a fresh shell in the project folder: none of this server's PORT, PAYGATE_DATA_DIR or
    // DATABASE_URL, so the command must say where the server answers and which key signs.
    const command = /^ {2}(npx paygate call .+)$/m.exec(banner)?.[1];
    assert.ok(command, banner);
    const fresh = await runShell(command, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' });
    assert.equal(fresh.code, 0, `${command}\n${fresh.stdout}${fresh.stderr}`);
    assert.equal(JSON.parse(fresh.stdout).data.message, 'Hello, paygate');

    // The demo sign-in to the dashboard, printed as the key is: it signs in as the demo merchant's owner.
    const dashboard = /^Dashboard: (\S+)\n {2}Email: +(\S+)\n {2}Password: +(\S+)$/m.exec(banner);
    assert.ok(dashboard, banner);
    const [, dashboardUrl, email, password] = dashboard;
    const browser = new DashboardBrowser(dashboardUrl!);
    assert.equal((await browser.signIn(email!, password!)).status, 303);
    assert.deepEqual(byTestId((await browser.get('/dashboard')).html, 'who'), [`${email} (owner)`]);
  });

  test("the banner's command is the short one where a fresh shell's defaults find the server and the demo key", () => {
    const demo = {
      app_id: 'demo-app',
      merchant_id: 'm',
      private_key_path: resolve('data', 'demo-private-key.pem'),
      public_key_path: '',
      webhook_public_key_path: '',
    };
    const echo = `npx paygate call POST /svc/payment/api/v1/openapi/echo '{"message":"Hello, paygate"}'`;
    assert.equal(demoCallCommand({ url: 'http://127.0.0.1:8080', dataDir: resolve('data'), demo }), echo);
    assert.equal(
      demoCallCommand({ url: 'http://127.0.0.1:9090', dataDir: resolve('data'), demo }),
      `${echo} --base-url http://127.0.0.1:9090`,
    );
    const elsewhere = { ...demo, private_key_path: '/srv/paygate data/demo-private-key.pem' };
    assert.equal(
      demoCallCommand({ url: 'http://127.0.0.1:8080', dataDir: '/srv/paygate data', demo: elsewhere }),
      `${echo} --app demo-app --key '/srv/paygate data/demo-private-key.pem'`,
    );
  });

  test('merchant create prints the id, with UTC as the default time zone', async () => {
    const created = await runCli(['merchant', 'create', '--name', 'Kowloon Noodles', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { merchant_id } = JSON.parse(created.stdout) as { merchant_id: string };
    const zoned = await runCli(
      ['merchant', 'create', '--name', 'HK Shop', '--timezone', 'Asia/Hong_Kong', '--json'],
      env,
    );
    const listed = JSON.parse((await runCli(['merchant', 'list', '--json'], env)).stdout) as {
      merchants: Array<{ merchant_id: string; timezone: string }>;
    };
    assert.equal(listed.merchants.find((m) => m.merchant_id === merchant_id)?.timezone, 'UTC');
    assert.equal(
      listed.merchants.find((m) => m.merchant_id === JSON.parse(zoned.stdout).merchant_id)?.timezone,
      'Asia/Hong_Kong',
    );
  });

  test('bad input to a command is refused with a clear message and a failing exit code', async () => {
    const zone = await runCli(['merchant', 'create', '--name', 'X', '--timezone', 'Mars/Olympus', '--json'], env);
    assert.equal(zone.code, 1);
    assert.equal(JSON.parse(zone.stdout).error.code, '100503');
    const missing = await runCli(['merchant', 'create'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--name/);
    const unknown = await runCli(['frobnicate'], env);
    assert.equal(unknown.code, 2);
  });

  test('app create, list, disable and enable work against the running server', async () => {
    const merchantId = JSON.parse((await runCli(['merchant', 'create', '--name', 'Apps', '--json'], env)).stdout)
      .merchant_id as string;
    const keyFile = join(dataDir, 'merchant-public.pem');
    writeFileSync(keyFile, TEST_PUBLIC_KEY);

    const created = await runCli(
      [
        'app',
        'create',
        '--merchant',
        merchantId,
        '--public-key',
        keyFile,
        '--allow-ip',
        '127.0.0.1',
        '--allow-ip',
        '::1',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const app = JSON.parse(created.stdout) as { app_id: string; webhook_public_key: string; allowed_ips: string[] };
    assert.match(app.webhook_public_key, /^-----BEGIN PUBLIC KEY-----/);
    assert.deepEqual(app.allowed_ips, ['127.0.0.1/32', '::1/128']);

    const listed = JSON.parse((await runCli(['app', 'list', '--merchant', merchantId, '--json'], env)).stdout) as {
      apps: Array<{ app_id: string; status: string }>;
    };
    assert.deepEqual(
      listed.apps.map((a) => [a.app_id, a.status]),
      [[app.app_id, 'active']],
    );

    const privateKey = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');
    const call = () =>
      runCli(
        [
          'call',
          'POST',
          '/svc/payment/api/v1/openapi/echo',
          '{"message":"x"}',
          '--app',
          app.app_id,
          '--key',
          privateKey,
          '--json',
        ],
        env,
      );
    assert.equal((await call()).code, 0);

    assert.equal((await runCli(['app', 'disable', app.app_id, '--json'], env)).code, 0);
    const refused = await call();
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(refused.stdout).error_code, '100111');

    assert.equal(JSON.parse((await runCli(['app', 'enable', app.app_id, '--json'], env)).stdout).status, 'active');
    assert.equal((await call()).code, 0);
  });

  test('app create refuses a short key and an unknown merchant', async () => {
    const merchantId = JSON.parse((await runCli(['merchant', 'create', '--name', 'Keys', '--json'], env)).stdout)
      .merchant_id as string;
    const weak = join(dataDir, 'weak.pem');
    writeFileSync(weak, readFileSync(join(process.cwd(), 'test', 'fixtures', 'weak-1024-public-key.pem'), 'utf8'));
    const short = await runCli(['app', 'create', '--merchant', merchantId, '--public-key', weak, '--json'], env);
    assert.equal(JSON.parse(short.stdout).error.code, '100504');
    const keyFile = join(dataDir, 'merchant-public.pem');
    const nobody = await runCli(
      ['app', 'create', '--merchant', '00000000-0000-4000-8000-000000000000', '--public-key', keyFile, '--json'],
      env,
    );
    assert.equal(JSON.parse(nobody.stdout).error.code, '100501');
  });

  test('call sends an Idempotency-Key, shows status and headers with --include, and reads the body from stdin', async () => {
    const body = JSON.stringify({ customer: { reference_number: 'CLI-1', name: 'A', phone: '1' } });
    const first = await runCli(
      ['call', 'POST', '/svc/payment/api/v1/openapi/customers', '-', '--idempotency-key', 'cli-key-1', '--include'],
      env,
      body,
    );
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^HTTP 200\n/);
    assert.match(first.stdout, /^x-request-id: /m);
    const replay = await runCli(
      ['call', 'POST', '/svc/payment/api/v1/openapi/customers', body, '--idempotency-key', 'cli-key-1', '--include'],
      env,
    );
    assert.match(replay.stdout, /^idempotent-replayed: true$/m);
  });

  test('migrate reports an up-to-date database', async () => {
    const result = await runCli(['migrate', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { applied: [] });
  });

  test('a second server on the same SQLite folder refuses to start', {
    skip: POSTGRES_URL ? 'one server per SQLite folder; PostgreSQL takes several' : false,
  }, async () => {
    const second = await runCli(['serve'], { ...env, PORT: String(await freePort()) });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /Another paygate server is serving the data folder/);
  });

  test('a server killed with SIGKILL leaves no lock behind: the next one starts on the same folder', {
    skip: POSTGRES_URL ? 'the data-folder lock is for SQLite' : false,
  }, async () => {
    const killedDir = mkdtempSync(join(tmpdir(), 'paygate-killed-'));
    const killedEnv = { ...env, PAYGATE_DATA_DIR: killedDir, PORT: String(await freePort()), PAYGATE_DEMO: '0' };
    try {
      const first = await startServe(killedEnv);
      assert.equal(await first.stop('SIGKILL'), null);
      const second = await startServe(killedEnv);
      assert.equal(await second.stop('SIGTERM'), 0);
    } finally {
      rmSync(killedDir, { recursive: true, force: true });
    }
  });

  test('a process with another PAYGATE_SECRET than the database was set up with refuses to start', async () => {
    const result = await runCli(['migrate'], { ...env, PAYGATE_SECRET: 'ab'.repeat(32) });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PAYGATE_SECRET: this database was set up with a/);
  });

  test('a bad configuration value stops the start with a message naming it', async () => {
    const result = await runCli(['serve'], { ...env, PORT: 'eighty', PAYGATE_MODE: 'production' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PORT: must be a whole number/);
    assert.match(result.stderr, /PAYGATE_MODE: must be one of sandbox, live/);
  });
});
