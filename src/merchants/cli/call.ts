import { readFileSync } from 'node:fs';
import { PaygateClient } from '@paygate/client';
import { defineCommand } from '../../cli/command.js';
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
    include: { type: 'boolean', short: 'i', description: 'print the status line and the headers before the body' },
    json: { type: 'boolean', description: 'print the body as received instead of indented' },
  },
  async run({ options, args }) {
    if (!args.path.startsWith('/')) throw new UsageError('PATH must start with /');
    const config = loadConfig();
    const demo = readDemoApp(config.dataDir);
    const appId = options.app ?? demo?.app_id;
    const keyPath = options.key ?? demo?.private_key_path;
    if (!appId || !keyPath) {
      throw new UsageError(`no demo app in ${config.dataDir}: pass --app and --key, or start the server once to create it`);
    }

    const client = new PaygateClient({
      baseUrl: options['base-url'] ?? config.publicBaseUrl,
      appId,
      privateKey: readFileSync(keyPath, 'utf8'),
      retry: { maxAttempts: 1 },
    });
    const reply = await client.send(args.method, args.path, undefined, {
      rawBody: readBody(args.body),
      idempotencyKey: options['idempotency-key'],
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

function readBody(argument: string | undefined): string {
  if (argument === undefined) return '';
  if (argument === '-') return readFileSync(0, 'utf8');
  if (argument.startsWith('@')) return readFileSync(argument.slice(1), 'utf8');
  return argument;
}
