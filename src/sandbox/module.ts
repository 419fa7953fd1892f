import { defineModule } from '../module.js';
import { CLOCK_ROUTES } from './routes.js';

/**
 * The sandbox's own: the movable business clock. Every capability brings its own simulations (its `sandboxRoutes`
 * and `sandboxPages`), which exist in sandbox mode only too, under this module's tag.
 */
export const sandboxModule = defineModule({
  name: 'sandbox',
  sandboxOnly: true,
  routes: CLOCK_ROUTES,
  tags: [
    {
      name: 'sandbox',
      description:
        "Sandbox mode only: the merchant's clock, pending transactions, users under review, the card network simulator and the bank of payouts.",
    },
  ],
});
