import { defineRoute } from '../http/route.js';
import { CheckOrderBody } from '../orders/schemas.js';
import { orderEvents, redeliverEvent } from './history.js';
import { presentEvent } from './present.js';
import { EventData, EventListData, RedeliverBody } from './schemas.js';
import { ORDER_ERRORS } from '../orders/errors.js';
import { WEBHOOK_ERRORS } from './errors.js';

const BASE = '/svc/payment/api/v1/openapi';
const TAGS = ['webhooks'];

export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/events`,
    operationId: 'listOrderEvents',
    summary: "An order's webhook events, oldest first, with every delivery attempt.",
    description: 'Name the order as for orders/check: order{number | reference_number}, or transaction{uuid}.',
    tags: TAGS,
    body: CheckOrderBody,
    data: EventListData,
    errors: [ORDER_ERRORS.orderNotFound, ORDER_ERRORS.transactionNotFound, ORDER_ERRORS.orderMismatch, ORDER_ERRORS.orderReferenceMissing],
    handler: ({ ctx, body }) => orderEvents(ctx, body),
    present: (events) => ({ events: events.map(presentEvent) }),
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/webhooks/redeliver`,
    operationId: 'redeliverEvent',
    summary: 'Send an event again, now, to each of its destinations, with a fresh set of retries.',
    description: 'The body is the one rendered when the event happened. A delivery being attempted right now is left to finish.',
    tags: TAGS,
    body: RedeliverBody,
    data: EventData,
    errors: [WEBHOOK_ERRORS.eventNotFound],
    handler: ({ ctx, body }) => redeliverEvent(ctx, body.event_id, ctx.merchant.id),
    present: (history) => ({ event: presentEvent(history) }),
  }),
];
