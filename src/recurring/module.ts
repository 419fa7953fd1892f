import { defineModule } from '../module.js';
import { RECURRING_ERRORS } from './errors.js';
import { RECURRING_ROUTES } from './routes.js';

/** Recurring payments (operation 3): items and billing configs so far; plans and their billing engine build on them. */
export const recurringModule = defineModule({
  name: 'recurring',
  routes: RECURRING_ROUTES,
  tags: [{ name: 'recurring', description: 'Recurring payments: items, billing configs.' }],
  errors: RECURRING_ERRORS,
});
