export { advanceClock, MAX_ADVANCE_SECONDS, readClock } from './clock.js';
export { sandboxModule } from './module.js';
