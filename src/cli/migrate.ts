import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import type { Command } from './command.js';
import { print } from './output.js';

export const MIGRATE_COMMAND: Command = {
  name: 'migrate',
  usage: 'paygate migrate [--json]        apply database migrations',
  async run(args, deps) {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
    const { database, migrations } = await deps.openPlatform(loadConfig(), { logger: createLogger({ logLevel: 'warn' }, process.stderr) });
    await database.close();
    print({ json: values.json ?? false }, { applied: migrations }, () =>
      migrations.length > 0 ? `Applied: ${migrations.join(', ')}` : 'The database is up to date.');
  },
};
