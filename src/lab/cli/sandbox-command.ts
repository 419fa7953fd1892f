import { defineCommandGroup } from '../../cli/command.js';
import { FAULTS_COMMAND } from '../faults/cli.js';
import { INBOX_COMMAND } from '../inbox/cli.js';

/** `paygate sandbox ...`: the lab's commands, each a signed call to a running sandbox server. */
export const SANDBOX_COMMAND = defineCommandGroup({
  name: 'sandbox',
  summary: "the sandbox lab: the capture inbox, fault rules, snapshots and reset (a running server's)",
  description:
    'Each is a signed call like "paygate call" (--app, --key, --base-url, or --merchant for its oldest active app); ' +
    'a live server refuses them (900101).',
  commands: [INBOX_COMMAND, FAULTS_COMMAND],
});
