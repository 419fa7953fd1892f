#!/usr/bin/env node
import { APP_USAGE, appCommand } from './cli/app.js';
import { CALL_USAGE, callCommand } from './cli/call.js';
import { MERCHANT_USAGE, merchantCommand } from './cli/merchant.js';
import { migrateCommand } from './cli/migrate.js';
import { UsageError } from './cli/output.js';
import { serveCommand } from './cli/serve.js';
import { ConfigError } from './platform/config.js';
import { DataDirLockedError } from './platform/database/data-dir-lock.js';
import { AppError } from './platform/errors.js';

const USAGE = `paygate: a self-hostable payments platform

paygate serve [--json]          run the server (what npm start runs)
paygate migrate [--json]        apply database migrations
${MERCHANT_USAGE}
${APP_USAGE}
${CALL_USAGE}

Configuration comes from the environment (docs/configuration.md).`;

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve': return serveCommand(args);
    case 'migrate': return migrateCommand(args);
    case 'merchant': return merchantCommand(args);
    case 'app': return appCommand(args);
    case 'call': return callCommand(args);
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
