export { advanceClock, MAX_ADVANCE_SECONDS, readClock, withMerchantClock } from './clock.js';
export { sandboxModule } from './module.js';
