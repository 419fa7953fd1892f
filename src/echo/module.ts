import { defineModule } from '../module.js';
import { ECHO_ROUTES } from './routes.js';

/** The signature self-test: a signed request whose reply carries its message back. */
export const echoModule = defineModule({
  name: 'echo',
  routes: ECHO_ROUTES,
  tags: [{ name: 'signing', description: 'Signature self-test.' }],
});
