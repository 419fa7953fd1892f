import { createInterface } from 'node:readline/promises';
import type { PaygateClient } from '@paygate/client';
import { type CommandDeps, JSON_OPTION } from '../../cli/command.js';
import { CommandFailure } from '../../cli/failures.js';
import { withPlatform } from '../../cli/platform-command.js';
import { APP_CLIENT_OPTIONS, appClient, listMerchantApps, unreachable } from '../../merchants/index.js';
import { AppError, PLATFORM_ERRORS } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';

/** What every lab command takes: the options of `paygate call`, `--merchant` for that merchant's app, and `--json`. */
export const LAB_OPTIONS = {
  ...APP_CLIENT_OPTIONS,
  merchant: {
    type: 'string',
    value: 'MERCHANT_ID',
    description:
      "sign as this merchant's oldest active app (read from the data folder's database), with --key or, for the demo merchant, the demo key",
  },
  json: JSON_OPTION,
} as const;

export interface LabOptions {
  app?: string;
  key?: string;
  'base-url'?: string;
  timeout?: string;
  merchant?: string;
  json: boolean;
}

export interface LabClient {
  client: PaygateClient;
  baseUrl: string;
  /** Runs a call, a server that does not answer said in one line. */
  call<T>(work: (client: PaygateClient) => Promise<T>): Promise<T>;
}

/** A client signing as `--app`, as `--merchant`'s oldest active app, or as the demo app. */
export async function labClient(
  options: LabOptions,
  deps: CommandDeps,
  transport: { streaming?: boolean } = {},
): Promise<LabClient> {
  let app = options.app;
  if (options.merchant !== undefined) {
    if (app !== undefined) throw new CommandFailure('give --app or --merchant, not both');
    const merchantId = options.merchant;
    // As every command that names a merchant refuses one the database does not have (100501).
    if (!isUuid(merchantId)) throw new AppError(PLATFORM_ERRORS.merchantNotFound, `merchant ${merchantId} not found`);
    const apps = await withPlatform(deps, (platform) => listMerchantApps(platform, merchantId));
    const oldest = apps
      .filter((a) => a.status === 'active')
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.app_id.localeCompare(b.app_id))[0];
    if (!oldest) throw new CommandFailure(`merchant ${merchantId} has no active app`);
    app = oldest.app_id;
  }
  const { client, baseUrl, timeoutSeconds } = appClient({ ...options, app }, transport);
  return {
    client,
    baseUrl,
    call: (work) =>
      work(client).catch((error: unknown) => {
        throw unreachable(baseUrl, timeoutSeconds, error);
      }),
  };
}

/**
 * Asks before what cannot be taken back (a restore, a deletion, a reset) when a person is at a terminal; `--yes`, or
 * no terminal (a script, CI), goes ahead.
 */
export async function confirmed(question: string, yes: boolean): Promise<boolean> {
  if (yes || !process.stdin.isTTY || !process.stderr.isTTY) return true;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

export const YES_OPTION = { type: 'boolean', short: 'y', description: 'do not ask first' } as const;
