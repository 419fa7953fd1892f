import Type from 'typebox';
import { clientCall } from '../../http/examples.js';
import { listParameters, pageReply } from '../../http/list-reply.js';
import { defineRoute } from '../../http/route.js';
import { LAB_ERRORS } from '../errors.js';
import { LAB_BASE, LAB_TAGS, labRoute } from '../lab-routes.js';
import { clearInbox, inboxUrl, listInbox, readTaps, showCapture, tapEndpoint, untapEndpoint } from './inbox.js';
import { presentCapture } from './present.js';
import { CaptureData, ClearedData, InboxData, InboxQuery, TapBody, TapsData } from './schemas.js';

const EXAMPLE_MERCHANT = '0193a8e2-0000-7000-8000-000000000001';
const EXAMPLE_INBOX = `https://pay.example.com/svc/sandbox/api/v1/inbox/${EXAMPLE_MERCHANT}`;
const EXAMPLE_CAPTURE = {
  id: '0193a8e2-5c1f-7000-8000-0000000000c1',
  event: { id: '0193a8e2-5c1e-7b7a-9f1e-2b8c4d6e7f80', type: 'order.paid' },
  objects: ['261122093015123456', 'ORDER-2041'],
  url: EXAMPLE_INBOX,
  headers: {
    'content-type': 'application/json',
    'x-action': 'order.paid',
    'x-event-id': '0193a8e2-5c1e-7b7a-9f1e-2b8c4d6e7f80',
  },
  body: '{"code":200,"message":"success","data":{"order":{"number":"261122093015123456"}}}',
  signature_verified: true,
  answer: { status: 200, body_excerpt: '{"received":true}', error: null, at: '2026-11-22T09:30:15.120Z' },
  fault: null,
  created_at: '2026-11-22T09:30:15.100Z',
};

export const INBOX_ROUTES = [
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/inbox`,
      operationId: 'listInbox',
      summary: "The merchant's capture inbox, newest first: what paygate sent to the inbox and to tapped endpoints.",
      description:
        'Filters: event_type, object, since, and the query language (filter[event.type][_eq]=order.paid, filter[answer.status][_gte]=500...).',
      tags: LAB_TAGS,
      querystring: InboxQuery,
      data: InboxData,
      errors: [],
      handler: async ({ ctx, query }) => {
        const { rows, total } = await listInbox(ctx, listParameters(query), query, query);
        return {
          url: inboxUrl(ctx.config, ctx.merchant.id),
          ...pageReply('captures', query, rows.map(presentCapture), total),
        };
      },
      example: {
        request: { query: { event_type: 'order.paid' } },
        reply: { url: EXAMPLE_INBOX, captures: [EXAMPLE_CAPTURE], offset: 0, limit: 20, total: 1 },
        client: clientCall('inbox.list', { event_type: 'order.paid' }),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/inbox/captures/:id`,
      operationId: 'getCapture',
      summary: 'One capture: the headers and body sent, the answer, and the fault injected.',
      tags: LAB_TAGS,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
      data: CaptureData,
      errors: [LAB_ERRORS.captureNotFound],
      handler: async ({ ctx, params }) => ({ capture: presentCapture(await showCapture(ctx, params.id)) }),
      example: {
        request: { params: { id: EXAMPLE_CAPTURE.id } },
        reply: { capture: EXAMPLE_CAPTURE },
        client: clientCall('inbox.show', EXAMPLE_CAPTURE.id),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'DELETE',
      url: `${LAB_BASE}/inbox`,
      operationId: 'clearInbox',
      summary: "Empties the merchant's capture inbox.",
      tags: LAB_TAGS,
      data: ClearedData,
      errors: [],
      handler: ({ ctx }) => clearInbox(ctx),
      example: { request: {}, reply: { cleared: 12 }, client: clientCall('inbox.clear') },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/inbox/taps`,
      operationId: 'listInboxTaps',
      summary: "The merchant's endpoints whose deliveries are captured too.",
      tags: LAB_TAGS,
      data: TapsData,
      errors: [],
      handler: ({ ctx }) => readTaps(ctx),
      example: {
        request: {},
        reply: { taps: ['https://shop.example.com/paygate/webhooks'] },
        client: clientCall('inbox.taps'),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/inbox/taps`,
      operationId: 'tapEndpoint',
      summary: "Captures what is sent to one of the merchant's own endpoints too (the deliveries still go there).",
      tags: LAB_TAGS,
      body: TapBody,
      data: TapsData,
      errors: [LAB_ERRORS.tapInvalid],
      handler: ({ ctx, body }) => tapEndpoint(ctx, body.endpoint),
      example: {
        request: { body: { endpoint: 'https://shop.example.com/paygate/webhooks' } },
        reply: { taps: ['https://shop.example.com/paygate/webhooks'] },
        client: clientCall('inbox.tap', 'https://shop.example.com/paygate/webhooks'),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/inbox/taps/remove`,
      operationId: 'untapEndpoint',
      summary: 'Stops capturing what is sent to an endpoint.',
      tags: LAB_TAGS,
      body: TapBody,
      data: TapsData,
      errors: [],
      handler: ({ ctx, body }) => untapEndpoint(ctx, body.endpoint),
      example: {
        request: { body: { endpoint: 'https://shop.example.com/paygate/webhooks' } },
        reply: { taps: [] },
        client: clientCall('inbox.untap', 'https://shop.example.com/paygate/webhooks'),
      },
    }),
  ),
];
