export { withMerchantClock } from './clock.js';
export { sandboxModule } from './module.js';
