import { PaygateClient, PaygateConnectionError } from '@paygate/client';
import { CommandFailure, networkFailure } from '../../cli/failures.js';
import { readFileArgument } from '../../cli/input.js';
import { nodeFetch } from '../../cli/node-fetch.js';
import { UsageError } from '../../cli/output.js';
import { loadConfig } from '../../platform/config.js';
import { readDemoApp } from '../demo-file.js';

/** The options of a command that calls a running server as an app. */
export const APP_CLIENT_OPTIONS = {
  app: { type: 'string', value: 'APP_ID', description: 'the AppID to sign as' },
  key: { type: 'string', value: 'PRIVATE_KEY.pem', description: "the app's private key" },
  'base-url': { type: 'string', value: 'URL', description: 'where the server answers, such as http://127.0.0.1:8080' },
  timeout: { type: 'string', value: 'SECONDS', default: '30', description: 'how long to wait for each reply' },
} as const;

/**
 * A client signing as `--app` with `--key`, or as the demo app of the data folder (PAYGATE_DATA_DIR), calling
 * `--base-url`, or PAYGATE_PUBLIC_BASE_URL (or HOST and PORT).
 */
export function appClient(
  options: { app?: string; key?: string; 'base-url'?: string; timeout?: string },
  transport: { streaming?: boolean } = {},
): {
  client: PaygateClient;
  baseUrl: string;
  timeoutSeconds: number;
} {
  const timeoutSeconds = Number(options.timeout ?? '30');
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 3600)
    throw new UsageError('--timeout must be a whole number of seconds from 1 to 3600');
  const config = loadConfig();
  const baseUrl = (options['base-url'] ?? config.publicBaseUrl).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl))
    throw new UsageError(`--base-url must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})`);
  const demo = readDemoApp(config.dataDir);
  const appId = options.app ?? demo?.app_id;
  const keyPath = options.key ?? demo?.private_key_path;
  if (!appId || !keyPath)
    throw new UsageError(
      `no demo app in ${config.dataDir}: pass --app and --key, or start the server once to create it`,
    );
  try {
    const client = new PaygateClient({
      baseUrl,
      appId,
      privateKey: readFileArgument('--key', keyPath),
      retry: { maxAttempts: 1 },
      timeoutMs: timeoutSeconds * 1000,
      // A stream (paygate listen) is read as it comes: Node's own fetch; a call that ends, the quicker node:http.
      fetch: transport.streaming ? globalThis.fetch : nodeFetch,
    });
    return { client, baseUrl, timeoutSeconds };
  } catch (error) {
    if (error instanceof CommandFailure) throw error;
    throw new CommandFailure(`--key: ${keyPath} is not a PEM private key`);
  }
}

/** A server that does not answer, said as such: where it was looked for, and what to check. */
export function unreachable(baseUrl: string, timeoutSeconds: number, error: unknown): unknown {
  if (!(error instanceof PaygateConnectionError)) return error;
  const network = networkFailure(error);
  if (network?.timedOut)
    return new CommandFailure(`no answer from paygate at ${baseUrl} within ${timeoutSeconds} s (--timeout)`);
  const hint = network?.reason === 'connection refused' ? ' (is "paygate serve" running?)' : '';
  return new CommandFailure(`cannot reach paygate at ${baseUrl}: ${network?.reason ?? error.message}${hint}`);
}
