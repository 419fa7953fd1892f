import { createPublicKey, type KeyObject } from 'node:crypto';
import type { BlockList } from 'node:net';
import { ALGORITHM, parseRequestTime, signingMessage, verifyMessage } from '@paygate/client';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/database/database.js';
import { AppError } from '../../platform/errors.js';
import { blockListOf, type Cidr, isInRanges, parseCidr } from '../../platform/net.js';
import { type Merchant, toMerchant } from '../../platform/tenants.js';
import { HTTP_ERRORS } from '../errors.js';
import { readAppCredentials } from './app-credentials.js';
import type { NonceStore } from './nonce-store.js';

/** How far the credential time may be from the server's wall clock, either way (30:00 exactly still passes). */
export const CREDENTIAL_WINDOW_MS = 30 * 60 * 1000;
/**
 * A nonce is kept this much longer than its credential can pass the time check, so that a process whose clock
 * runs behind another's still finds a nonce the other has already stopped needing.
 */
export const NONCE_SKEW_MARGIN_MS = 5 * 60 * 1000;

const NONCE = /^[0-9A-Za-z]{16,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface SignedRequest {
  method: string;
  /** The request-target exactly as received. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact body bytes; empty when there is no body. */
  body: Buffer;
  /** The caller's address (after any trusted proxy). */
  ip: string;
}

export interface Caller {
  appId: string;
  merchant: Merchant;
}

export type Authenticator = (request: SignedRequest) => Promise<Caller>;

/**
 * Wonder-RSA-SHA256 verification. Checks run cheapest-first, and nothing about an app is revealed (disabled,
 * allow list) before its signature verifies; the nonce is taken last, only for a request that is otherwise valid.
 */
export function createAuthenticator(deps: { database: Database; nonces: NonceStore; wallClock: Clock }): Authenticator {
  const keys = new Map<string, { pem: string; key: KeyObject }>();
  const allowLists = new Map<string, { text: string; ranges: BlockList | 'nobody' | undefined }>();

  const keyFor = (appId: string, pem: string): KeyObject => {
    const cached = keys.get(appId);
    if (cached?.pem === pem) return cached.key;
    const key = createPublicKey(pem);
    keys.set(appId, { pem, key });
    return key;
  };

  /** The app's allow list; an entry that no longer parses (entries are checked when written) lets nobody in. */
  const rangesFor = (appId: string, text: string): BlockList | 'nobody' | undefined => {
    const cached = allowLists.get(appId);
    if (cached?.text === text) return cached.ranges;
    const entries = JSON.parse(text) as string[];
    const cidrs = entries.map(parseCidr);
    const ranges = cidrs.some((c) => c === undefined)
      ? 'nobody'
      : cidrs.length > 0
        ? blockListOf(cidrs as Cidr[])
        : undefined;
    allowLists.set(appId, { text, ranges });
    return ranges;
  };

  return async (request) => {
    const credential = header(request, 'credential');
    if (credential === undefined)
      throw new AppError(HTTP_ERRORS.authHeaderMissing, 'The Credential header is missing.');
    const parts = credential.split('/');
    if (parts.length !== 3 || parts[2] !== ALGORITHM || !parts[0] || parts[0].length > 128) {
      throw new AppError(HTTP_ERRORS.credentialMalformed);
    }
    const [appId, requestTime] = parts as [string, string, string];
    const credentialTime = parseRequestTime(requestTime);
    if (!credentialTime) throw new AppError(HTTP_ERRORS.credentialMalformed);

    const nonce = header(request, 'nonce');
    if (nonce === undefined) throw new AppError(HTTP_ERRORS.authHeaderMissing, 'The Nonce header is missing.');
    const signature = header(request, 'signature');
    if (signature === undefined) throw new AppError(HTTP_ERRORS.authHeaderMissing, 'The Signature header is missing.');
    if (!NONCE.test(nonce)) throw new AppError(HTTP_ERRORS.nonceMalformed);

    const now = deps.wallClock.now().getTime();
    if (Math.abs(now - credentialTime.getTime()) > CREDENTIAL_WINDOW_MS)
      throw new AppError(HTTP_ERRORS.credentialTimeOutOfWindow);

    const app = await readAppCredentials({ database: deps.database, db: deps.database.db }, { appId });
    if (!app) throw new AppError(HTTP_ERRORS.appUnknown);

    const message = signingMessage({
      requestTime,
      nonce,
      method: request.method,
      target: request.target,
      body: request.body,
    });
    // On the event loop (about 21 us): measured on two cores, handing it to the thread pool cost more in
    // hand-off and preemption than it saved, and raised p99.
    if (!BASE64.test(signature) || !verifyMessage(message, signature, keyFor(app.app_id, app.public_key_pem))) {
      throw new AppError(HTTP_ERRORS.signatureInvalid);
    }

    if (app.disabled_at !== null) throw new AppError(HTTP_ERRORS.appDisabled);
    const ranges = rangesFor(app.app_id, app.allowed_ips);
    if (ranges === 'nobody' || (ranges && !isInRanges(request.ip, ranges)))
      throw new AppError(HTTP_ERRORS.addressNotAllowed);

    const expiresAt = credentialTime.getTime() + CREDENTIAL_WINDOW_MS + NONCE_SKEW_MARGIN_MS;
    if (!(await deps.nonces.claim(app.app_id, nonce, expiresAt, now))) throw new AppError(HTTP_ERRORS.nonceReused);

    return {
      appId: app.app_id,
      merchant: toMerchant({
        id: app.merchant_id,
        name: app.merchant_name,
        timezone: app.timezone,
        clock_offset_ms: app.clock_offset_ms,
        clock_frozen_at: app.clock_frozen_at,
        id_seed: app.id_seed,
        ids_drawn: app.ids_drawn,
        settlement_hour: app.settlement_hour,
      }),
    };
  };
}

/** A header's text; node joins a repeated header into one value, which then fails its format check. */
function header(request: SignedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
