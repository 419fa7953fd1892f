import { defineModule } from '../module.js';
import { PAYER_PAGES } from './pages/payer-pages.js';
import { ISSUING_SIMULATOR_ROUTES } from './issuing-routes.js';
import { PAYOUT_SIMULATOR_ROUTES } from './payout-routes.js';
import { sandboxRoutes } from './routes.js';

/** The sandbox's simulations: the movable business clock, payers' answers, the stand-in payer pages, the card network, the bank. */
export const sandboxModule = defineModule({
  name: 'sandbox',
  sandboxOnly: true,
  routes: [...sandboxRoutes, ...ISSUING_SIMULATOR_ROUTES, ...PAYOUT_SIMULATOR_ROUTES],
  tags: [{ name: 'sandbox', description: 'Sandbox mode only: the merchant\'s clock, pending transactions, users under review, the card network simulator and the bank of payouts.' }],
  pages: PAYER_PAGES,
});
