import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/database/database.js';
import type { PlatformSecrets } from '../platform/secrets.js';
import type { Rails } from './acquirer.js';
import { SandboxAcquirer } from './sandbox/acquirer.js';
import { SandboxBank } from './sandbox/bank.js';
import { SandboxIdentityVerifier } from './sandbox/identity.js';

/**
 * The outside world. Sandbox mode has the built-in simulations; live mode has none of them, and no real
 * connector ships with paygate yet, so a card operation, an identity check or a payout in live mode is refused
 * (acquirerUnavailable, identityUnavailable,
 * bankUnavailable).
 */
export function createRails(deps: { db: Db; wallClock: Clock; config: Config; secrets: PlatformSecrets }): Rails {
  if (deps.config.mode === 'sandbox') {
    return {
      acquirer: new SandboxAcquirer(deps),
      identity: new SandboxIdentityVerifier(),
      bank: new SandboxBank(),
    };
  }
  return { acquirer: undefined, identity: undefined, bank: undefined };
}
