import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { PAYOUT_ERRORS } from './errors.js';
import { EXAMPLE_PAYOUT, EXAMPLE_PAYOUT_ID } from './examples.js';
import { lookUpPayout } from './payouts.js';
import { presentPayout } from './present.js';
import { advancePayout } from './running.js';
import { PayoutData, PayoutParams } from './schemas.js';

const BASE = '/svc/sandbox/api/v1/payout_requests';

/** The sandbox bank, pushed by hand (docs/payouts.md). */
export const PAYOUT_SANDBOX_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/:id/advance`,
    operationId: 'advanceSandboxPayout',
    summary:
      "Move a payout to its next state now, without moving the clock: an approved payout runs; a transfer takes the bank's next report.",
    tags: ['sandbox'],
    params: PayoutParams,
    data: PayoutData,
    errors: [PAYOUT_ERRORS.payoutNotFound, PAYOUT_ERRORS.payoutNotAdvanceable],
    handler: async ({ ctx, params }) => advancePayout(ctx, await lookUpPayout(ctx, params.id, false)),
    present: (row) => ({ payout_request: presentPayout(row) }),
    example: {
      request: { params: { id: EXAMPLE_PAYOUT_ID } },
      reply: {
        payout_request: {
          ...EXAMPLE_PAYOUT,
          transfer_status: 'Processing Transfer',
          updated_at: '2026-12-01T02:05:01.000Z',
        },
      },
      client: clientCall('sandbox.advancePayout', EXAMPLE_PAYOUT_ID),
    },
  }),
];
