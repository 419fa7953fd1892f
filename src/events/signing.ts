import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { promisify } from 'node:util';
import { ALGORITHM, formatRequestTime, newNonce, signingMessage } from '@paygate/client';
import type { PlatformContext } from '../context/context.js';

/** crypto.sign with a callback runs in libuv's thread pool. */
const signInThreadPool = promisify(sign);

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
  const requestTime = formatRequestTime(request.at);
  const nonce = newNonce();
  const message = signingMessage({
    requestTime,
    nonce,
    method: 'POST',
    target: `${target.pathname}${target.search}`,
    body: request.body,
  });
  // The RSA signature is about half of a delivery's CPU: made in the thread pool, it leaves the event loop to the API
  // and to posting the other deliveries (the same PKCS#1 v1.5 signature the client's signRequest makes).
  const signature = await signInThreadPool(
    'sha256',
    Buffer.from(message, 'ascii'),
    await webhookKeyOf(platform, request.appId),
  );
  return { credential: `${request.appId}/${requestTime}/${ALGORITHM}`, nonce, signature: signature.toString('base64') };
}

async function webhookKeyOf(platform: Pick<PlatformContext, 'db' | 'secrets'>, appId: string): Promise<KeyObject> {
  let key = keys.get(appId);
  if (!key) {
    const app = await platform.db
      .selectFrom('apps')
      .select('webhook_private_key_enc')
      .where('id', '=', appId)
      .executeTakeFirstOrThrow();
    key = createPrivateKey(platform.secrets.decrypt(app.webhook_private_key_enc));
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(appId, key);
  }
  return key;
}
