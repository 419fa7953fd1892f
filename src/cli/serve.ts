import { relative } from 'node:path';
import { loadConfig } from '../platform/config.js';
import { VERSION } from '../platform/version.js';
import { defineCommand, type CommandDeps, type StartedServer } from './command.js';

export const SERVE_COMMAND = defineCommand({
  name: 'serve',
  summary: 'run the server (what npm start runs)',
  description: 'Configured from the environment (docs/configuration.md). It stops cleanly on SIGTERM or SIGINT.',
  options: {
    json: { type: 'boolean', description: 'write the start-up facts as one more JSON log line ("msg":"ready") instead of the banner' },
  },
  run: ({ options }, deps) => serve(options.json, deps),
});

async function serve(json: boolean, deps: CommandDeps): Promise<void> {
  const config = loadConfig();
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
  };
}

function banner(server: StartedServer): string {
  const { config, database } = server.platform;
  const storage = database.engine === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL';
  const lines = [`paygate ${VERSION} (${config.mode} mode) listening on ${server.url}, ${storage}`];
  if (server.demo) {
    const { demo, created } = server.demo;
    const show = (path: string) => {
      const near = relative(process.cwd(), path);
      return near && !near.startsWith('..') ? near : path;
    };
    lines.push(
      '',
      `Demo merchant ${created ? '(created on this first start)' : ''}`.trimEnd(),
      `  AppID:              ${demo.app_id}`,
      `  Merchant:           ${demo.merchant_id}`,
      `  Private key:        ${show(demo.private_key_path)}`,
      `  Public key:         ${show(demo.public_key_path)}`,
      `  Webhook public key: ${show(demo.webhook_public_key_path)}`,
      '',
      'Make a signed call:',
      `  npx paygate call POST /svc/payment/api/v1/openapi/echo '{"message":"Hello, paygate"}'`,
    );
  }
  lines.push('', `API reference: ${server.url}/docs`, '');
  return lines.join('\n');
}
