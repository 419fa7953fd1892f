import type { Config } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { LAB_ERRORS } from './errors.js';

/** Everything of the lab refuses to work on a live platform: one refusal, the same everywhere. */
export function requireSandbox(config: Pick<Config, 'mode'>): void {
  if (config.mode !== 'sandbox') throw new AppError(LAB_ERRORS.liveMode);
}
