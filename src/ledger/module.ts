import { defineModule } from '../module.js';
import { BALANCE_COMMAND, LEDGER_COMMAND } from './cli.js';
import { LEDGER_ROUTES } from './routes.js';
import { LEDGER_SANDBOX_ROUTES } from './sandbox-routes.js';

/**
 * Balances and the double-entry ledger (docs/ledger.md). Postings come from the capabilities that move money,
 * through ./post.ts, in their own transactions; this module reads them, funds the sandbox and checks them.
 */
export const ledgerModule = defineModule({
  name: 'ledger',
  routes: LEDGER_ROUTES,
  sandboxRoutes: LEDGER_SANDBOX_ROUTES,
  tags: [{ name: 'ledger', description: "The merchant's balances and the journal entries behind them." }],
  commands: [BALANCE_COMMAND, LEDGER_COMMAND],
});
