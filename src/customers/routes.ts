import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { type CustomerView, createOrUpdateCustomer, editCustomer, readCustomer } from './customers.js';
import type { DefaultTokens } from './default-token.js';
import { CUSTOMER_ERRORS } from './errors.js';
import { EXAMPLE_CUSTOMER_UUID, EXAMPLE_PROFILE, EXAMPLE_TOKEN, exampleCustomer } from './examples.js';
import { presentCustomer } from './present.js';
import { CreateCustomerBody, CustomerData, CustomerParams, EditCustomerBody } from './schemas.js';

const BASE = '/svc/payment/api/v1/openapi/customers';
const NEW_CUSTOMER = { reference_number: 'CUSTOMER-1001', ...EXAMPLE_PROFILE };
const EDIT = { ...EXAMPLE_PROFILE, default_payment_token: EXAMPLE_TOKEN.token };
const OF_CUSTOMER = { uuid: EXAMPLE_CUSTOMER_UUID };

const reply = (view: CustomerView) => ({ customer: presentCustomer(view) });

/** The customer routes, with the default-token rules the payment tokens capability provides. */
export const customerRoutes = (tokens: DefaultTokens) => [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createCustomer',
    summary: 'Create a customer, or update the one with the same reference_number.',
    description: 'Optional fields omitted keep their value; sent as null they are cleared.',
    tags: ['customers'],
    body: CreateCustomerBody,
    data: CustomerData,
    errors: [CUSTOMER_ERRORS.paymentTokenNotUsable],
    handler: ({ ctx, body }) => createOrUpdateCustomer(ctx, tokens, body.customer),
    present: reply,
    example: {
      request: { body: { customer: NEW_CUSTOMER } },
      reply: { customer: exampleCustomer(false) },
      client: clientCall('customers.create', NEW_CUSTOMER),
    },
  }),
  defineRoute({
    method: 'PUT',
    url: `${BASE}/:uuid`,
    operationId: 'editCustomer',
    summary: 'Edit a customer (flat body); reference_number cannot change.',
    tags: ['customers'],
    params: CustomerParams,
    body: EditCustomerBody,
    data: CustomerData,
    errors: [
      CUSTOMER_ERRORS.customerNotFound,
      CUSTOMER_ERRORS.customerReferenceImmutable,
      CUSTOMER_ERRORS.paymentTokenNotUsable,
    ],
    handler: ({ ctx, params, body }) => editCustomer(ctx, tokens, params.uuid, body),
    present: reply,
    example: {
      request: { params: OF_CUSTOMER, body: EDIT },
      reply: { customer: exampleCustomer(true) },
      client: clientCall('customers.update', EXAMPLE_CUSTOMER_UUID, EDIT),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:uuid`,
    operationId: 'getCustomer',
    summary: 'Read a customer back.',
    tags: ['customers'],
    params: CustomerParams,
    data: CustomerData,
    errors: [CUSTOMER_ERRORS.customerNotFound],
    handler: ({ ctx, params }) => readCustomer(ctx, tokens, params.uuid),
    present: reply,
    example: {
      request: { params: OF_CUSTOMER },
      reply: { customer: exampleCustomer(true) },
      client: clientCall('customers.get', EXAMPLE_CUSTOMER_UUID),
    },
  }),
];
