import { defineModule } from '../module.js';
import { PAYOUTS_COMMAND } from './cli.js';
import { PAYOUT_ERRORS } from './errors.js';
import { PAYOUT_EVENTS } from './events.js';
import { PAYOUT_JOBS } from './jobs.js';
import { PAYOUT_LEDGER } from './ledger-source.js';
import { PAYEE_ROUTES } from './payee-routes.js';
import { PAYOUT_ROUTES } from './routes.js';
import { BANK_TRANSFER_OPERATION } from './running.js';
import { PAYOUT_SANDBOX_ROUTES } from './sandbox-routes.js';

/**
 * Payees and payout requests (operation 9, docs/payouts.md): approval, scheduling on the business clock, the bank rail.
 */
export const payoutsModule = defineModule({
  name: 'payouts',
  routes: [...PAYEE_ROUTES, ...PAYOUT_ROUTES],
  sandboxRoutes: PAYOUT_SANDBOX_ROUTES,
  tags: [{ name: 'payouts', description: 'Payees, and payout requests to them out of the available balance.' }],
  errors: PAYOUT_ERRORS,
  events: Object.values(PAYOUT_EVENTS),
  jobs: PAYOUT_JOBS,
  railOperations: [BANK_TRANSFER_OPERATION],
  commands: [PAYOUTS_COMMAND],
  ledgerSources: [PAYOUT_LEDGER],
});
