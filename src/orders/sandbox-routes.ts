import Type from 'typebox';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { ORDER_ERRORS } from './errors.js';
import { challengedExample, EXAMPLE_ORDER } from './examples.js';
import { completePayerAction } from './payments.js';
import { presentOrder, presentTransaction } from './present.js';
import { OrderTransactionData } from './schemas.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];
const TransactionParams = Type.Object({ uuid: Type.String({ maxLength: 64 }) });

/** Sandbox mode only: the payer's part of a pending payment (3-D Secure, a wallet), answered by the API. */
export const ORDER_SANDBOX_ROUTES = [
  ...(['succeed', 'fail'] as const).map((outcome) =>
    defineRoute({
      method: 'POST',
      url: `${BASE}/transactions/:uuid/${outcome}`,
      operationId: outcome === 'succeed' ? 'succeedSandboxTransaction' : 'failSandboxTransaction',
      summary:
        outcome === 'succeed'
          ? 'Complete a pending transaction as the payer would (3-D Secure passed, or the wallet payment made).'
          : 'Fail a pending transaction as the payer would (3-D Secure failed, or the wallet payment refused).',
      tags: TAGS,
      params: TransactionParams,
      data: OrderTransactionData,
      errors: [
        ORDER_ERRORS.transactionNotFound,
        ORDER_ERRORS.transactionNotPending,
        RAIL_ERRORS.acquirerUnavailable,
        RAIL_ERRORS.acquirerNoAnswer,
      ],
      handler: ({ ctx, params }) => completePayerAction(ctx, params.uuid, outcome === 'succeed' ? 'passed' : 'failed'),
      present: ({ view, transaction }) => ({
        order: presentOrder(view),
        transaction: presentTransaction(transaction, view.transactions, view.order.currency_exponent),
      }),
      example: {
        request: { params: { uuid: EXAMPLE_ORDER.saleUuid } },
        reply: challengedExample(outcome),
        client: clientCall(outcome === 'succeed' ? 'sandbox.succeed' : 'sandbox.fail', EXAMPLE_ORDER.saleUuid),
      },
    }),
  ),
];
