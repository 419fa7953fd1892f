import Type from 'typebox';
import { clientCall } from '../../http/examples.js';
import { defineRoute, type FileReply } from '../../http/route.js';
import { AppError } from '../../platform/errors.js';
import { LAB_ERRORS } from '../errors.js';
import { LAB_BASE, LAB_TAGS, labRoute } from '../lab-routes.js';
import { streamEvents } from './stream.js';

const EXAMPLE_EVENT = {
  event_id: '0193a8e2-5c1e-7b7a-9f1e-2b8c4d6e7f80',
  type: 'order.paid',
  body: '{"code":200,"message":"success","data":{"order":{"number":"261122093015123456"}}}',
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

function timeOf(text: string): number {
  const at = RFC3339.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(at)) throw new AppError(LAB_ERRORS.streamInvalid, 'since must be a time in RFC 3339.');
  return at;
}

export const LISTEN_ROUTES = [
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/events/stream`,
      operationId: 'streamEvents',
      summary: "The merchant's events as they happen, as server-sent events (what `paygate listen` reads).",
      description:
        'Each event: `id` (the event id, to resume after with `after`), `event` (its type) and `data`: ' +
        '`{event_id, type, body, headers?}`, `body` the exact body a delivery carries; with `forward_to`, `headers` ' +
        "are a real delivery's to that URL, signed with the caller's app's webhook key. A comment every 15 s keeps " +
        'the connection open; the stream ends after `max_seconds` (a listener reconnects with `after`).',
      tags: LAB_TAGS,
      querystring: Type.Object({
        after: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Resume after this event.' })),
        since: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 40,
            description:
              'Without `after`, or when it names no event any more (a reset): start from this wall time (RFC 3339).',
          }),
        ),
        events: Type.Optional(
          Type.String({ minLength: 1, maxLength: 500, description: 'Event types or patterns, comma-separated.' }),
        ),
        forward_to: Type.Optional(
          Type.String({ minLength: 1, maxLength: 2048, description: 'Sign each event for this URL.' }),
        ),
        max_seconds: Type.Integer({ minimum: 1, maximum: 3600, default: 3600 }),
      }),
      download: { mediaType: 'text/event-stream', stream: true },
      data: Type.String({ description: 'Server-sent events.' }),
      errors: [LAB_ERRORS.streamInvalid, LAB_ERRORS.streamsBusy],
      handler: async ({ ctx, query }): Promise<FileReply> => ({
        body: await streamEvents(ctx, {
          after: query.after,
          since: query.since === undefined ? undefined : timeOf(query.since),
          events: query.events,
          forwardTo: query.forward_to,
          maxSeconds: query.max_seconds,
        }),
      }),
      example: {
        request: { query: { events: 'order.paid' } },
        reply: `id: ${EXAMPLE_EVENT.event_id}\nevent: order.paid\ndata: ${JSON.stringify(EXAMPLE_EVENT)}\n\n`,
        client: clientCall('events.open', { events: 'order.paid' }),
      },
    }),
  ),
];
