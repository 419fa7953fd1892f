import { defineCommand } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { LAB_OPTIONS, labClient } from '../cli/lab-client.js';

/** A long clock move (an expiry a week ahead runs a week of due work) takes longer than a plain call. */
const TRIGGER_TIMEOUT_S = '120';

/** `paygate trigger KIND`: the real objects behind an event, made on a running sandbox server (docs/lab.md). */
export const TRIGGER_COMMAND = defineCommand({
  name: 'trigger',
  summary:
    'cause an event (order.paid, payout.settled...) by making the real objects behind it on a running sandbox server',
  description:
    'Every event kind of docs/webhooks.md has a trigger; docs/lab.md lists them, the fields each takes and how far the ' +
    "merchant's clock moves. Prints the event id and the objects made, once the event is recorded. A signed call like " +
    '"paygate call" (--app, --key, --base-url, or --merchant for its oldest active app); a live server refuses it (900101).',
  arguments: [{ name: 'kind', description: 'the event kind, such as order.paid' }],
  options: {
    ...LAB_OPTIONS,
    timeout: { ...LAB_OPTIONS.timeout, default: TRIGGER_TIMEOUT_S },
    set: {
      type: 'string',
      value: 'FIELD=VALUE',
      multiple: true,
      description: "a field of the objects made, by the API's name (currency=USD, charge_fee=12.50, customer_uuid=...)",
    },
  },
  async run({ options, args }, deps) {
    const set: Record<string, string> = {};
    for (const pair of options.set) {
      const equals = pair.indexOf('=');
      if (equals < 1) throw new UsageError(`--set must read FIELD=VALUE, such as currency=USD (got ${pair})`);
      const field = pair.slice(0, equals);
      if (field in set) throw new UsageError(`--set ${field} is given twice`);
      set[field] = pair.slice(equals + 1);
    }
    const lab = await labClient(options, deps);
    const outcome = await lab.call((client) =>
      client.labTriggers.trigger(args.kind, Object.keys(set).length > 0 ? set : undefined),
    );
    print(options, outcome, () => {
      const objects = Object.entries(outcome.objects).map(([name, ids]) => `${name} ${Object.values(ids)[0] ?? ''}`);
      const moved = outcome.clock_moved_s > 0 ? `; clock moved ${outcome.clock_moved_s} s` : '';
      return `${outcome.event} ${outcome.event_id} (${objects.join(', ')})${moved}`;
    });
  },
});
