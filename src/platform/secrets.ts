import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Db } from './database/database.js';

/** Keys derived from the platform secret: request fingerprints and encryption of secrets at rest. */
export interface PlatformSecrets {
  /** HMAC-SHA256 as hex: lets us compare requests without keeping their content. */
  fingerprint(...parts: Array<string | Uint8Array>): string;
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

const SETTING = 'platform_secret';

/**
 * The configured secret; without one (sandbox only, the config refuses live mode), one generated on first
 * start and kept in the database, so every process on the same database derives the same keys.
 */
export async function loadPlatformSecrets(db: Db, configured: Buffer | undefined): Promise<PlatformSecrets> {
  if (configured) return derive(configured);
  await db
    .insertInto('settings')
    .values({ name: SETTING, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('name', '=', SETTING).executeTakeFirstOrThrow();
  return derive(Buffer.from(row.value, 'hex'));
}

function derive(secret: Buffer): PlatformSecrets {
  const subkey = (label: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `paygate ${label}`, 32));
  const fingerprintKey = subkey('fingerprint');
  const encryptionKey = subkey('encryption');
  return {
    fingerprint(...parts) {
      const hmac = createHmac('sha256', fingerprintKey);
      for (const part of parts) hmac.update(part).update('\n');
      return hmac.digest('hex');
    },
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
