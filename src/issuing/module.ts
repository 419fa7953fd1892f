import { defineModule } from '../module.js';
import { CARD_ROUTES } from './card-routes.js';
import { ISSUING_COMMAND } from './cli.js';
import { ISSUING_ERRORS } from './errors.js';
import { CARD_EVENTS } from './events.js';
import { ISSUING_JOBS } from './jobs.js';
import { CARD_TRANSACTION_LEDGER } from './lookup.js';
import { ISSUING_SANDBOX_ROUTES } from './sandbox-routes.js';
import { CARD_TRANSACTION_EVENTS } from './transactions/events.js';
import { TRANSACTION_ROUTES } from './transactions/routes.js';

/**
 * Issued cards (docs/issuing.md): JCB cards of the merchant's approved users, spending the merchant's funds under
 * limits.
 */
export const issuingModule = defineModule({
  name: 'issuing',
  routes: [...CARD_ROUTES, ...TRANSACTION_ROUTES],
  sandboxRoutes: ISSUING_SANDBOX_ROUTES,
  tags: [{ name: 'issuing', description: 'Cards issued to identity-verified users, and what they do.' }],
  errors: ISSUING_ERRORS,
  events: [...Object.values(CARD_EVENTS), ...Object.values(CARD_TRANSACTION_EVENTS)],
  jobs: ISSUING_JOBS,
  commands: [ISSUING_COMMAND],
  ledgerSources: [CARD_TRANSACTION_LEDGER],
});
