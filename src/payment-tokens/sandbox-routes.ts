import Type from 'typebox';
import { EXAMPLE_TOKEN, exampleToken } from '../customers/index.js';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { completeBinding } from './bind.js';
import { TOKEN_ERRORS } from './errors.js';
import { presentToken } from './present.js';
import { TokenData } from './schemas.js';
import { requireToken, type TokenRow } from './tokens.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];

/** Sandbox mode only: the cardholder's part of a pending binding (3-D Secure), answered by the API. */
export const TOKEN_SANDBOX_ROUTES = [
  ...(['succeed', 'fail'] as const).map((outcome) =>
    defineRoute({
      method: 'POST',
      url: `${BASE}/payment_tokens/:token/${outcome}`,
      operationId: outcome === 'succeed' ? 'succeedSandboxPaymentToken' : 'failSandboxPaymentToken',
      summary:
        outcome === 'succeed'
          ? 'Settle a pending binding as the cardholder passing 3-D Secure would: the token succeeds.'
          : 'Settle a pending binding as the cardholder failing 3-D Secure would: the token fails.',
      tags: TAGS,
      params: Type.Object({ token: Type.String({ maxLength: 128 }) }),
      data: TokenData,
      errors: [
        TOKEN_ERRORS.paymentTokenNotFound,
        TOKEN_ERRORS.paymentTokenNotPending,
        RAIL_ERRORS.acquirerUnavailable,
        RAIL_ERRORS.acquirerNoAnswer,
      ],
      handler: async ({ ctx, params }) => {
        const token = await requireToken(ctx, params.token);
        return completeBinding(ctx, token.id, outcome === 'succeed' ? 'passed' : 'failed');
      },
      present: (row: TokenRow) => ({ payment_token: presentToken(row, null) }),
      example: {
        request: { params: { token: EXAMPLE_TOKEN.token } },
        reply: { payment_token: exampleToken(outcome === 'succeed' ? 'success' : 'failed') },
        client: clientCall('sandbox.settleToken', EXAMPLE_TOKEN.token, outcome),
      },
    }),
  ),
];
