/**
 * A kind of event a capability sends (`order.paid`, `payment_token.deleted`): its name, what it means, and how
 * its subject renders into the webhook body. The outbox renders an event when it happens, in the transaction of
 * the change: receivers get the subject as it was then, whenever they are sent it.
 */
export interface EventType<S> {
  /** Sent as X-Action. */
  readonly action: string;
  /** One line for docs/webhooks.md. */
  readonly description: string;
  render(subject: S): RenderedEvent;
}

export interface RenderedEvent {
  /** The body's `data`. */
  data: unknown;
  /** What the event is about (an order), for that subject's event history; null when it has none. */
  subjectId: string | null;
  /** A URL the subject names to be told of its events (an order's callback_url), besides the apps' endpoints. */
  notifyUrl: string | null;
  /** The app that made the subject: its key signs the delivery to `notifyUrl`. */
  appId: string | null;
}

/** A capability's events about one kind of subject, by action, all rendered the same way. */
export function defineEventTypes<S, const A extends string>(
  render: (subject: S) => RenderedEvent,
  descriptions: Record<A, string>,
): { readonly [K in A]: EventType<S> & { readonly action: K } } {
  const entries = Object.entries<string>(descriptions).map(([action, description]) => [
    action,
    { action, description, render },
  ]);
  return Object.freeze(Object.fromEntries(entries)) as { readonly [K in A]: EventType<S> & { readonly action: K } };
}
