import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { openPlatform } from '../context/open-platform.js';
import { print } from './output.js';

export async function migrateCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const config = loadConfig();
  const logger = createLogger({ logLevel: 'warn' }, process.stderr);
  const { database, migrations } = await openPlatform(config, { logger });
  await database.close();
  print({ json: values.json ?? false }, { applied: migrations }, () =>
    migrations.length > 0 ? `Applied: ${migrations.join(', ')}` : 'The database is up to date.');
}
