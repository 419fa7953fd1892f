import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command, CommandDeps } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { withPlatform } from '../../cli/platform-command.js';
import { createApp, listMerchantApps, setAppEnabled, setAppWebhookUrl, type AppSummary } from '../apps.js';

const APP_USAGE = `paygate app create --merchant ID --public-key FILE.pem [--allow-ip CIDR]... [--json]
paygate app list --merchant ID [--json]
paygate app disable APP_ID [--json]
paygate app enable APP_ID [--json]
paygate app webhook APP_ID URL [--json]      send every event of the app's merchant to URL as well
paygate app webhook APP_ID --clear [--json]`;

export const APP_COMMAND: Command = { name: 'app', usage: APP_USAGE, run: appCommand };

async function appCommand(args: string[], deps: CommandDeps): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      merchant: { type: 'string' },
      'public-key': { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
      clear: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const output = { json: values.json ?? false };
  switch (action) {
    case 'create': {
      if (!values.merchant || !values['public-key']) throw new UsageError('app create needs --merchant and --public-key');
      const merchantId = values.merchant;
      const publicKeyPem = readFileSync(values['public-key'], 'utf8');
      const app = await withPlatform(deps, (ctx) => createApp(ctx, { merchantId, publicKeyPem, allowedIps: values['allow-ip'] ?? [] }));
      print(output, { app_id: app.app_id, webhook_public_key: app.webhook_public_key, allowed_ips: app.allowed_ips }, () =>
        `Created app ${app.app_id} for merchant ${app.merchant_id}\n` +
        `Allowed addresses: ${app.allowed_ips.length > 0 ? app.allowed_ips.join(', ') : 'any'}\n` +
        `Webhook public key (verify paygate's webhooks with it):\n${app.webhook_public_key.trim()}`);
      return;
    }
    case 'list': {
      if (!values.merchant) throw new UsageError('app list needs --merchant');
      const merchantId = values.merchant;
      const apps = await withPlatform(deps, (ctx) => listMerchantApps(ctx, merchantId));
      print(output, { apps }, () => apps.map(describe).join('\n') || 'No apps.');
      return;
    }
    case 'disable':
    case 'enable': {
      const appId = positionals[0];
      if (!appId) throw new UsageError(`app ${action} needs APP_ID`);
      const app = await withPlatform(deps, (ctx) => setAppEnabled(ctx, appId, action === 'enable'));
      print(output, { app_id: app.app_id, status: app.status }, () => `App ${app.app_id} is now ${app.status}`);
      return;
    }
    case 'webhook': {
      const [appId, url] = positionals;
      if (!appId || (url === undefined) === !values.clear) throw new UsageError('app webhook needs APP_ID and either URL or --clear');
      const app = await withPlatform(deps, (ctx) => setAppWebhookUrl(ctx, appId, url ?? null));
      print(output, { app_id: app.app_id, webhook_url: app.webhook_url }, () =>
        app.webhook_url === null ? `App ${app.app_id} has no webhook endpoint now` : `Events of app ${app.app_id}'s merchant now also go to ${app.webhook_url}`);
      return;
    }
    default:
      throw new UsageError(APP_USAGE);
  }
}

function describe(app: AppSummary): string {
  return `${app.app_id}  ${app.status.padEnd(8)} allow: ${app.allowed_ips.length > 0 ? app.allowed_ips.join(',') : 'any'}  ` +
    `webhook: ${app.webhook_url ?? 'none'}  created ${app.created_at}`;
}
