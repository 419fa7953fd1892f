import { EVENT_ERRORS } from '../events/errors.js';
import { redeliverEvent } from '../events/history.js';
import { presentEvent } from '../events/present.js';
import { EventData, RedeliverBody } from '../events/schemas.js';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { EXAMPLE_ORDER, exampleEvents } from '../orders/index.js';

const BASE = '/svc/payment/api/v1/openapi';
const TAGS = ['webhooks'];

export const WEBHOOK_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/webhooks/redeliver`,
    operationId: 'redeliverEvent',
    summary: 'Send an event again, now, to each of its destinations, with a fresh set of retries.',
    description:
      'The body is the one rendered when the event happened. A delivery being attempted right now is left to finish.',
    tags: TAGS,
    body: RedeliverBody,
    data: EventData,
    errors: [EVENT_ERRORS.eventNotFound],
    handler: ({ ctx, body }) => redeliverEvent(ctx, ctx.merchant.id, body.event_id),
    present: (history) => ({ event: presentEvent(history) }),
    example: {
      request: { body: { event_id: EXAMPLE_ORDER.eventId } },
      reply: { event: redelivered() },
      client: clientCall('webhooks.redeliver', EXAMPLE_ORDER.eventId),
    },
  }),
];

/** ORDER-1001's order.paid event, queued again: its delivery to notify_url is pending, due now, its history kept. */
function redelivered() {
  const event = exampleEvents()[1]!;
  return {
    ...event,
    deliveries: event.deliveries.map((delivery) => ({
      ...delivery,
      state: 'pending' as const,
      next_attempt_at: '2026-11-22T09:00:00.000Z',
    })),
  };
}
