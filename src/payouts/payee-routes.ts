import { clientCall } from '../http/examples.js';
import { pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { PageQuery } from '../platform/schema.js';
import { PAYOUT_ERRORS } from './errors.js';
import { EXAMPLE_NEW_PAYEE, EXAMPLE_PAYEE, EXAMPLE_PAYEE_ID } from './examples.js';
import { createPayee, deletePayee, getPayee, listMerchantPayees, type PayeeRow } from './payees.js';
import { presentPayee } from './present.js';
import { CreatePayeeBody, DeletedPayeeData, PayeeData, PayeeListData, PayeeParams } from './schemas.js';

const BASE = '/svc/ts/api/v1/openapi/payees';
const TAGS = ['payouts'];
const reply = (row: PayeeRow) => ({ payee: presentPayee(row) });

export const PAYEE_ROUTES = [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createPayee',
    summary: 'Register a payee with a Hong Kong FPS account: the rules of each transfer method are in docs/payouts.md.',
    tags: TAGS,
    body: CreatePayeeBody,
    data: PayeeData,
    errors: [],
    handler: ({ ctx, body }) => createPayee(ctx, body.payee),
    present: reply,
    example: {
      request: { body: { payee: EXAMPLE_NEW_PAYEE } },
      reply: { payee: EXAMPLE_PAYEE },
      client: clientCall('payees.create', EXAMPLE_NEW_PAYEE),
    },
  }),
  defineRoute({
    method: 'GET',
    url: BASE,
    operationId: 'listPayees',
    summary: "A page of the merchant's payees, newest first (deleted ones left out).",
    tags: TAGS,
    querystring: PageQuery,
    data: PayeeListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listMerchantPayees(ctx, query);
      return pageReply('payees', query, rows.map(presentPayee), total);
    },
    example: {
      request: {},
      reply: { payees: [EXAMPLE_PAYEE], offset: 0, limit: 20, total: 1 },
      client: clientCall('payees.list'),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id`,
    operationId: 'getPayee',
    summary: 'Read a payee.',
    tags: TAGS,
    params: PayeeParams,
    data: PayeeData,
    errors: [PAYOUT_ERRORS.payeeNotFound],
    handler: ({ ctx, params }) => getPayee(ctx, params.id),
    present: reply,
    example: {
      request: { params: { id: EXAMPLE_PAYEE_ID } },
      reply: { payee: EXAMPLE_PAYEE },
      client: clientCall('payees.get', EXAMPLE_PAYEE_ID),
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: `${BASE}/:id`,
    operationId: 'deletePayee',
    summary:
      'Delete a payee; refused while a payout to it is in flight (not yet Settled, Terminated or Refunded, nor Rejected, Cancelled or Failed).',
    tags: TAGS,
    params: PayeeParams,
    data: DeletedPayeeData,
    errors: [PAYOUT_ERRORS.payeeNotFound, PAYOUT_ERRORS.payeeInUse],
    handler: ({ ctx, params }) => deletePayee(ctx, params.id),
    present: (row) => ({ id: row.id, deleted: true }),
    example: {
      request: { params: { id: EXAMPLE_PAYEE_ID } },
      reply: { id: EXAMPLE_PAYEE_ID, deleted: true },
      client: clientCall('payees.delete', EXAMPLE_PAYEE_ID),
    },
  }),
];
