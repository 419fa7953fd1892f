import { defineCommand, defineCommandGroup, JSON_OPTION } from '../../cli/command.js';
import { readFileArgument } from '../../cli/input.js';
import { MERCHANT_OPTION, operatorMerchant } from '../../cli/operator.js';
import { print, UsageError } from '../../cli/output.js';
import { withPlatform } from '../../cli/platform-command.js';
import { type AppSummary, createApp, listMerchantApps, setAppEnabled, setAppWebhookUrl } from '../apps.js';

const APP_ID = { name: 'appId', description: 'the AppID' } as const;

const CREATE = defineCommand({
  name: 'create',
  summary: "register an app: a merchant's public key, and the platform's webhook key pair for it",
  description: 'Prints the AppID and the webhook public key, which verifies the webhooks paygate sends.',
  options: {
    merchant: MERCHANT_OPTION,
    'public-key': {
      type: 'string',
      value: 'FILE.pem',
      required: true,
      description: "the merchant's RSA public key, PEM, at least 2048 bits",
    },
    'allow-ip': {
      type: 'string',
      value: 'CIDR',
      multiple: true,
      description: 'accept signed calls only from these addresses; any when not given',
    },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const publicKeyPem = readFileArgument('--public-key', options['public-key']);
    const app = await withPlatform(deps, async (ctx) =>
      createApp(ctx, {
        merchantId: (await operatorMerchant(ctx, options.merchant)).id,
        publicKeyPem,
        allowedIps: options['allow-ip'],
      }),
    );
    print(
      options,
      { app_id: app.app_id, webhook_public_key: app.webhook_public_key, allowed_ips: app.allowed_ips },
      () =>
        `Created app ${app.app_id} for merchant ${app.merchant_id}\n` +
        `Allowed addresses: ${app.allowed_ips.length > 0 ? app.allowed_ips.join(', ') : 'any'}\n` +
        `Webhook public key (verify paygate's webhooks with it):\n${app.webhook_public_key.trim()}`,
    );
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: "list a merchant's apps",
  options: {
    merchant: MERCHANT_OPTION,
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const apps = await withPlatform(deps, async (ctx) =>
      listMerchantApps(ctx, (await operatorMerchant(ctx, options.merchant)).id),
    );
    print(options, { apps }, () => apps.map(describe).join('\n') || 'No apps.');
  },
});

function enabling(enabled: boolean) {
  return defineCommand({
    name: enabled ? 'enable' : 'disable',
    summary: enabled
      ? 'let a disabled app make signed calls again'
      : "refuse an app's signed calls, with 403, from the next request on",
    arguments: [APP_ID],
    options: { json: JSON_OPTION },
    async run({ options, args }, deps) {
      const app = await withPlatform(deps, (ctx) => setAppEnabled(ctx, args.appId, enabled));
      print(options, { app_id: app.app_id, status: app.status }, () => `App ${app.app_id} is now ${app.status}`);
    },
  });
}

const WEBHOOK = defineCommand({
  name: 'webhook',
  summary: "send every event of the app's merchant to URL as well, signed with the app's webhook key",
  arguments: [APP_ID, { name: 'url', description: 'the endpoint, http or https', optional: true }],
  options: {
    clear: { type: 'boolean', description: 'remove the endpoint instead' },
    json: JSON_OPTION,
  },
  async run({ options, args }, deps) {
    if ((args.url === undefined) === !options.clear) throw new UsageError('give either URL or --clear');
    const app = await withPlatform(deps, (ctx) => setAppWebhookUrl(ctx, args.appId, args.url ?? null));
    print(options, { app_id: app.app_id, webhook_url: app.webhook_url }, () =>
      app.webhook_url === null
        ? `App ${app.app_id} has no webhook endpoint now`
        : `Events of app ${app.app_id}'s merchant now also go to ${app.webhook_url}`,
    );
  },
});

export const APP_COMMAND = defineCommandGroup({
  name: 'app',
  summary: "manage merchants' apps: keys, allowed addresses, webhook endpoints",
  commands: [CREATE, LIST, enabling(false), enabling(true), WEBHOOK],
});

function describe(app: AppSummary): string {
  return (
    `${app.app_id}  ${app.status.padEnd(8)} allow: ${app.allowed_ips.length > 0 ? app.allowed_ips.join(',') : 'any'}  ` +
    `webhook: ${app.webhook_url ?? 'none'}  created ${app.created_at}`
  );
}
