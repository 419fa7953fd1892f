import { createPrivateKey, type KeyObject } from 'node:crypto';
import { signRequest } from '@paygate/client';
import type { PlatformContext } from '../context/context.js';

/** Apps' webhook private keys, decrypted once per process: signing is on every delivery's path. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

/**
 * The headers that sign a request paygate sends to a merchant's URL (a webhook delivery, a real-time authorisation
 * question) as the app's webhook key signs it: Wonder-RSA-SHA256 over the path and the exact body, which the
 * merchant verifies with the app's webhook public key (docs/webhooks.md).
 */
export async function signedAsApp(
  platform: Pick<PlatformContext, 'db' | 'secrets'>,
  request: { appId: string; url: string; body: string; at: Date },
): Promise<{ credential: string; nonce: string; signature: string }> {
  const target = new URL(request.url);
  const signed = signRequest({
    appId: request.appId, privateKey: await webhookKeyOf(platform, request.appId), method: 'POST',
    target: `${target.pathname}${target.search}`, body: request.body, at: request.at,
  });
  return { credential: signed.Credential, nonce: signed.Nonce, signature: signed.Signature };
}

async function webhookKeyOf(platform: Pick<PlatformContext, 'db' | 'secrets'>, appId: string): Promise<KeyObject> {
  let key = keys.get(appId);
  if (!key) {
    const app = await platform.db.selectFrom('apps').select('webhook_private_key_enc').where('id', '=', appId).executeTakeFirstOrThrow();
    key = createPrivateKey(platform.secrets.decrypt(app.webhook_private_key_enc));
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(appId, key);
  }
  return key;
}
