import { defineModule } from '../module.js';
import { listMerchants, toMerchant } from '../platform/tenants.js';
import { ORDER_ERRORS } from './errors.js';
import { ORDER_EVENTS } from './events.js';
import { ORDER_JOBS } from './jobs.js';
import { TRANSACTION_LEDGER } from './ledger-source.js';
import { CHECKOUT_PAGES } from './pages/checkout.js';
import { ORDER_SCREENS } from './pages/dashboard.js';
import { PAYER_PAGES } from './pages/payer-pages.js';
import { RECEIPT_PAGES } from './pages/receipt.js';
import { TRANSACTION_OPERATIONS } from './recovery.js';
import { ORDER_ROUTES } from './routes.js';
import { ORDER_SANDBOX_ROUTES } from './sandbox-routes.js';
import { scheduleNextSettlement } from './settlement.js';

/**
 * Orders and their transactions: payments, captures, voids, refunds, settlement, the payment page and receipts
 * (operation 1).
 */
export const ordersModule = defineModule({
  name: 'orders',
  routes: ORDER_ROUTES,
  tags: [{ name: 'orders', description: 'Orders, card payments, captures, voids and refunds.' }],
  errors: ORDER_ERRORS,
  events: Object.values(ORDER_EVENTS),
  pages: [...CHECKOUT_PAGES, ...RECEIPT_PAGES],
  screens: ORDER_SCREENS,
  sandboxRoutes: ORDER_SANDBOX_ROUTES,
  // The card issuer's 3-D Secure page and the payer's wallet app, for payments and bindings alike: a real acquirer
  // serves its own.
  sandboxPages: PAYER_PAGES,
  jobs: ORDER_JOBS,
  railOperations: [TRANSACTION_OPERATIONS],
  ledgerSources: [TRANSACTION_LEDGER],
  merchantCreated: (ctx, merchant) => scheduleNextSettlement(ctx, merchant),
  // Every merchant has its next settlement scheduled, merchants made before settlement existed too.
  async atStart(platform) {
    for (const row of await listMerchants(platform.db)) await scheduleNextSettlement(platform, toMerchant(row));
  },
});
