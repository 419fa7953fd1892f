import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/database/database.js';
import type { Rails } from './acquirer.js';
import { SandboxAcquirer } from './sandbox/acquirer.js';

/**
 * The outside world. Sandbox mode has the built-in simulations; live mode has none of them, and no real
 * connector ships with paygate yet, so a card operation in live mode is refused (acquirerUnavailable).
 */
export function createRails(deps: { db: Db; wallClock: Clock; config: Config }): Rails {
  if (deps.config.mode === 'sandbox') {
    return { acquirer: new SandboxAcquirer({ db: deps.db, wallClock: deps.wallClock, config: deps.config }) };
  }
  return { acquirer: undefined };
}
