import { createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { PlatformContext } from '../context/context.js';
import { appsChanged } from '../events/outbox.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { parseCidr } from '../platform/net.js';
import { findMerchant } from '../platform/tenants.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { MERCHANT_ERRORS } from './errors.js';
import { type AppRow, findApp, insertApp, listApps, setAppDisabledAt } from './store.js';

const generateRsaKeyPair = promisify(generateKeyPair);

/** Keys of 2047 bits occur in the wild (a generator that lost the top bit); anything shorter is refused. */
export const MIN_RSA_BITS = 2047;

export interface CreateAppInput {
  merchantId: string;
  publicKeyPem: string;
  allowedIps?: string[];
}

export interface AppSummary {
  app_id: string;
  merchant_id: string;
  status: 'active' | 'disabled';
  allowed_ips: string[];
  webhook_public_key: string;
  /** Where every event of the merchant is also sent; null when none is set. */
  webhook_url: string | null;
  created_at: string;
}

export async function createApp(ctx: PlatformContext, input: CreateAppInput): Promise<AppSummary> {
  const merchant = await findMerchant(ctx.db, input.merchantId);
  if (!merchant) throw new AppError(PLATFORM_ERRORS.merchantNotFound, `merchant ${input.merchantId} not found`);
  const publicKeyPem = normalisePublicKey(input.publicKeyPem);
  const allowed = (input.allowedIps ?? []).map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr)
      throw new AppError(
        MERCHANT_ERRORS.allowedAddressInvalid,
        `${JSON.stringify(entry)} is not an IP address or CIDR range`,
      );
    return cidr.text;
  });
  const webhookKeys = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const row: AppRow = {
    id: newId(),
    merchant_id: merchant.id,
    public_key_pem: publicKeyPem,
    webhook_public_key_pem: webhookKeys.publicKey,
    webhook_private_key_enc: ctx.secrets.encrypt(webhookKeys.privateKey),
    allowed_ips: JSON.stringify(allowed),
    disabled_at: null,
    webhook_url: null,
    created_at: ctx.wallClock.now().getTime(),
  };
  await insertApp(ctx.db, row);
  return summarise(row);
}

export async function listMerchantApps(ctx: PlatformContext, merchantId: string): Promise<AppSummary[]> {
  if (!(await findMerchant(ctx.db, merchantId)))
    throw new AppError(PLATFORM_ERRORS.merchantNotFound, `merchant ${merchantId} not found`);
  return (await listApps(ctx.db, merchantId)).map(summarise);
}

export async function setAppEnabled(ctx: PlatformContext, appId: string, enabled: boolean): Promise<AppSummary> {
  const disabledAt = enabled ? null : ctx.wallClock.now().getTime();
  if (!(await setAppDisabledAt(ctx.db, appId, disabledAt)))
    throw new AppError(MERCHANT_ERRORS.appNotFound, `app ${appId} not found`);
  const row = await findApp(ctx.db, appId);
  if (!row) throw new AppError(MERCHANT_ERRORS.appNotFound, `app ${appId} not found`);
  return summarise(row);
}

/**
 * Sets (or with null, clears) the app's webhook endpoint: from then on every event of its merchant is also sent
 * there, signed with this app's webhook key. Checked like any merchant URL (no internal addresses in live mode).
 */
export async function setAppWebhookUrl(ctx: PlatformContext, appId: string, url: string | null): Promise<AppSummary> {
  if (url !== null) {
    try {
      checkMerchantUrl(url, 'the webhook URL', ctx.config.mode);
    } catch (error) {
      throw new AppError(MERCHANT_ERRORS.webhookUrlInvalid, (error as Error).message);
    }
  }
  const result = await ctx.db.updateTable('apps').set({ webhook_url: url }).where('id', '=', appId).executeTakeFirst();
  appsChanged(ctx.db);
  if (result.numUpdatedRows === 0n) throw new AppError(MERCHANT_ERRORS.appNotFound, `app ${appId} not found`);
  return summarise((await findApp(ctx.db, appId))!);
}

/** Parses a merchant's public key, refusing anything but RSA of an accepted size; returns canonical SPKI PEM. */
export function normalisePublicKey(pem: string): string {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new AppError(MERCHANT_ERRORS.publicKeyInvalid);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) {
    throw new AppError(
      MERCHANT_ERRORS.publicKeyInvalid,
      `the public key must be RSA of at least ${MIN_RSA_BITS} bits (got ${key.asymmetricKeyType} ${bits})`,
    );
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

function summarise(row: AppRow): AppSummary {
  return {
    app_id: row.id,
    merchant_id: row.merchant_id,
    status: row.disabled_at === null ? 'active' : 'disabled',
    allowed_ips: JSON.parse(row.allowed_ips) as string[],
    webhook_public_key: row.webhook_public_key_pem,
    webhook_url: row.webhook_url,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The webhook public key of an app, by its id (any merchant's: the caller scopes), as its merchant verifies with. */
export async function webhookPublicKeyOf(ctx: Pick<PlatformContext, 'db'>, appId: string): Promise<string | undefined> {
  return (await findApp(ctx.db, appId))?.webhook_public_key_pem;
}
