import { createPublicKey, type KeyObject } from 'node:crypto';
import { ALGORITHM, parseRequestTime, signingMessage, verifyMessage } from './signing.js';

export interface VerifiedWebhook {
  /** X-Event-ID: the same for every delivery of one event; deduplicate on it. */
  eventId: string;
  /** X-Action: the event's name, such as `order.paid`. */
  action: string;
  appId: string;
  /** The credential time of this delivery attempt. */
  sentAt: Date;
  /** The parsed body: `{code, message, data: {order}}` for order events. */
  body: unknown;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/**
 * Checks that a webhook came from paygate: the Wonder-RSA-SHA256 signature over POST, the path and query of the
 * URL it was sent to, and the exact body bytes, made with the app's webhook key (whose public half paygate gave
 * out when the app was created). Pass the body as received, before any parsing. Throws when it does not verify.
 *
 * `maxAgeSeconds` refuses deliveries signed longer ago than that (the platform's own clients check no age;
 * receivers that can should, and deduplicate on the event id either way).
 */
export function verifyWebhook(
  headers: Headers,
  rawBody: string | Uint8Array,
  webhookPublicKey: string | KeyObject,
  url: string,
  options: { maxAgeSeconds?: number; now?: Date } = {},
): VerifiedWebhook {
  const header = (name: string) => {
    const value =
      'get' in headers && typeof headers.get === 'function'
        ? headers.get(name)
        : (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const credential = header('credential');
  const nonce = header('nonce');
  const signature = header('signature');
  if (!credential || !nonce || !signature)
    throw new WebhookVerificationError('missing Credential, Nonce or Signature header');
  const [appId, requestTime, algorithm, extra] = credential.split('/');
  const sentAt = requestTime ? parseRequestTime(requestTime) : undefined;
  if (!appId || !sentAt || algorithm !== ALGORITHM || extra !== undefined)
    throw new WebhookVerificationError('malformed Credential');

  const { pathname, search } = new URL(url);
  const message = signingMessage({
    requestTime: requestTime!,
    nonce,
    method: 'POST',
    target: `${pathname}${search}`,
    body: rawBody,
  });
  const key = typeof webhookPublicKey === 'string' ? createPublicKey(webhookPublicKey) : webhookPublicKey;
  if (!verifyMessage(message, signature, key)) throw new WebhookVerificationError('signature does not verify');

  if (options.maxAgeSeconds !== undefined) {
    const age = ((options.now ?? new Date()).getTime() - sentAt.getTime()) / 1000;
    if (Math.abs(age) > options.maxAgeSeconds) throw new WebhookVerificationError(`signed ${Math.round(age)} s ago`);
  }
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return {
    eventId: header('x-event-id') ?? '',
    action: header('x-action') ?? '',
    appId,
    sentAt,
    body: JSON.parse(text) as unknown,
  };
}
