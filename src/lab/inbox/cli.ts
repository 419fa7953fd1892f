import { defineCommand, defineCommandGroup } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { LAB_OPTIONS, labClient } from '../cli/lab-client.js';

const URL_COMMAND = defineCommand({
  name: 'url',
  summary: "print the merchant's inbox URL, to register like any webhook URL",
  options: LAB_OPTIONS,
  async run({ options }, deps) {
    const lab = await labClient(options, deps);
    const page = await lab.call((client) => client.inbox.list({ limit: 1 }));
    print(options, { url: page.url }, () => page.url);
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: 'list the captures, newest first',
  description:
    "--filter takes the API's query language without its filter[...] brackets around the field: --filter 'answer.status[_gte]=500'.",
  options: {
    ...LAB_OPTIONS,
    'event-type': { type: 'string', value: 'TYPES', description: 'only these event types, comma-separated' },
    object: { type: 'string', value: 'ID', description: "only this object's events (an order number, a card id...)" },
    since: { type: 'string', value: 'TIME', description: 'only captures made at or after this time (RFC 3339)' },
    filter: {
      type: 'string',
      value: 'FIELD[OP]=VALUE',
      multiple: true,
      description: 'a condition of the query language',
    },
    limit: { type: 'string', value: 'N', default: '20', description: 'how many, from 1 to 1000' },
    offset: { type: 'string', value: 'N', default: '0', description: 'how many to skip' },
  },
  async run({ options }, deps) {
    const filters: Record<string, string[]> = {};
    for (const condition of options.filter) {
      const match = /^([a-z_.]+)\[(_[a-z_]+)\]=(.*)$/s.exec(condition);
      if (!match) throw new UsageError(`--filter must read FIELD[OPERATOR]=VALUE, such as answer.status[_gte]=500`);
      const key = `filter[${match[1]}][${match[2]}]`;
      filters[key] = [...(filters[key] ?? []), match[3]!];
    }
    const lab = await labClient(options, deps);
    const page = await lab.call((client) =>
      client.inbox.list({
        event_type: options['event-type'],
        object: options.object,
        since: options.since,
        limit: wholeNumber(options.limit, '--limit'),
        offset: wholeNumber(options.offset, '--offset'),
        filters,
      }),
    );
    print(options, page, () =>
      page.captures.length === 0
        ? `No captures (inbox ${page.url}).`
        : [
            `${page.captures.length} of ${page.total}, newest first:`,
            ...page.captures.map(
              (c) =>
                `${c.id}  ${c.created_at}  ${c.event.type.padEnd(28)} ${(c.objects[0] ?? '-').padEnd(36)} ` +
                `${c.answer.status ?? c.answer.error ?? '-'}  ${c.signature_verified ? 'verified' : 'NOT VERIFIED'}` +
                `${c.fault ? `  fault: ${c.fault.effect}` : ''}  ${c.url}`,
            ),
          ].join('\n'),
    );
  },
});

const SHOW = defineCommand({
  name: 'show',
  summary: 'show one capture: the headers and body sent, the answer, the fault',
  arguments: [{ name: 'id', description: 'the capture' }],
  options: LAB_OPTIONS,
  async run({ options, args }, deps) {
    const lab = await labClient(options, deps);
    const capture = await lab.call((client) => client.inbox.show(args.id));
    print(options, { capture }, () =>
      [
        `${capture.event.type} ${capture.event.id} to ${capture.url} at ${capture.created_at}`,
        ...Object.entries(capture.headers).map(([name, value]) => `${name}: ${value}`),
        '',
        capture.body,
        '',
        `answer: ${capture.answer.status ?? capture.answer.error ?? '-'}${capture.answer.body_excerpt ? ` ${capture.answer.body_excerpt}` : ''}`,
        `signature: ${capture.signature_verified ? 'verified' : 'does NOT verify'}`,
        ...(capture.fault ? [`fault: ${capture.fault.effect} (rule ${capture.fault.rule_id})`] : []),
      ].join('\n'),
    );
  },
});

const CLEAR = defineCommand({
  name: 'clear',
  summary: 'empty the inbox',
  options: LAB_OPTIONS,
  async run({ options }, deps) {
    const lab = await labClient(options, deps);
    const result = await lab.call((client) => client.inbox.clear());
    print(options, result, () => `Cleared ${result.cleared} captures.`);
  },
});

const TAP = defineCommand({
  name: 'tap',
  summary: "also capture what is sent to one of the merchant's own endpoints (it still goes there)",
  options: {
    ...LAB_OPTIONS,
    endpoint: { type: 'string', value: 'URL', required: true, description: 'the endpoint' },
    remove: { type: 'boolean', description: 'stop capturing it' },
  },
  async run({ options }, deps) {
    const lab = await labClient(options, deps);
    const taps = await lab.call((client) =>
      options.remove ? client.inbox.untap(options.endpoint) : client.inbox.tap(options.endpoint),
    );
    print(options, { taps }, () => (taps.length === 0 ? 'No endpoint is tapped.' : `Tapped: ${taps.join(', ')}`));
  },
});

export const INBOX_COMMAND = defineCommandGroup({
  name: 'inbox',
  summary: 'the capture inbox: what paygate sent to the built-in inbox and to tapped endpoints',
  commands: [URL_COMMAND, LIST, SHOW, CLEAR, TAP],
});

export function wholeNumber(text: string, option: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw new UsageError(`${option} must be a whole number`);
  return value;
}
