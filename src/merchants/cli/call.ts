import { PaygateClient, PaygateConnectionError } from '@paygate/client';
import { defineCommand } from '../../cli/command.js';
import { CommandFailure, networkFailure } from '../../cli/failures.js';
import { readFileArgument } from '../../cli/input.js';
import { UsageError } from '../../cli/output.js';
import { loadConfig } from '../../platform/config.js';
import { readDemoApp } from '../demo.js';

export const CALL_COMMAND = defineCommand({
  name: 'call',
  summary: 'make a signed call to a running server and print the reply',
  description: 'Signs with the demo app and key of the data folder (PAYGATE_DATA_DIR) unless --app and --key say otherwise, ' +
    'and calls the server at PAYGATE_PUBLIC_BASE_URL (or HOST and PORT) unless --base-url does. Exits with 1 unless the reply is a 2xx.',
  arguments: [
    { name: 'method', description: 'GET, POST, PUT or DELETE' },
    { name: 'path', description: 'the request target, such as /svc/payment/api/v1/openapi/echo' },
    { name: 'body', display: 'JSON | @FILE | -', optional: true, description: 'the body: JSON text, @ and a file to read it from, or - for stdin' },
  ],
  options: {
    app: { type: 'string', value: 'APP_ID', description: 'the AppID to sign as' },
    key: { type: 'string', value: 'PRIVATE_KEY.pem', description: "the app's private key" },
    'base-url': { type: 'string', value: 'URL', description: 'where the server answers, such as http://127.0.0.1:8080' },
    'idempotency-key': { type: 'string', value: 'KEY', description: 'send this Idempotency-Key' },
    timeout: { type: 'string', value: 'SECONDS', default: '30', description: 'how long to wait for the reply' },
    include: { type: 'boolean', short: 'i', description: 'print the status line and the headers before the body' },
    json: { type: 'boolean', description: 'print the body as received instead of indented' },
  },
  async run({ options, args }) {
    if (!/^[A-Za-z]+$/.test(args.method)) throw new UsageError(`METHOD is a word such as GET or POST (got ${JSON.stringify(args.method)})`);
    if (!args.path.startsWith('/')) throw new UsageError('PATH must start with /');
    const timeoutSeconds = Number(options.timeout);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 3600) throw new UsageError('--timeout must be a whole number of seconds from 1 to 3600');
    const config = loadConfig();
    const baseUrl = (options['base-url'] ?? config.publicBaseUrl).replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) throw new UsageError(`--base-url must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})`);
    const demo = readDemoApp(config.dataDir);
    const appId = options.app ?? demo?.app_id;
    const keyPath = options.key ?? demo?.private_key_path;
    if (!appId || !keyPath) {
      throw new UsageError(`no demo app in ${config.dataDir}: pass --app and --key, or start the server once to create it`);
    }
    const body = readBody(args.body);

    let client: PaygateClient;
    try {
      client = new PaygateClient({ baseUrl, appId, privateKey: readFileArgument('--key', keyPath), retry: { maxAttempts: 1 }, timeoutMs: timeoutSeconds * 1000 });
    } catch (error) {
      if (error instanceof CommandFailure) throw error;
      throw new CommandFailure(`--key: ${keyPath} is not a PEM private key`);
    }
    const reply = await client.send(args.method, args.path, undefined, { rawBody: body, idempotencyKey: options['idempotency-key'] })
      .catch((error: unknown) => {
        throw error instanceof PaygateConnectionError ? unreachable(baseUrl, timeoutSeconds, error) : error;
      });

    if (options.include) {
      process.stdout.write(`HTTP ${reply.status}\n`);
      reply.headers.forEach((value, name) => process.stdout.write(`${name}: ${value}\n`));
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
  const [text, source] = argument === '-' ? [readFileArgument('the body', '-'), 'stdin']
    : argument.startsWith('@') ? [readFileArgument('the body', argument.slice(1)), argument.slice(1)]
    : [argument, 'the argument'];
  if (text.trim() === '') return '';
  try {
    JSON.parse(text);
  } catch (error) {
    throw new CommandFailure(`the body (${source}) is not JSON: ${(error as Error).message}`);
  }
  return text;
}

/** A server that does not answer, said as such: where it was looked for, and what to check. */
function unreachable(baseUrl: string, timeoutSeconds: number, error: PaygateConnectionError): CommandFailure {
  const network = networkFailure(error);
  if (network?.timedOut) return new CommandFailure(`no answer from paygate at ${baseUrl} within ${timeoutSeconds} s (--timeout)`);
  const hint = network?.reason === 'connection refused' ? ' (is "paygate serve" running?)' : '';
  return new CommandFailure(`cannot reach paygate at ${baseUrl}: ${network?.reason ?? error.message}${hint}`);
}
