import { EVENT_ERRORS } from '../events/errors.js';
import { redeliverEvent } from '../events/history.js';
import { presentEvent } from '../events/present.js';
import { EventData, RedeliverBody } from '../events/schemas.js';
import { defineRoute } from '../http/route.js';

const BASE = '/svc/payment/api/v1/openapi';
const TAGS = ['webhooks'];

export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/webhooks/redeliver`,
    operationId: 'redeliverEvent',
    summary: 'Send an event again, now, to each of its destinations, with a fresh set of retries.',
    description: 'The body is the one rendered when the event happened. A delivery being attempted right now is left to finish.',
    tags: TAGS,
    body: RedeliverBody,
    data: EventData,
    errors: [EVENT_ERRORS.eventNotFound],
    handler: ({ ctx, body }) => redeliverEvent(ctx, ctx.merchant.id, body.event_id),
    present: (history) => ({ event: presentEvent(history) }),
  }),
];
