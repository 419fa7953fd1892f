import { parseArgs } from 'node:util';
import type { Command, CommandDeps } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { withPlatform } from '../../cli/platform-command.js';
import { createMerchant, listAllMerchants } from '../merchants.js';

const MERCHANT_USAGE = `paygate merchant create --name NAME [--timezone Asia/Hong_Kong] [--settlement-hour 23] [--json]
paygate merchant list [--json]`;

export const MERCHANT_COMMAND: Command = { name: 'merchant', usage: MERCHANT_USAGE, run: merchantCommand };

async function merchantCommand(args: string[], deps: CommandDeps): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      timezone: { type: 'string' },
      'settlement-hour': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const output = { json: values.json ?? false };
  if (action === 'create') {
    if (!values.name) throw new UsageError('merchant create needs --name');
    const name = values.name;
    const hour = values['settlement-hour'];
    if (hour !== undefined && !/^\d{1,2}$/.test(hour)) throw new UsageError('--settlement-hour takes an hour from 0 to 23');
    const settlementHour = hour === undefined ? undefined : Number(hour);
    const merchant = await withPlatform(deps, (ctx) => createMerchant(ctx, { name, timezone: values.timezone, settlementHour }));
    print(output, { merchant_id: merchant.merchant_id }, () =>
      `Created merchant ${merchant.merchant_id} (${merchant.name}, ${merchant.timezone}, settles at ${merchant.settlement_hour}:00)`);
  } else if (action === 'list') {
    const merchants = await withPlatform(deps, (ctx) => listAllMerchants(ctx));
    print(output, { merchants }, () =>
      merchants.map((m) => `${m.merchant_id}  ${m.timezone.padEnd(20)} ${m.name}`).join('\n') || 'No merchants.');
  } else {
    throw new UsageError(MERCHANT_USAGE);
  }
}
