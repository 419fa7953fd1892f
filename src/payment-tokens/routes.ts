import { CUSTOMER_ERRORS, EXAMPLE_CUSTOMER_UUID, EXAMPLE_TOKEN, exampleToken } from '../customers/index.js';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { bindPaymentToken } from './bind.js';
import { TOKEN_ERRORS } from './errors.js';
import { presentToken } from './present.js';
import {
  BindingLinkData,
  BindTokenBody,
  CheckTokenBody,
  CustomerPathParams,
  DeleteTokenBody,
  TokenData,
  TokenListData,
} from './schemas.js';
import type { TokenRow } from './store.js';
import { bindingLink, checkToken, deleteToken, listTokens, type TokenView } from './tokens.js';

const BASE = '/svc/payment/api/v1/openapi/customers';
const TAGS = ['payment tokens'];
const RAIL_REFUSALS = [RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer];
const OF_CUSTOMER = { uuid: EXAMPLE_CUSTOMER_UUID };
const CARD = {
  number: '4000000000003220',
  exp_month: '12',
  exp_year: '2030',
  cvv: '123',
  holder_name: 'Chan Tai Man',
  '3ds': {
    success_return_url: 'https://shop.example.com/cards/added',
    fail_return_url: 'https://shop.example.com/cards/failed',
  },
};

const tokenData = ({ row, defaultTokenId }: TokenView) => ({ payment_token: presentToken(row, defaultTokenId) });

export const TOKEN_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/:uuid/payment_tokens`,
    operationId: 'bindPaymentToken',
    summary: 'Bind a card to the customer as a payment token (verified by a voided authorisation, with 3-D Secure).',
    description:
      'The token is pending with verify_url (the 3-D Secure page) until the cardholder passes or fails; ' +
      'a frictionless card succeeds at once, a refused card fails with error_code and error_msg (docs/payment-tokens.md).',
    tags: TAGS,
    params: CustomerPathParams,
    body: BindTokenBody,
    data: TokenData,
    errors: [
      CUSTOMER_ERRORS.customerNotFound,
      PLATFORM_ERRORS.currencyInvalid,
      TOKEN_ERRORS.paymentTokenNotFound,
      ...RAIL_REFUSALS,
    ],
    handler: ({ ctx, params, body }) => bindPaymentToken(ctx, params.uuid, body),
    // A token just bound is nobody's default yet.
    present: (row: TokenRow) => tokenData({ row, defaultTokenId: null }),
    example: {
      request: { params: OF_CUSTOMER, body: { card: CARD } },
      reply: { payment_token: exampleToken('pending') },
      client: clientCall('customers.bindCard', EXAMPLE_CUSTOMER_UUID, CARD),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/:uuid/payment_tokens/check`,
    operationId: 'checkPaymentToken',
    summary: "Read a payment token's state (operation 8); the path may name the customer or the literal `uuid`.",
    tags: TAGS,
    params: CustomerPathParams,
    body: CheckTokenBody,
    data: TokenData,
    errors: [CUSTOMER_ERRORS.customerNotFound, TOKEN_ERRORS.paymentTokenNotFound],
    handler: ({ ctx, params, body }) => checkToken(ctx, params.uuid, body.payment_token),
    present: tokenData,
    example: {
      request: {
        params: OF_CUSTOMER,
        body: { payment_token: { token: EXAMPLE_TOKEN.token, verify_uuid: EXAMPLE_TOKEN.verifyUuid } },
      },
      reply: { payment_token: exampleToken('success') },
      client: clientCall('customers.checkToken', EXAMPLE_TOKEN.token, {
        customerUuid: EXAMPLE_CUSTOMER_UUID,
        verifyUuid: EXAMPLE_TOKEN.verifyUuid,
      }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:uuid/payment_tokens`,
    operationId: 'listPaymentTokens',
    summary: "List the customer's payment tokens (deleted ones are gone), oldest first.",
    tags: TAGS,
    params: CustomerPathParams,
    data: TokenListData,
    errors: [CUSTOMER_ERRORS.customerNotFound],
    handler: ({ ctx, params }) => listTokens(ctx, params.uuid),
    present: (views: TokenView[]) => ({ payment_tokens: views.map((view) => tokenData(view).payment_token) }),
    example: {
      request: { params: OF_CUSTOMER },
      reply: { payment_tokens: [exampleToken('success', true)] },
      client: clientCall('customers.tokens', EXAMPLE_CUSTOMER_UUID),
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: `${BASE}/:uuid/payment_tokens`,
    operationId: 'deletePaymentToken',
    summary: 'Delete one of the customer\'s tokens: body {"payment_token": {"token": ...}} or {"token": ...}.',
    description:
      "Deleting the default token clears the customer's default. A deleted token can no longer be charged or checked.",
    tags: TAGS,
    params: CustomerPathParams,
    body: DeleteTokenBody,
    data: TokenData,
    errors: [CUSTOMER_ERRORS.customerNotFound, TOKEN_ERRORS.paymentTokenNotFound],
    handler: ({ ctx, params, body }) => {
      const token = body.payment_token?.token ?? body.token;
      if (token === undefined)
        throw new AppError(
          PLATFORM_ERRORS.validationFailed,
          'Name the token to delete: payment_token.token (or token).',
        );
      return deleteToken(ctx, params.uuid, token);
    },
    present: tokenData,
    example: {
      request: { params: OF_CUSTOMER, body: { payment_token: { token: EXAMPLE_TOKEN.token } } },
      // A deleted token is nobody's default any more.
      reply: { payment_token: exampleToken('success') },
      client: clientCall('customers.deleteToken', EXAMPLE_CUSTOMER_UUID, EXAMPLE_TOKEN.token),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/:uuid/wallet_link`,
    operationId: 'createWalletLink',
    summary: 'A link to a hosted page where the customer binds a card themselves ("wallet link").',
    description: 'The page binds cards as bindPaymentToken does, 3-D Secure included; the link expires (wall clock).',
    tags: TAGS,
    params: CustomerPathParams,
    data: BindingLinkData,
    errors: [CUSTOMER_ERRORS.customerNotFound],
    handler: ({ ctx, params }) => bindingLink(ctx, params.uuid),
    example: {
      request: { params: OF_CUSTOMER },
      reply: {
        wallet_link: 'https://paygate.example.com/wallet/zWqNc2sq8896hEFoj20NNg',
        expires_at: '2026-11-22T08:00:00.000Z',
      },
      client: clientCall('customers.walletLink', EXAMPLE_CUSTOMER_UUID),
    },
  }),
];
