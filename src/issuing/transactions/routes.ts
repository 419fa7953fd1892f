import Type from 'typebox';
import { clientCall } from '../../http/examples.js';
import { defineRoute } from '../../http/route.js';
import { StringEnum } from '../../platform/schema.js';
import { DECISIONS, type EndpointRow, removeAuthorizationEndpoint, setAuthorizationEndpoint } from '../decisions.js';
import { EXAMPLE_AUTHORIZED, EXAMPLE_SETTLED } from './examples.js';
import { listCardTransactions } from './list.js';
import { presentCardTransaction } from './present.js';
import { CardTransactionsData, CardTransactionsQuery } from './schemas.js';

const BASE = '/svc/ts/api/v1/openapi';
const TAGS = ['issuing'];

const EndpointBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'An http or https URL: each simulated authorisation is sent to it, signed like a webhook.',
  }),
  default_decision: StringEnum(DECISIONS, {
    description: 'What applies when the endpoint does not answer within 2 seconds, or answers otherwise.',
  }),
});
const EndpointData = Type.Object({
  authorization_endpoint: Type.Object({
    url: Type.String(),
    default_decision: StringEnum(DECISIONS),
    updated_at: Type.String(),
  }),
});
const EXAMPLE_ENDPOINT = { url: 'https://shop.example/paygate/authorizations', default_decision: 'decline' as const };

export const TRANSACTION_ROUTES = [
  defineRoute({
    method: 'GET',
    url: `${BASE}/transactions`,
    operationId: 'listCardTransactions',
    summary:
      "Operation 4: the merchant's card transactions, newest first (Authorized, Declined, Settled); `card` narrows to one card.",
    description: 'offset 0 and limit 20 by default; limit at most 1000. Every field is text.',
    tags: TAGS,
    querystring: CardTransactionsQuery,
    data: CardTransactionsData,
    errors: [],
    handler: async ({ ctx, query }) => ({
      transactions: (await listCardTransactions(ctx, query)).map(presentCardTransaction),
    }),
    example: {
      request: { query: { card: EXAMPLE_AUTHORIZED.card } },
      reply: { transactions: [EXAMPLE_SETTLED] },
      client: clientCall('cards.transactions', { card: EXAMPLE_AUTHORIZED.card }),
    },
  }),
  defineRoute({
    method: 'PUT',
    url: `${BASE}/issuing/authorization_endpoint`,
    operationId: 'setAuthorizationEndpoint',
    summary:
      "Register the merchant's real-time authorisation endpoint: it decides each purchase the rules approve (docs/issuing.md).",
    tags: TAGS,
    body: EndpointBody,
    data: EndpointData,
    errors: [],
    handler: ({ ctx, body }) => setAuthorizationEndpoint(ctx, body),
    present: (row: EndpointRow) => ({
      authorization_endpoint: {
        url: row.url,
        default_decision: row.default_decision as 'approve' | 'decline',
        updated_at: new Date(row.updated_at).toISOString(),
      },
    }),
    example: {
      request: { body: EXAMPLE_ENDPOINT },
      reply: { authorization_endpoint: { ...EXAMPLE_ENDPOINT, updated_at: '2026-12-01T02:00:00.000Z' } },
      client: clientCall('cards.setAuthorizationEndpoint', EXAMPLE_ENDPOINT),
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: `${BASE}/issuing/authorization_endpoint`,
    operationId: 'removeAuthorizationEndpoint',
    summary: "Remove the real-time authorisation endpoint: the issuer's rules alone decide again.",
    tags: TAGS,
    data: Type.Object({ removed: Type.Boolean() }),
    errors: [],
    handler: ({ ctx }) => removeAuthorizationEndpoint(ctx),
    example: { request: {}, reply: { removed: true }, client: clientCall('cards.removeAuthorizationEndpoint') },
  }),
];
