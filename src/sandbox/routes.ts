import Type from 'typebox';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { advanceClock, MAX_ADVANCE_SECONDS, readClock } from './clock.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];

const Clock = Type.Object({
  now: Type.String({ description: 'Business time now, UTC.' }),
  business_date: Type.String({ description: "The local date in the merchant's time zone." }),
  timezone: Type.String(),
  offset_seconds: Type.Integer({
    description:
      'How far business time is ahead of wall time; 0 for a clock that stands still, which follows no wall time.',
  }),
  stands_still: Type.Boolean({
    description:
      'Whether the clock stands still until moved (a deterministic merchant, docs/lab.md) or runs with wall time.',
  }),
});

/**
 * The sandbox's own routes: the merchant's business clock. Sandbox mode only (absent in live mode), signed, and scoped
 * to the caller's merchant like everything else; each capability brings its own simulations (`sandboxRoutes`).
 */
export const CLOCK_ROUTES = [
  defineRoute({
    method: 'GET',
    url: `${BASE}/clock`,
    operationId: 'readSandboxClock',
    summary: "Read the merchant's business clock.",
    tags: TAGS,
    data: Clock,
    errors: [],
    handler: ({ ctx }) => readClock(ctx),
    example: {
      request: {},
      reply: {
        now: '2026-11-21T08:00:00.000Z',
        business_date: '2026-11-21',
        timezone: 'Asia/Hong_Kong',
        offset_seconds: 0,
        stands_still: false,
      },
      client: clientCall('sandbox.clock'),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/clock`,
    operationId: 'advanceSandboxClock',
    summary: "Move the merchant's business clock forward; returns when everything due on the way has run.",
    description:
      'Settlement, authorisation expiry and due-date voids (and later billing, payouts, webhook retries) ' +
      "run in time order as the clock passes their times. Only this merchant's clock moves.",
    tags: TAGS,
    body: Type.Object({ advance_seconds: Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_SECONDS }) }),
    data: Clock,
    errors: [],
    handler: ({ ctx, body }) => advanceClock(ctx, body.advance_seconds),
    example: {
      request: { body: { advance_seconds: 86400 } },
      reply: {
        now: '2026-11-22T08:00:00.000Z',
        business_date: '2026-11-22',
        timezone: 'Asia/Hong_Kong',
        offset_seconds: 86400,
        stands_still: false,
      },
      client: clientCall('sandbox.advanceClock', 86400),
    },
  }),
];
