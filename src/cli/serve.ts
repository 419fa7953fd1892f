import { isAbsolute, relative } from 'node:path';
import { loadConfig } from '../platform/config.js';
import { limitHeapGrowth } from '../platform/heap.js';
import { VERSION } from '../platform/version.js';
import { type CommandDeps, type DemoFacts, defineCommand, type StartedServer } from './command.js';

export const SERVE_COMMAND = defineCommand({
  name: 'serve',
  summary: 'run the server (what npm start runs)',
  description: 'Configured from the environment (docs/configuration.md). It stops cleanly on SIGTERM or SIGINT.',
  options: {
    json: {
      type: 'boolean',
      description: 'write the start-up facts as one more JSON log line, "msg":"ready", instead of the banner',
    },
  },
  run: ({ options }, deps) => serve(options.json, deps),
});

async function serve(json: boolean, deps: CommandDeps): Promise<void> {
  const config = loadConfig();
  limitHeapGrowth(config.heapGrowthPercent);
  // Handlers first: a signal that arrives while starting must still end in a clean close, not a kill.
  const starting = deps.startServer(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write('shutdown took too long; exiting\n');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    starting
      .then(async (server) => {
        server.platform.log.info({ signal }, 'shutting down: finishing requests in flight');
        await server.close();
        process.exit(0);
      })
      .catch((error: unknown) => {
        process.stderr.write(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const server = await starting;
  // With --json the facts join the log stream as one more JSON line, so stdout stays one kind of thing.
  if (json) server.platform.log.info(startupFacts(server), 'ready');
  else process.stdout.write(`${banner(server)}\n`);
}

function startupFacts(server: StartedServer) {
  const { config, database } = server.platform;
  return {
    url: server.url,
    mode: config.mode,
    database: database.engine,
    app_id: server.demo?.demo.app_id,
    merchant_id: server.demo?.demo.merchant_id,
    private_key_path: server.demo?.demo.private_key_path,
    public_key_path: server.demo?.demo.public_key_path,
    webhook_public_key_path: server.demo?.demo.webhook_public_key_path,
    dashboard_url: `${server.url}/dashboard`,
    dashboard_email: server.demo?.signIn?.email,
    // The password itself only on the terminal: logs are kept less carefully than the data folder's file.
    dashboard_password_file: server.demo?.signIn?.file,
  };
}

function banner(server: StartedServer): string {
  const { config, database } = server.platform;
  const storage = database.engine === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL';
  const lines = [`paygate ${VERSION} (${config.mode} mode) listening on ${server.url}, ${storage}`];
  if (server.demo) {
    const { demo, created } = server.demo;
    lines.push(
      '',
      `Demo merchant ${created ? '(created on this first start)' : ''}`.trimEnd(),
      `  AppID:              ${demo.app_id}`,
      `  Merchant:           ${demo.merchant_id}`,
      `  Private key:        ${nearby(demo.private_key_path)}`,
      `  Public key:         ${nearby(demo.public_key_path)}`,
      `  Webhook public key: ${nearby(demo.webhook_public_key_path)}`,
      '',
      'Make a signed call:',
      `  ${demoCallCommand({ url: server.url, dataDir: config.dataDir, demo })}`,
    );
    const signIn = server.demo.signIn;
    if (signIn)
      lines.push(
        '',
        `Dashboard: ${server.url}/dashboard`,
        `  Email:              ${signIn.email}`,
        `  Password:           ${signIn.password}`,
      );
  }
  lines.push('', `API reference: ${server.url}/docs`, '');
  return lines.join('\n');
}

/**
 * The banner's signed call, as it works pasted into a fresh shell in this folder: `paygate call` there finds the
 * server and the demo key where the default configuration says, so whatever differs from it is spelled out.
 */
export function demoCallCommand({ url, dataDir, demo }: { url: string; dataDir: string; demo: DemoFacts }): string {
  const fresh = loadConfig({});
  const words = ['npx paygate call POST /svc/payment/api/v1/openapi/echo', `'{"message":"Hello, paygate"}'`];
  if (url !== fresh.publicBaseUrl) words.push('--base-url', shellWord(url));
  if (dataDir !== fresh.dataDir)
    words.push('--app', shellWord(demo.app_id), '--key', shellWord(nearby(demo.private_key_path)));
  return words.join(' ');
}

/** A path inside the current folder relative to it (shorter to read and to type); any other as it is. */
function nearby(path: string): string {
  const near = relative(process.cwd(), path);
  return near && !near.startsWith('..') && !isAbsolute(near) ? near : path;
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
