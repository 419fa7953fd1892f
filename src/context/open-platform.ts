import type { Logger } from 'pino';
import { type Clock, systemClock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { CheckpointerEvent } from '../platform/database/checkpointer.js';
import { type Database, openDatabase } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { createLogger } from '../platform/logger.js';
import { loadPlatformSecrets } from '../platform/secrets.js';
import { createRails } from '../rails/index.js';
import type { PlatformContext } from './context.js';

export interface OpenedPlatform {
  platform: PlatformContext;
  database: Database;
  logger: Logger;
  migrations: string[];
}

/** Opens the database, applies migrations and loads the secrets: what the server and every command share. */
export async function openPlatform(
  config: Config,
  options: {
    wallClock?: Clock;
    logger?: Logger;
    merchantSetup?: PlatformContext['merchantSetup'];
    eventReactions?: PlatformContext['eventReactions'];
    ledgerSources?: PlatformContext['ledgerSources'];
    /**
     * A long-running server: SQLite's checkpoints run on a thread of their own (see platform/database/checkpointer.ts).
     */
    server?: boolean;
  } = {},
): Promise<OpenedPlatform> {
  const logger = options.logger ?? createLogger(config);
  const database = openDatabase({
    ...config,
    onDurabilityFailure: (error) =>
      logger.fatal(
        { err: error },
        'the disk refused to flush the database log: writes can no longer be made durable; restart the process',
      ),
    ...(options.server && {
      backgroundCheckpoints: (event: CheckpointerEvent) => {
        logger.error(
          { problem: event.message },
          event.kind === 'lost'
            ? 'the checkpoint thread stopped: commits checkpoint the database log again'
            : 'a checkpoint failed',
        );
      },
    }),
  });
  try {
    const migrations = await migrate(database);
    const secrets = await loadPlatformSecrets(database.db, config.secret);
    const wallClock = options.wallClock ?? systemClock;
    const platform: PlatformContext = {
      wallClock,
      db: database.db,
      database,
      config,
      secrets,
      log: logger,
      rails: createRails({ db: database.db, wallClock, config, secrets }),
      merchantSetup: options.merchantSetup ?? [],
      ...(options.eventReactions && { eventReactions: options.eventReactions }),
      ...(options.ledgerSources && { ledgerSources: options.ledgerSources }),
    };
    return { platform, database, logger, migrations };
  } catch (error) {
    await database.close();
    throw error;
  }
}
