import { createHash } from 'node:crypto';
import { type Context, inTransaction, type PlatformContext } from '../context/context.js';
import type { Config } from '../platform/config.js';
import { findHostedLink, type HostedLinkRow, insertHostedLink, purgeHostedLinks } from './store.js';

/**
 * A kind of hosted link, declared by the capability whose page it opens (an order's payment page, a customer's
 * card-binding page): where its pages live, how long a link lasts, and how the pages name it to a person.
 */
export interface LinkKind {
  /** Stored with each link; a token of another kind opens nothing. */
  readonly name: string;
  /** The pages' path under the public base URL: `/pay` gives `/pay/<token>`. */
  readonly path: string;
  ttlMs(config: Config): number;
  /** How a page names the link to a person ("payment link"), and the heading of its pages ("Payment"). */
  readonly label: string;
  readonly heading: string;
}

/** 128 random bits, base64url: 22 characters (the links' tokens, and the sandbox acquirer's payer pages'). */
export const isPageToken = (text: string) => /^[A-Za-z0-9_-]{22}$/.test(text);

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** The address of a link's page, under the configured public base URL (never the request's Host). */
export function linkUrl(config: Pick<Config, 'publicBaseUrl'>, kind: LinkKind, token: string): string {
  return `${config.publicBaseUrl}${kind.path}/${token}`;
}

/**
 * A new link to `subjectId`'s page, usable until its wall-clock expiry (given back as business time). Only the token's
 * hash is kept.
 */
export async function issueLink(
  ctx: Context,
  kind: LinkKind,
  subjectId: string,
): Promise<{ url: string; expiresAt: number }> {
  // In a transaction of its own when called outside one (a read that gives links): a seeded draw is saved with what
  // it made.
  return inTransaction(ctx, async (tx) => {
    const token = tx.ids.bytes(16).toString('base64url');
    const now = tx.wallClock.now().getTime();
    await insertHostedLink(tx.db, {
      token_hash: hashOf(token),
      kind: kind.name,
      merchant_id: tx.merchant.id,
      subject_id: subjectId,
      created_at: now,
      expires_at: now + kind.ttlMs(tx.config),
    });
    // Kept in wall time (a link's life is security's), told on the merchant's clock like every time of a reply: the
    // same instant for a running clock, and for one standing still (a deterministic run) the same reading every run.
    return { url: linkUrl(tx.config, kind, token), expiresAt: tx.clock.now().getTime() + kind.ttlMs(tx.config) };
  });
}

export type OpenedLink =
  | { state: 'open'; link: HostedLinkRow; token: string }
  | { state: 'expired'; link: HostedLinkRow }
  | { state: 'unknown' };

/** What a token names: an open link, an expired one (kept a while, so the person is told so), or nothing. */
export async function openLink(platform: PlatformContext, kind: LinkKind, token: string): Promise<OpenedLink> {
  if (!isPageToken(token)) return { state: 'unknown' };
  const link = await findHostedLink(platform.db, hashOf(token));
  if (!link || link.kind !== kind.name) return { state: 'unknown' };
  if (link.expires_at <= platform.wallClock.now().getTime()) return { state: 'expired', link };
  return { state: 'open', link, token };
}

/** How long expired links are kept so that a person following one is told it expired rather than unknown. */
export const EXPIRED_LINKS_KEPT_MS = 30 * 24 * 60 * 60_000;

/** Forgets links long expired (the platform's upkeep). */
export async function purgeExpiredLinks(platform: PlatformContext): Promise<void> {
  await purgeHostedLinks(platform.db, platform.wallClock.now().getTime() - EXPIRED_LINKS_KEPT_MS);
}
