import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError } from './config.js';
import type { Db } from './database/database.js';

/** Keys derived from the platform secret: request fingerprints and encryption of secrets at rest. */
export interface PlatformSecrets {
  /** HMAC-SHA256 as hex: lets us compare requests without keeping their content. */
  fingerprint(...parts: Array<string | Uint8Array>): string;
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  /**
   * Bytes under authenticated encryption, bound to `label` (what they are and where they belong, a file's part say):
   * sealed bytes open only under the same label, so a part cannot be passed off as another.
   */
  sealBytes(plain: Uint8Array, label: string): Buffer;
  openBytes(sealed: Uint8Array, label: string): Buffer;
}

const GENERATED_SECRET = 'platform_secret';
/** The first byte of sealed bytes: their layout (then a 12-byte IV, a 16-byte tag, the ciphertext). */
const SEALED_BYTES_VERSION = Buffer.from([1]);
const SECRET_CHECK = 'secret_check';

/**
 * The configured secret; without one (sandbox only, the config refuses live mode), one generated on first
 * start and kept in the database, so every process on the same database derives the same keys. The first start
 * also stores a check value: a process with another secret refuses to start, rather than failing to open what
 * the others sealed and answering every replay as a conflict.
 */
export async function loadPlatformSecrets(db: Db, configured: Buffer | undefined): Promise<PlatformSecrets> {
  const secrets = derive(configured ?? (await generatedSecret(db)));
  const check = secrets.fingerprint('paygate secret check');
  await insertSetting(db, SECRET_CHECK, check);
  if ((await readSetting(db, SECRET_CHECK)) !== check) {
    throw new ConfigError([
      configured
        ? 'PAYGATE_SECRET: this database was set up with another secret; every process of a database needs the same one'
        : 'PAYGATE_SECRET: this database was set up with a configured secret; set the same one',
    ]);
  }
  return secrets;
}

async function generatedSecret(db: Db): Promise<Buffer> {
  await insertSetting(db, GENERATED_SECRET, randomBytes(32).toString('hex'));
  return Buffer.from((await readSetting(db, GENERATED_SECRET))!, 'hex');
}

async function insertSetting(db: Db, name: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

async function readSetting(db: Db, name: string): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst())?.value;
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
      return ['v1', iv, cipher.getAuthTag(), body]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    // GCM is a stream cipher: `final` adds nothing, so the body is `update`'s output as it is (parts of files are
    // megabytes: each copy saved is memory the allocator would keep).
    sealBytes(plain, label) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv).setAAD(Buffer.from(label, 'utf8'));
      const body = cipher.update(plain);
      cipher.final();
      return Buffer.concat([SEALED_BYTES_VERSION, iv, cipher.getAuthTag(), body]);
    },
    openBytes(sealed, label) {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      if (bytes.length < 29 || bytes[0] !== SEALED_BYTES_VERSION[0]) throw new Error('not sealed bytes');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(1, 13)).setAAD(
        Buffer.from(label, 'utf8'),
      );
      decipher.setAuthTag(bytes.subarray(13, 29));
      const plain = decipher.update(bytes.subarray(29));
      decipher.final();
      return plain;
    },
  };
}
