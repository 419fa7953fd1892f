import type { PlatformContext } from '../context/context.js';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import type { CommandDeps } from './command.js';

/**
 * Runs a command against the same database the server uses (it may be running: SQLite waits for the
 * server's writes with BEGIN IMMEDIATE and a busy timeout). Logs go to stderr, so stdout stays parseable.
 */
export async function withPlatform<T>(deps: CommandDeps, work: (platform: PlatformContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, process.stderr);
  const { platform, database } = await deps.openPlatform(config, { logger });
  try {
    return await work(platform);
  } finally {
    await database.close();
  }
}
