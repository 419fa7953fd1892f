import { defineCommand, defineCommandGroup, JSON_OPTION } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { withPlatform } from '../../cli/platform-command.js';
import { createMerchant, DEFAULT_SETTLEMENT_HOUR, listAllMerchants } from '../merchants.js';

const CREATE = defineCommand({
  name: 'create',
  summary: 'create a merchant and print its id',
  description: 'Give it an app next (paygate app create) so that it can make signed calls.',
  options: {
    name: { type: 'string', required: true, description: "the merchant's name, shown to payers" },
    timezone: {
      type: 'string',
      value: 'ZONE',
      description: 'its IANA time zone, such as Asia/Hong_Kong; UTC when not given',
    },
    'settlement-hour': {
      type: 'string',
      value: 'HOUR',
      description: `the hour, 0 to 23 in its time zone, its day settles at; ${DEFAULT_SETTLEMENT_HOUR} when not given`,
    },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const hour = options['settlement-hour'];
    if (hour !== undefined && !/^\d{1,2}$/.test(hour))
      throw new UsageError('--settlement-hour takes an hour from 0 to 23');
    const settlementHour = hour === undefined ? undefined : Number(hour);
    const merchant = await withPlatform(deps, (ctx) =>
      createMerchant(ctx, { name: options.name, timezone: options.timezone, settlementHour }),
    );
    print(
      options,
      { merchant_id: merchant.merchant_id },
      () =>
        `Created merchant ${merchant.merchant_id} (${merchant.name}, ${merchant.timezone}, settles at ${merchant.settlement_hour}:00)`,
    );
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: 'list every merchant',
  options: { json: JSON_OPTION },
  async run({ options }, deps) {
    const merchants = await withPlatform(deps, (ctx) => listAllMerchants(ctx));
    print(
      options,
      { merchants },
      () => merchants.map((m) => `${m.merchant_id}  ${m.timezone.padEnd(20)} ${m.name}`).join('\n') || 'No merchants.',
    );
  },
});

export const MERCHANT_COMMAND = defineCommandGroup({
  name: 'merchant',
  summary: 'create and list merchants',
  commands: [CREATE, LIST],
});
