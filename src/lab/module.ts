import { defineModule } from '../module.js';
import { SANDBOX_COMMAND } from './cli/sandbox-command.js';
import { labDeliveryHooks } from './delivery-lab.js';
import { LAB_ERRORS } from './errors.js';
import { labRailFaults } from './faults/rail-faults.js';
import { FAULT_ROUTES } from './faults/routes.js';
import { INBOX_ROUTES } from './inbox/routes.js';
import { LISTEN_COMMAND } from './listen/cli.js';
import { LISTEN_ROUTES } from './listen/routes.js';
import { SNAPSHOT_ROUTES } from './snapshots/routes.js';
import { TRIGGER_COMMAND } from './triggers/cli.js';
import { TRIGGER_ROUTES } from './triggers/routes.js';

/**
 * The sandbox lab (docs/lab.md): the capture inbox, `listen` and `trigger`, fault rules on deliveries and rails, named
 * snapshots and reset. Per merchant, through the signed API, the client and the command line; a live platform
 * refuses all of it (403 `900101`) rather than hiding it.
 */
export const labModule = defineModule({
  name: 'lab',
  routes: [...INBOX_ROUTES, ...FAULT_ROUTES, ...LISTEN_ROUTES, ...SNAPSHOT_ROUTES, ...TRIGGER_ROUTES],
  errors: LAB_ERRORS,
  tags: [
    {
      name: 'lab',
      description:
        "Sandbox mode only (403 900101 in live mode): the merchant's capture inbox, event stream, triggers, fault rules, snapshots and reset.",
    },
  ],
  commands: [SANDBOX_COMMAND, LISTEN_COMMAND, TRIGGER_COMMAND],
  deliveryHooks: labDeliveryHooks,
  railFaults: labRailFaults,
});
