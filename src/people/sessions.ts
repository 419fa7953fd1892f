import { createHash, randomBytes } from 'node:crypto';
import type { PlatformContext } from '../context/context.js';
import { inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { callerKey } from '../platform/net.js';
import { type Acting, recordAction } from './audit.js';
import { PEOPLE_ERRORS } from './errors.js';
import { NOBODY_HASH, passwordMatches } from './passwords.js';
import { normalEmail, type Person, toPerson } from './people.js';
import {
  clearFailures,
  countAttempt,
  deleteIdleSessions,
  deleteOldFailures,
  deleteSession,
  deleteSessionsOf,
  findPersonByEmail,
  findSession,
  insertSession,
  touchSession,
  uncountAttempt,
} from './store.js';

/** A signed-in browser: whose it is, and the token its forms carry. */
export interface Session {
  person: Person;
  formToken: string;
  /** The SHA-256 of the cookie's id: how the session is found and ended. */
  idHash: string;
}

/**
 * Sign-in attempts that did not succeed, counted in windows of 15 minutes from the first: per address (an IPv6 /64
 * counts as one) and per account. Over either limit, an attempt is refused before its password is checked.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_FAILURES_PER_ADDRESS = 20;
export const SIGN_IN_FAILURES_PER_ACCOUNT = 10;
/** However active, a session ends 12 hours after sign-in. */
const SESSION_MAX_MS = 12 * 60 * 60_000;
/**
 * A request writes the session's last-seen time only when it is older than this (not one write per page): a tenth of
 * the idle time, at most a minute, so that an active session never looks idle.
 */
const touchAfterMs = (idleMs: number) => Math.min(60_000, idleMs / 10);

export const sessionIdHash = (sessionId: string): string => createHash('sha256').update(sessionId).digest('hex');

/**
 * Signs in with an address and a password: a new session (a new id, never one the browser brought) or a refusal that
 * does not say which of the two was wrong. An address or an account with too many failures in the window is refused
 * before any password is checked.
 */
export async function signIn(
  ctx: PlatformContext,
  input: { email: string; password: string; address: string },
): Promise<{ sessionId: string; session: Session }> {
  const email = normalEmail(input.email);
  const now = ctx.wallClock.now().getTime();
  const addressKey = `address:${callerKey(input.address)}`;
  const accountKey = `email:${email}`;
  // Each attempt is counted before its password is checked, in one statement per key: attempts sent at once each see
  // their own count, so no number of them in flight gets past the limits. A success takes its attempt back.
  const byAddress = await countAttempt(ctx.db, addressKey, now, SIGN_IN_WINDOW_MS);
  const byAccount = await countAttempt(ctx.db, accountKey, now, SIGN_IN_WINDOW_MS);
  if (byAddress > SIGN_IN_FAILURES_PER_ADDRESS || byAccount > SIGN_IN_FAILURES_PER_ACCOUNT)
    throw new AppError(PEOPLE_ERRORS.signInLimited);
  const row = await findPersonByEmail(ctx.db, email);
  // An unknown address costs a hash too: the answer's time tells nothing of who has an account.
  const matches = await passwordMatches(input.password, row?.password_hash ?? NOBODY_HASH);
  if (!row || !matches) {
    if (row)
      await recordAction(
        ctx,
        row.merchant_id,
        { person: { id: row.id, email }, address: input.address },
        {
          action: 'sign_in.failed',
        },
      );
    throw new AppError(PEOPLE_ERRORS.signInRefused);
  }
  const person = toPerson(row);
  const sessionId = randomBytes(32).toString('base64url');
  const session: Session = {
    person,
    formToken: randomBytes(24).toString('base64url'),
    idHash: sessionIdHash(sessionId),
  };
  await inTransaction(ctx, async (tx) => {
    await clearFailures(tx.db, accountKey);
    await uncountAttempt(tx.db, addressKey);
    await insertSession(tx.db, {
      id_hash: session.idHash,
      person_id: person.id,
      form_token: session.formToken,
      address: input.address,
      created_at: now,
      last_seen_at: now,
    });
    await recordAction(tx, person.merchantId, actingOf(refOf(session), input.address), { action: 'signed_in' });
  });
  return { sessionId, session };
}

/** The session a cookie's id names, while it is neither idle past the configured time nor older than 12 hours. */
export async function sessionOf(ctx: PlatformContext, sessionId: string): Promise<Session | undefined> {
  const idHash = sessionIdHash(sessionId);
  const found = await findSession(ctx.db, idHash);
  if (!found) return undefined;
  const now = ctx.wallClock.now().getTime();
  const idleMs = ctx.config.dashboardIdleMinutes * 60_000;
  if (found.session.last_seen_at + idleMs <= now || found.session.created_at + SESSION_MAX_MS <= now) {
    await deleteSession(ctx.db, idHash);
    return undefined;
  }
  if (now - found.session.last_seen_at >= touchAfterMs(idleMs)) await touchSession(ctx.db, idHash, now);
  return { person: toPerson(found.person), formToken: found.session.form_token, idHash };
}

/** Which session to end, and whose: what a signed-in request knows of its session. */
export interface SessionRef {
  idHash: string;
  personId: string;
  email: string;
  merchantId: string;
}

export async function signOut(ctx: PlatformContext, session: SessionRef, address: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await deleteSession(tx.db, session.idHash);
    await recordAction(tx, session.merchantId, actingOf(session, address), { action: 'signed_out' });
  });
}

/** Ends every session of the person, on every browser: the one asking too. */
export async function signOutEverywhere(ctx: PlatformContext, session: SessionRef, address: string): Promise<number> {
  return inTransaction(ctx, async (tx) => {
    const ended = await deleteSessionsOf(tx.db, session.personId);
    await recordAction(tx, session.merchantId, actingOf(session, address), {
      action: 'signed_out_everywhere',
      subject: `${ended} session${ended === 1 ? '' : 's'}`,
    });
    return ended;
  });
}

export function actingOf(session: { personId: string; email: string }, address: string): Acting {
  return { person: { id: session.personId, email: session.email }, address };
}

export function refOf(session: Session): SessionRef {
  return {
    idHash: session.idHash,
    personId: session.person.id,
    email: session.person.email,
    merchantId: session.person.merchantId,
  };
}

/** Forgets sessions idle past the configured time and failed sign-ins whose window has passed (platform upkeep). */
export async function purgeEndedSessions(ctx: PlatformContext): Promise<void> {
  const now = ctx.wallClock.now().getTime();
  await deleteIdleSessions(ctx.db, now - ctx.config.dashboardIdleMinutes * 60_000);
  await deleteOldFailures(ctx.db, now - SIGN_IN_WINDOW_MS);
}
