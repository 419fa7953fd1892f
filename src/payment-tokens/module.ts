import { defineModule } from '../module.js';
import { BINDING_OPERATIONS } from './bind.js';
import { TOKEN_ERRORS } from './errors.js';
import { TOKEN_EVENTS } from './events.js';
import { TOKEN_JOBS } from './jobs.js';
import { BINDING_PAGES } from './pages/binding.js';
import { TOKEN_ROUTES } from './routes.js';
import { TOKEN_SANDBOX_ROUTES } from './sandbox-routes.js';

/**
 * Payment tokens: cards bound with 3-D Secure and wallet agreements, checked, listed, deleted and charged (operation
 * 8).
 */
export const paymentTokensModule = defineModule({
  name: 'payment-tokens',
  routes: TOKEN_ROUTES,
  tags: [
    {
      name: 'payment tokens',
      description: 'Cards (verified with 3-D Secure) and wallet agreements bound to a customer, to charge later.',
    },
  ],
  errors: TOKEN_ERRORS,
  events: Object.values(TOKEN_EVENTS),
  pages: BINDING_PAGES,
  sandboxRoutes: TOKEN_SANDBOX_ROUTES,
  jobs: TOKEN_JOBS,
  railOperations: [BINDING_OPERATIONS],
});
