import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { PLATFORM_ERRORS } from '../platform/errors.js';
import { incrementAuthorization, reverseAuthorization, settleAuthorization } from './clearing.js';
import { ISSUING_ERRORS } from './errors.js';
import { authorizePurchase, creditRefund, type NetworkOutcome, withdrawCash } from './network.js';
import {
  EXAMPLE_AUTHORIZATION_ID,
  EXAMPLE_AUTHORIZED,
  EXAMPLE_PURCHASE,
  EXAMPLE_SETTLED,
} from './transactions/examples.js';
import { presentCardTransaction } from './transactions/present.js';
import {
  AuthorizationParams,
  IncrementBody,
  ReverseBody,
  SettleBody,
  SimulatedSpendBody,
  SimulatedTransactionData,
} from './transactions/schemas.js';

const BASE = '/svc/sandbox/api/v1/issuing';
const TAGS = ['sandbox'];
const present = ({ row, declineReason }: NetworkOutcome) => ({
  transaction: presentCardTransaction(row),
  decline_reason: declineReason,
});
const OF_AUTHORIZATION = { id: EXAMPLE_AUTHORIZATION_ID };

/**
 * The card network simulator (docs/issuing.md): what a terminal, an acquirer and the network would send about a card.
 */
export const ISSUING_SANDBOX_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/authorizations`,
    operationId: 'simulateAuthorization',
    summary:
      'A purchase with a card, as the card network would send it: approved (the amount held) or declined, with the reason.',
    tags: TAGS,
    body: SimulatedSpendBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.cardNotFound, PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, body }) => authorizePurchase(ctx, body),
    present,
    example: {
      request: { body: EXAMPLE_PURCHASE },
      reply: { transaction: EXAMPLE_AUTHORIZED, decline_reason: null },
      client: clientCall('sandbox.authorize', EXAMPLE_PURCHASE),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/authorizations/:id/increment`,
    operationId: 'simulateIncrement',
    summary: 'Raise an open authorisation (an incremental authorisation); declined, it stays as it was.',
    tags: TAGS,
    params: AuthorizationParams,
    body: IncrementBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.authorizationNotFound, ISSUING_ERRORS.authorizationClosed],
    handler: ({ ctx, params, body }) => incrementAuthorization(ctx, params.id, body),
    present,
    example: {
      request: { params: OF_AUTHORIZATION, body: { amount: '20.00' } },
      reply: {
        transaction: {
          ...EXAMPLE_AUTHORIZED,
          transaction_amount: '-120.00',
          local_amount: '936.00',
          calculated_fee: '14.04',
        },
        decline_reason: null,
      },
      client: clientCall('sandbox.increment', EXAMPLE_AUTHORIZATION_ID, '20.00'),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/authorizations/:id/reverse`,
    operationId: 'simulateReversal',
    summary:
      'Reverse part of an open authorisation, or all of it when no amount is given: that much of the hold and the limits is freed.',
    tags: TAGS,
    params: AuthorizationParams,
    body: ReverseBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.authorizationNotFound, ISSUING_ERRORS.authorizationClosed],
    handler: ({ ctx, params, body }) => reverseAuthorization(ctx, params.id, body),
    present,
    example: {
      request: { params: OF_AUTHORIZATION, body: { amount: '40.00' } },
      reply: {
        transaction: {
          ...EXAMPLE_AUTHORIZED,
          transaction_amount: '-60.00',
          local_amount: '468.00',
          calculated_fee: '7.02',
        },
        decline_reason: null,
      },
      client: clientCall('sandbox.reverse', EXAMPLE_AUTHORIZATION_ID, '40.00'),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/authorizations/:id/settle`,
    operationId: 'simulateSettlement',
    summary:
      "Clear an open authorisation, for the authorised amount or another (partial or more-than-authorised), at the settlement's rate plus the fee.",
    tags: TAGS,
    params: AuthorizationParams,
    body: SettleBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.authorizationNotFound, ISSUING_ERRORS.authorizationClosed, PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, params, body }) => settleAuthorization(ctx, params.id, body),
    present,
    example: {
      request: { params: OF_AUTHORIZATION, body: { amount: '100.00', currency: 'USD' } },
      reply: { transaction: EXAMPLE_SETTLED, decline_reason: null },
      client: clientCall('sandbox.settle', EXAMPLE_AUTHORIZATION_ID, { amount: '100.00', currency: 'USD' }),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/refunds`,
    operationId: 'simulateCardRefund',
    summary: "A refund to a card from the card's merchant: credited at once, at the day's rate, with no fee.",
    tags: TAGS,
    body: SimulatedSpendBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.cardNotFound, PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, body }) => creditRefund(ctx, body),
    present,
    example: {
      request: { body: { ...EXAMPLE_PURCHASE, amount: '25.00' } },
      reply: {
        transaction: {
          ...EXAMPLE_SETTLED,
          type: 'Refund',
          transaction_amount: '25.00',
          local_amount: '195.00',
          calculated_fee: '0.00',
          final_local_amount: '195.00',
        },
        decline_reason: null,
      },
      client: clientCall('sandbox.refundToCard', { ...EXAMPLE_PURCHASE, amount: '25.00' }),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/withdrawals`,
    operationId: 'simulateWithdrawal',
    summary: "A cash withdrawal at an ATM: the purchase's rules, then paid out at once with its fee.",
    tags: TAGS,
    body: SimulatedSpendBody,
    data: SimulatedTransactionData,
    errors: [ISSUING_ERRORS.cardNotFound, PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, body }) => withdrawCash(ctx, body),
    present,
    example: {
      request: {
        body: { ...EXAMPLE_PURCHASE, merchant: { ...EXAMPLE_PURCHASE.merchant, name: 'ATM 0042', category: '6011' } },
      },
      reply: {
        transaction: {
          ...EXAMPLE_AUTHORIZED,
          type: 'Withdrawal',
          status: 'Settled',
          final_local_amount: '791.70',
          merchant_name: 'ATM 0042',
        },
        decline_reason: null,
      },
      client: clientCall('sandbox.withdraw', {
        ...EXAMPLE_PURCHASE,
        merchant: { ...EXAMPLE_PURCHASE.merchant, name: 'ATM 0042', category: '6011' },
      }),
    },
  }),
];
