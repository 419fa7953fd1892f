import { generateKeyPair } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PlatformContext } from '../context/context.js';
import { createApp } from './apps.js';
import { DEMO_FILE, type DemoApp } from './demo-file.js';
import { createMerchant } from './merchants.js';
import { findApp } from './store.js';

/**
 * The demo merchant of a first start: a key pair in the data folder and an app for it, so that a signed call
 * works right away. Created again if the data folder's demo app is not in the database (a new database).
 */
export async function ensureDemoApp(ctx: PlatformContext): Promise<{ demo: DemoApp; created: boolean }> {
  const file = join(ctx.config.dataDir, DEMO_FILE);
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoApp;
    if (await findApp(ctx.db, demo.app_id)) return { demo, created: false };
  }
  const keys = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const merchant = await createMerchant(ctx, { name: 'Demo Merchant' });
  const app = await createApp(ctx, { merchantId: merchant.merchant_id, publicKeyPem: keys.publicKey });
  const demo: DemoApp = {
    app_id: app.app_id,
    merchant_id: merchant.merchant_id,
    private_key_path: join(ctx.config.dataDir, 'demo-private-key.pem'),
    public_key_path: join(ctx.config.dataDir, 'demo-public-key.pem'),
    webhook_public_key_path: join(ctx.config.dataDir, 'demo-webhook-public-key.pem'),
  };
  writeFileSync(demo.private_key_path, keys.privateKey, { mode: 0o600 });
  writeFileSync(demo.public_key_path, keys.publicKey, { mode: 0o600 });
  writeFileSync(demo.webhook_public_key_path, app.webhook_public_key, { mode: 0o600 });
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, created: true };
}
