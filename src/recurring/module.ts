import { defineModule } from '../module.js';
import { PLANS_COMMAND } from './cli.js';
import { startWaitingPlans } from './engine.js';
import { RECURRING_ERRORS } from './errors.js';
import { PLAN_EVENTS } from './events.js';
import { RECURRING_JOBS } from './jobs.js';
import { RECURRING_ROUTES } from './routes.js';

/** Recurring payments (operation 3): items, billing configs, plans and the billing engine on the business clock. */
export const recurringModule = defineModule({
  name: 'recurring',
  routes: RECURRING_ROUTES,
  tags: [{ name: 'recurring', description: 'Recurring payments: items, billing configs, plans.' }],
  errors: RECURRING_ERRORS,
  events: Object.values(PLAN_EVENTS),
  jobs: RECURRING_JOBS,
  reactions: [{ action: 'payment_token.succeeded', run: startWaitingPlans }],
  commands: [PLANS_COMMAND],
});
