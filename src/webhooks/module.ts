import { defineModule } from '../module.js';
import { WEBHOOKS_COMMAND } from './cli.js';
import { WEBHOOK_ROUTES } from './routes.js';

/** Webhooks as merchants and operators see them: redelivery, and the history of deliveries from the command line. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  routes: WEBHOOK_ROUTES,
  tags: [
    { name: 'webhooks', description: 'The events paygate sends, with every delivery attempt, and sending one again.' },
  ],
  commands: [WEBHOOKS_COMMAND],
});
