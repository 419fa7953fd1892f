#!/usr/bin/env node
import type { Command, CommandDeps } from './cli/command.js';
import { MIGRATE_COMMAND } from './cli/migrate.js';
import { UsageError } from './cli/output.js';
import { SERVE_COMMAND } from './cli/serve.js';
import { MODULES, openComposedPlatform } from './modules.js';
import { ConfigError } from './platform/config.js';
import { DataDirLockedError } from './platform/database/data-dir-lock.js';
import { AppError } from './platform/errors.js';

/** The platform's own commands, then every capability's. */
const COMMANDS: readonly Command[] = [SERVE_COMMAND, MIGRATE_COMMAND, ...MODULES.flatMap((module) => module.commands ?? [])];

const USAGE = `paygate: a self-hostable payments platform

${COMMANDS.map((command) => command.usage).join('\n')}

Configuration comes from the environment (docs/configuration.md).`;

const DEPS: CommandDeps = {
  openPlatform: (config, options) => openComposedPlatform(config, options),
  // Loaded when used: `paygate merchant create` need not load the HTTP server.
  startServer: async (config) => (await import('./server.js')).startServer(config),
};

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) throw new UsageError(`Unknown command ${JSON.stringify(name)}.\n\n${USAGE}`);
  await command.run(args, DEPS);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const json = process.argv.includes('--json');
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 2;
  } else if (error instanceof AppError) {
    if (json) process.stdout.write(`${JSON.stringify({ error: { code: error.definition.code, message: error.message } })}\n`);
    else process.stderr.write(`error ${error.definition.code}: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
});
