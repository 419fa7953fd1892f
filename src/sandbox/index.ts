export { sandboxModule } from './module.js';
export { withMerchantClock } from './clock.js';
