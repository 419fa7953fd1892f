import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PaygateClient } from '@paygate/client';
import type { Command } from '../../cli/command.js';
import { UsageError } from '../../cli/output.js';
import { loadConfig } from '../../platform/config.js';
import { readDemoApp } from '../demo.js';

const CALL_USAGE = `paygate call METHOD PATH [JSON | @FILE | -] [--app APP_ID] [--key PRIVATE_KEY.pem]
             [--base-url URL] [--idempotency-key KEY] [--include] [--json]
Signs the request (with the demo app and key of the data folder unless told otherwise) and prints the reply.`;

export const CALL_COMMAND: Command = { name: 'call', usage: CALL_USAGE, run: callCommand };

async function callCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      app: { type: 'string' },
      key: { type: 'string' },
      'base-url': { type: 'string' },
      'idempotency-key': { type: 'string' },
      include: { type: 'boolean', short: 'i', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const [method, target, bodyArgument] = positionals;
  if (!method || !target || !target.startsWith('/')) throw new UsageError(CALL_USAGE);

  const config = loadConfig();
  const demo = readDemoApp(config.dataDir);
  const appId = values.app ?? demo?.app_id;
  const keyPath = values.key ?? demo?.private_key_path;
  if (!appId || !keyPath) {
    throw new UsageError(`No demo app in ${config.dataDir}: pass --app and --key, or start the server once to create it.`);
  }

  const client = new PaygateClient({
    baseUrl: values['base-url'] ?? config.publicBaseUrl,
    appId,
    privateKey: readFileSync(keyPath, 'utf8'),
    retry: { maxAttempts: 1 },
  });
  const reply = await client.send(method, target, undefined, {
    rawBody: readBody(bodyArgument),
    idempotencyKey: values['idempotency-key'],
  });

  if (values.include) {
    process.stdout.write(`HTTP ${reply.status}\n`);
    reply.headers.forEach((value, name) => process.stdout.write(`${name}: ${value}\n`));
    process.stdout.write('\n');
  }
  const pretty = values.json || reply.json === undefined ? reply.text : JSON.stringify(reply.json, null, 2);
  process.stdout.write(`${pretty}\n`);
  if (reply.status < 200 || reply.status >= 300) process.exitCode = 1;
}

function readBody(argument: string | undefined): string {
  if (argument === undefined) return '';
  if (argument === '-') return readFileSync(0, 'utf8');
  if (argument.startsWith('@')) return readFileSync(argument.slice(1), 'utf8');
  return argument;
}
