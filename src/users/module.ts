import { defineModule } from '../module.js';
import { USER_ERRORS } from './errors.js';
import { USER_EVENTS } from './events.js';
import { USER_ROUTES } from './routes.js';
import { USER_SANDBOX_ROUTES } from './sandbox-routes.js';
import { VERIFICATION_OPERATION } from './verification.js';

/** Identity-verified users (operation 2): the cardholders of issuing, checked through the identity rail. */
export const usersModule = defineModule({
  name: 'users',
  routes: USER_ROUTES,
  sandboxRoutes: USER_SANDBOX_ROUTES,
  tags: [{ name: 'users', description: 'Identity-verified users: the cardholders of issued cards.' }],
  errors: USER_ERRORS,
  events: Object.values(USER_EVENTS),
  railOperations: [VERIFICATION_OPERATION],
});
