import { defineCommand } from '../../cli/command.js';
import { CommandFailure } from '../../cli/failures.js';
import { readFileArgument } from '../../cli/input.js';
import { UsageError } from '../../cli/output.js';
import { APP_CLIENT_OPTIONS, appClient, unreachable } from './app-client.js';

export const CALL_COMMAND = defineCommand({
  name: 'call',
  summary: 'make a signed call to a running server and print the reply',
  description:
    'Signs with the demo app and key of the data folder (PAYGATE_DATA_DIR) unless --app and --key say otherwise, ' +
    'and calls the server at PAYGATE_PUBLIC_BASE_URL (or HOST and PORT) unless --base-url does. Exits with 1 unless the reply is a 2xx.',
  arguments: [
    { name: 'method', description: 'GET, POST, PUT or DELETE' },
    { name: 'path', description: 'the request target, such as /svc/payment/api/v1/openapi/echo' },
    {
      name: 'body',
      display: 'JSON | @FILE | -',
      optional: true,
      description: 'the body: JSON text, @ and a file to read it from, or - for stdin',
    },
  ],
  options: {
    ...APP_CLIENT_OPTIONS,
    'idempotency-key': { type: 'string', value: 'KEY', description: 'send this Idempotency-Key' },
    include: { type: 'boolean', short: 'i', description: 'print the status line and the headers before the body' },
    json: { type: 'boolean', description: 'print the body as received instead of indented' },
  },
  async run({ options, args }) {
    if (!/^[A-Za-z]+$/.test(args.method))
      throw new UsageError(`METHOD is a word such as GET or POST (got ${JSON.stringify(args.method)})`);
    if (!args.path.startsWith('/')) throw new UsageError('PATH must start with /');
    const body = readBody(args.body);
    const { client, baseUrl, timeoutSeconds } = appClient(options);
    const reply = await client
      .send(args.method, args.path, undefined, { rawBody: body, idempotencyKey: options['idempotency-key'] })
      .catch((error: unknown) => {
        throw unreachable(baseUrl, timeoutSeconds, error);
      });

    if (options.include) {
      process.stdout.write(`HTTP ${reply.status}\n`);
      for (const [name, value] of reply.headers) process.stdout.write(`${name}: ${value}\n`);
      process.stdout.write('\n');
    }
    const pretty = options.json || reply.json === undefined ? reply.text : JSON.stringify(reply.json, null, 2);
    process.stdout.write(`${pretty}\n`);
    return reply.status >= 200 && reply.status < 300 ? 0 : 1;
  },
});

/** The body as given (JSON text, @FILE, or - for stdin), checked to be JSON before anything is sent. */
function readBody(argument: string | undefined): string {
  if (argument === undefined) return '';
  const [text, source] =
    argument === '-'
      ? [readFileArgument('the body', '-'), 'stdin']
      : argument.startsWith('@')
        ? [readFileArgument('the body', argument.slice(1)), argument.slice(1)]
        : [argument, 'the argument'];
  if (text.trim() === '') return '';
  try {
    JSON.parse(text);
  } catch (error) {
    throw new CommandFailure(`the body (${source}) is not JSON: ${(error as Error).message}`);
  }
  return text;
}
