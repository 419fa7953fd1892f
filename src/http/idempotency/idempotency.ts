import type { Db } from '../../platform/database/database.js';
import { AppError, PLATFORM_ERRORS } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import {
  completeClaim,
  deleteExpiredClaim,
  findClaim,
  insertClaim,
  releaseClaim,
  retakeExpiredClaim,
} from './store.js';

/** Replies are kept this long; after it the key may be used afresh. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** By default a claim not finished within this time may be retaken (its process crashed or is stuck). */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

const KEY = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { kind: 'replay'; statusCode: number; body: string }
  | {
      kind: 'proceed';
      /** Stores the reply; false if the claim was retaken meanwhile or already holds a reply. */
      complete(db: Db, statusCode: number, body: string): Promise<boolean>;
      release(): Promise<void>;
    };

export interface ClaimRequest {
  merchantId: string;
  key: string;
  fingerprint: string;
  now: number;
  /** How long the claim holds before a retry may take it over; the token fences the old holder off. */
  lockMs?: number;
}

export function checkIdempotencyKey(key: string): void {
  if (!KEY.test(key)) throw new AppError(PLATFORM_ERRORS.idempotencyKeyInvalid);
}

/**
 * Claims a key with a unique insert. A finished key with the same fingerprint replays the stored reply; a
 * different fingerprint, or a claim still being processed, is refused.
 */
export async function claimIdempotencyKey(db: Db, request: ClaimRequest): Promise<Claim> {
  const id = { merchantId: request.merchantId, key: request.key };
  const held = { ...id, token: newId() };
  const proceed: Claim = {
    kind: 'proceed',
    complete: (tx, statusCode, body) => completeClaim(tx, held, statusCode, body),
    release: () => releaseClaim(db, held),
  };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const inserted = await insertClaim(db, {
      merchant_id: request.merchantId,
      idempotency_key: request.key,
      fingerprint: request.fingerprint,
      claim_token: held.token,
      state: 'processing',
      status_code: null,
      response_body: null,
      locked_until: request.now + (request.lockMs ?? IDEMPOTENCY_LOCK_MS),
      expires_at: request.now + IDEMPOTENCY_TTL_MS,
      created_at: request.now,
    });
    if (inserted) return proceed;

    const existing = await findClaim(db, id);
    if (!existing) continue;
    if (existing.expires_at <= request.now) {
      await deleteExpiredClaim(db, id, request.now);
      continue;
    }
    if (existing.fingerprint !== request.fingerprint) throw new AppError(PLATFORM_ERRORS.idempotencyKeyReused);
    if (existing.state === 'completed' && existing.status_code !== null && existing.response_body !== null) {
      return { kind: 'replay', statusCode: existing.status_code, body: existing.response_body };
    }
    if (
      existing.locked_until <= request.now &&
      (await retakeExpiredClaim(db, held, request.now, request.now + (request.lockMs ?? IDEMPOTENCY_LOCK_MS)))
    ) {
      return proceed;
    }
    throw new AppError(PLATFORM_ERRORS.idempotencyInProgress);
  }
  throw new AppError(PLATFORM_ERRORS.idempotencyInProgress);
}
