import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { defineCommand, JSON_OPTION } from './command.js';
import { print } from './output.js';

export const MIGRATE_COMMAND = defineCommand({
  name: 'migrate',
  summary: 'apply the database migrations not yet applied',
  description:
    'The server also applies them at start; on PostgreSQL under an advisory lock, so processes starting together migrate once.',
  options: { json: JSON_OPTION },
  async run({ options }, deps) {
    const { database, migrations } = await deps.openPlatform(loadConfig(), {
      logger: createLogger({ logLevel: 'warn' }, process.stderr),
    });
    await database.close();
    print({ json: options.json }, { applied: migrations }, () =>
      migrations.length > 0 ? `Applied: ${migrations.join(', ')}` : 'The database is up to date.',
    );
  },
});
