import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { PLATFORM_ERRORS } from '../platform/errors.js';
import { topUp } from './balances.js';
import { EXAMPLE_BALANCE, EXAMPLE_TOP_UP } from './examples.js';
import { presentBalance, presentTopUp } from './present.js';
import { TopUpBody, TopUpData } from './schemas.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];

/** Sandbox mode only: money arriving from the merchant's bank, by hand. */
export const LEDGER_SANDBOX_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/balance/top_up`,
    operationId: 'topUpSandboxBalance',
    summary: "Fund the merchant's available balance, as money arriving from its bank would (docs/ledger.md).",
    tags: TAGS,
    body: TopUpBody,
    data: TopUpData,
    errors: [PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, body }) => topUp(ctx, body),
    present: ({ topUp: record, balance }) => ({ top_up: presentTopUp(record), balance: presentBalance(balance) }),
    example: {
      request: { body: EXAMPLE_TOP_UP },
      reply: {
        top_up: {
          id: '019ad0a0-1b2c-7000-8d3e-4f5a6b7c8d9e',
          ...EXAMPLE_TOP_UP,
          created_at: '2026-12-01T02:00:00.000Z',
        },
        balance: { ...EXAMPLE_BALANCE, available: '2172.54' },
      },
      client: clientCall('sandbox.topUp', EXAMPLE_TOP_UP),
    },
  }),
];
