import type { FaultRule, FaultRuleInput } from '@paygate/client';
import { defineCommand, defineCommandGroup } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { durationSeconds } from '../cli/duration.js';
import { LAB_OPTIONS, labClient } from '../cli/lab-client.js';
import { wholeNumber } from '../inbox/cli.js';

const ADD = defineCommand({
  name: 'add',
  summary: 'add a fault rule: on the deliveries to an endpoint, or on a rail',
  description:
    'One effect and one scope. Deliveries (--endpoint URL): --status N, --delay MS, --timeout, --reset, --twice or ' +
    '--out-of-order WINDOW_MS; --next K, or --percent P --seed S; optionally --events PATTERN (order.*,payout.settled). ' +
    'Rails (--rail): card-payment with --decline CODE or --acquirer-timeout, card-authorisation with --decline REASON, ' +
    'payout with --reject or --return; each --next K. --expires 10m (s, m, h or d of wall time) ends the rule.',
  options: {
    ...LAB_OPTIONS,
    endpoint: { type: 'string', value: 'URL', description: 'the webhook URL whose deliveries it shapes' },
    rail: { type: 'string', value: 'RAIL', description: 'card-payment, card-authorisation or payout' },
    events: { type: 'string', value: 'PATTERN', description: 'only these event types (order.*,payout.settled)' },
    status: { type: 'string', value: 'N', description: 'answer with this HTTP status; the receiver sees nothing' },
    delay: { type: 'string', value: 'MS', description: 'send this many milliseconds late' },
    timeout: {
      type: 'boolean',
      description: 'count the attempt as timed out; the receiver sees nothing (here not the seconds to wait)',
    },
    reset: { type: 'boolean', description: 'reset the connection; the receiver sees nothing' },
    twice: { type: 'boolean', description: 'send the request twice' },
    'out-of-order': { type: 'string', value: 'WINDOW_MS', description: 'hold for the window, then send newest first' },
    decline: { type: 'string', value: 'CODE|REASON', description: 'a rail: decline with this code or reason' },
    'acquirer-timeout': { type: 'boolean', description: 'card-payment: the acquirer does not answer' },
    reject: { type: 'boolean', description: 'payout: the bank rejects the transfer' },
    return: { type: 'boolean', description: 'payout: the payment comes back after it settles' },
    next: { type: 'string', value: 'K', description: 'the next K matching attempts or calls' },
    percent: { type: 'string', value: 'P', description: 'P per cent of the matching attempts (with --seed)' },
    seed: { type: 'string', value: 'S', description: 'what the percentage is drawn from' },
    expires: { type: 'string', value: 'DURATION', description: 'end the rule after this wall time: 30s, 10m, 2h, 1d' },
  },
  async run({ options }, deps) {
    const number = (text: string | undefined, option: string) =>
      text === undefined ? undefined : wholeNumber(text, option);
    const rail = options.rail;
    if (rail !== undefined && !['card-payment', 'card-authorisation', 'payout'].includes(rail))
      throw new UsageError('--rail is card-payment, card-authorisation or payout');
    const input: FaultRuleInput = {
      ...(rail !== undefined && { rail: rail as FaultRuleInput['rail'] }),
      ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      ...(options.events !== undefined && { events: options.events }),
      ...(options.status !== undefined && { status: number(options.status, '--status') }),
      ...(options.delay !== undefined && { delay_ms: number(options.delay, '--delay') }),
      ...(options.timeout && { timeout: true }),
      ...(options.reset && { reset: true }),
      ...(options.twice && { twice: true }),
      ...(options['out-of-order'] !== undefined && {
        out_of_order_ms: number(options['out-of-order'], '--out-of-order'),
      }),
      ...(options.decline !== undefined && { decline: options.decline }),
      ...(options['acquirer-timeout'] && { acquirer_timeout: true }),
      ...(options.reject && { reject: true }),
      ...(options.return && { return: true }),
      ...(options.next !== undefined && { next: number(options.next, '--next') }),
      ...(options.percent !== undefined && { percent: number(options.percent, '--percent') }),
      ...(options.seed !== undefined && { seed: options.seed }),
      ...(options.expires !== undefined && { expires_in_seconds: durationSeconds(options.expires, '--expires') }),
    };
    // --timeout is the fault here: the call waits the default time.
    const lab = await labClient({ ...options, timeout: undefined }, deps);
    const rule = await lab.call((client) => client.faults.add(input));
    print(options, { rule }, () => `Added fault rule ${rule.id}: ${describe(rule)}`);
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: 'list the fault rules in force, with their uses left',
  options: LAB_OPTIONS,
  async run({ options }, deps) {
    const lab = await labClient(options, deps);
    const rules = await lab.call((client) => client.faults.list());
    print(options, { rules }, () =>
      rules.length === 0 ? 'No fault rules.' : rules.map((rule) => `${rule.id}  ${describe(rule)}`).join('\n'),
    );
  },
});

const REMOVE = defineCommand({
  name: 'remove',
  summary: 'remove a fault rule',
  arguments: [{ name: 'id', description: 'the rule' }],
  options: LAB_OPTIONS,
  async run({ options, args }, deps) {
    const lab = await labClient(options, deps);
    const result = await lab.call((client) => client.faults.remove(args.id));
    print(options, result, () => `Removed fault rule ${result.removed}.`);
  },
});

export const FAULTS_COMMAND = defineCommandGroup({
  name: 'faults',
  summary: 'fault rules: on the deliveries to an endpoint, or on the rails',
  commands: [ADD, LIST, REMOVE],
});

function describe(rule: FaultRule): string {
  const on = rule.target === 'delivery' ? `${rule.endpoint}${rule.events ? ` (${rule.events})` : ''}` : rule.target;
  const left = rule.used_up ? 'used up' : rule.uses_left === null ? `${rule.uses} uses` : `${rule.uses_left} left`;
  return `${rule.effect} on ${on}, ${rule.scope}, ${left}${rule.expires_at ? `, until ${rule.expires_at}` : ''}`;
}
