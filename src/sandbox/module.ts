import { defineModule } from '../module.js';
import { PAYER_PAGES } from './pages/payer-pages.js';
import { sandboxRoutes } from './routes.js';

/** The sandbox's simulations: the movable business clock, payers' answers, and the stand-in payer pages. */
export const sandboxModule = defineModule({
  name: 'sandbox',
  sandboxOnly: true,
  routes: sandboxRoutes,
  tags: [{ name: 'sandbox', description: 'Sandbox mode only: the merchant\'s clock and pending transactions.' }],
  pages: PAYER_PAGES,
});
