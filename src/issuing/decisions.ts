import { type Context, inTransaction } from '../context/context.js';
import { createPoster, type Poster } from '../events/post.js';
import { signedAsApp } from '../events/signing.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { formatAmount, readCurrency, readMoney } from '../platform/money/money.js';
import { checkMerchantUrl } from '../platform/urls.js';
import { VERSION } from '../platform/version.js';
import type { CardRow } from './store.js';

/** How long a merchant's endpoint has to decide before its default decision applies. */
export const DECISION_WINDOW_MS = 2_000;
export const DECISIONS = ['approve', 'decline'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface EndpointRow {
  merchant_id: string;
  url: string;
  default_decision: string;
  app_id: string;
  updated_at: number;
}

/** What the endpoint (or, failing it, its default) decided, and how it came to be. */
export interface EndpointDecision {
  decision: Decision;
  /** A smaller amount approves part (minor units of the transaction currency). */
  amount?: number;
  by: 'endpoint' | 'endpoint_partial' | 'endpoint_timeout' | 'endpoint_invalid';
}

/**
 * Registers (or replaces) the merchant's real-time authorisation endpoint; its default decision applies when it is
 * silent.
 */
export async function setAuthorizationEndpoint(
  ctx: Context,
  input: { url: string; default_decision: Decision },
): Promise<EndpointRow> {
  checkMerchantUrl(input.url, 'url', ctx.config.mode);
  if (ctx.actor.kind !== 'app')
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      'An authorisation endpoint is registered by an app: its webhook key signs the requests.',
    );
  const row = {
    merchant_id: ctx.merchant.id,
    url: input.url,
    default_decision: input.default_decision,
    app_id: ctx.actor.appId,
    updated_at: ctx.clock.now().getTime(),
  };
  return inTransaction(
    ctx,
    async (tx) => {
      await tx.db
        .insertInto('issuing_authorization_endpoints')
        .values(row)
        .onConflict((oc) =>
          oc.column('merchant_id').doUpdateSet({
            url: row.url,
            default_decision: row.default_decision,
            app_id: row.app_id,
            updated_at: row.updated_at,
          }),
        )
        .execute();
      return row;
    },
    { completesRequest: true },
  );
}

/** Removes the endpoint: the issuer's rules alone decide again. Answers whether there was one. */
export async function removeAuthorizationEndpoint(ctx: Context): Promise<{ removed: boolean }> {
  return inTransaction(
    ctx,
    async (tx) => {
      const gone = await tx.db
        .deleteFrom('issuing_authorization_endpoints')
        .where('merchant_id', '=', tx.merchant.id)
        .executeTakeFirst();
      return { removed: Number(gone.numDeletedRows) > 0 };
    },
    { completesRequest: true },
  );
}

/** The merchant's endpoint, if it has one. */
export async function authorizationEndpointOf(ctx: Context): Promise<EndpointRow | undefined> {
  return ctx.db
    .selectFrom('issuing_authorization_endpoints')
    .selectAll()
    .where('merchant_id', '=', ctx.merchant.id)
    .executeTakeFirst();
}

let poster: Poster | undefined;

/**
 * Asks the merchant's endpoint to decide a purchase the rules approved: a signed POST (as a webhook
 * is signed, by the app that registered it) carrying the authorisation; the answer `{"decision": "approve" |
 * "decline", "amount"?}` within DECISION_WINDOW_MS decides, a smaller amount approving part. No answer in time, an
 * error status or an answer that is not one of these: the endpoint's default decision.
 */
export async function decideAtEndpoint(
  ctx: Context,
  endpoint: EndpointRow,
  card: CardRow,
  purchase: { amount: number; currency: string; merchant: Record<string, string> },
): Promise<EndpointDecision> {
  const currency = readCurrency(purchase.currency, 'currency');
  const body = JSON.stringify({
    authorization: {
      card_id: card.id,
      user_id: card.user_id,
      amount: formatAmount(purchase.amount, currency.exponent),
      currency: currency.code,
      merchant: purchase.merchant,
      created_at: ctx.clock.now().toISOString(),
    },
  });
  const fallback = (by: EndpointDecision['by']): EndpointDecision => ({
    decision: endpoint.default_decision as Decision,
    by,
  });
  poster ??= createPoster({ timeoutMs: DECISION_WINDOW_MS, mode: ctx.config.mode });
  const signed = await signedAsApp(ctx, { appId: endpoint.app_id, url: endpoint.url, body, at: ctx.wallClock.now() });
  const reply = await poster.post(
    endpoint.url,
    {
      'content-type': 'application/json',
      'user-agent': `paygate-issuing/${VERSION}`,
      ...signed,
      'x-action': 'issuing_authorization.request',
    },
    body,
    { readBody: true },
  );
  if (reply.status === undefined || reply.body === undefined) return fallback('endpoint_timeout');
  if (reply.status < 200 || reply.status > 299) return fallback('endpoint_invalid');
  let answer: { decision?: unknown; amount?: unknown };
  try {
    answer = JSON.parse(reply.body) as typeof answer;
  } catch {
    return fallback('endpoint_invalid');
  }
  if (answer?.decision === 'decline') return { decision: 'decline', by: 'endpoint' };
  if (answer?.decision !== 'approve') return fallback('endpoint_invalid');
  if (answer.amount === undefined || answer.amount === null) return { decision: 'approve', by: 'endpoint' };
  if (typeof answer.amount !== 'string' && typeof answer.amount !== 'number') return fallback('endpoint_invalid');
  try {
    const amount = readMoney(answer.amount, currency, 'amount').minor;
    if (amount > purchase.amount) return fallback('endpoint_invalid');
    return { decision: 'approve', amount, by: amount < purchase.amount ? 'endpoint_partial' : 'endpoint' };
  } catch {
    return fallback('endpoint_invalid');
  }
}
