import type { Logger } from 'pino';
import type { PlatformContext } from '../context/context.js';
import type { OpenedPlatform } from '../context/open-platform.js';
import type { Config } from '../platform/config.js';

/** A `paygate` command: the entry point lists them (its own, and every capability's). */
export interface Command {
  name: string;
  /** Its usage lines, shown by `paygate help` and on a usage error. */
  usage: string;
  run(args: string[], deps: CommandDeps): Promise<void>;
}

/** What the entry point gives every command, composed with every capability (so commands need not know them). */
export interface CommandDeps {
  /** Opens the configured database, migrated, as the server would (it may be running). */
  openPlatform(config: Config, options: { logger: Logger }): Promise<OpenedPlatform>;
  startServer(config: Config): Promise<StartedServer>;
}

/** What `paygate serve` shows of the server it started. */
export interface StartedServer {
  url: string;
  platform: PlatformContext;
  demo: { demo: DemoFacts; created: boolean } | undefined;
  close(): Promise<void>;
}

export interface DemoFacts {
  app_id: string;
  merchant_id: string;
  private_key_path: string;
  public_key_path: string;
  webhook_public_key_path: string;
}
