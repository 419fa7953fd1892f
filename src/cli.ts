#!/usr/bin/env node
import { UsageError } from './cli/output.js';
import { USAGE } from './cli/usage.js';
import { ConfigError } from './platform/config.js';
import { DataDirLockedError } from './platform/database/data-dir-lock.js';
import { AppError } from './platform/errors.js';

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    // Each command is loaded when used: `merchant create` need not load the HTTP server.
    case 'serve': return (await import('./cli/serve.js')).serveCommand(args);
    case 'migrate': return (await import('./cli/migrate.js')).migrateCommand(args);
    case 'merchant': return (await import('./cli/merchant.js')).merchantCommand(args);
    case 'app': return (await import('./cli/app.js')).appCommand(args);
    case 'webhooks': return (await import('./cli/webhooks.js')).webhooksCommand(args);
    case 'call': return (await import('./cli/call.js')).callCommand(args);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new UsageError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
  }
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
