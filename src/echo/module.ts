import { defineModule } from '../module.js';
import { echoRoutes } from './routes.js';

/** The signature self-test: a signed request whose reply carries its message back. */
export const echoModule = defineModule({
  name: 'echo',
  routes: echoRoutes,
  tags: [{ name: 'signing', description: 'Signature self-test.' }],
});
