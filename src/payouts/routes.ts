import type { Context } from '../context/context.js';
import { clientCall } from '../http/examples.js';
import { listParameters, pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { type ErrorDefinition, PLATFORM_ERRORS } from '../platform/errors.js';
import { PageQuery } from '../platform/schema.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { PAYOUT_ERRORS } from './errors.js';
import { EXAMPLE_NEW_PAYOUT, EXAMPLE_PAYOUT, EXAMPLE_PAYOUT_ID } from './examples.js';
import {
  approvePayout,
  cancelPayout,
  createPayout,
  getPayout,
  listMerchantPayouts,
  type PayoutRow,
  rejectPayout,
} from './payouts.js';
import { presentPayout } from './present.js';
import {
  CreatePayoutBody,
  DecisionBody,
  PayoutData,
  PayoutListData,
  PayoutParams,
  type ScheduleStatus,
} from './schemas.js';

const BASE = '/svc/ts/api/v1/openapi/payout_requests';
const TAGS = ['payouts'];
const reply = (row: PayoutRow) => ({ payout_request: presentPayout(row) });
const decidedBy = { decided_by: 'app:00000000-0000-4000-8000-0000000000aa', updated_at: '2026-12-01T03:00:00.000Z' };

/** Reject and cancel: one shape, a decision with an optional reason that ends the payout request for good. */
function endingRoute(
  action: 'reject' | 'cancel',
  ending: {
    summary: string;
    refusal: ErrorDefinition;
    decide: (ctx: Context, id: string, reason: string | undefined) => Promise<PayoutRow>;
    status: ScheduleStatus;
    reason: string;
  },
) {
  return defineRoute({
    method: 'POST',
    url: `${BASE}/:id/${action}`,
    operationId: `${action}PayoutRequest`,
    summary: ending.summary,
    tags: TAGS,
    params: PayoutParams,
    body: DecisionBody,
    data: PayoutData,
    errors: [PAYOUT_ERRORS.payoutNotFound, ending.refusal],
    handler: ({ ctx, params, body }) => ending.decide(ctx, params.id, body.reason),
    present: reply,
    example: {
      request: { params: { id: EXAMPLE_PAYOUT_ID }, body: { reason: ending.reason } },
      reply: {
        payout_request: {
          ...EXAMPLE_PAYOUT,
          schedule_status: ending.status,
          status_reason: ending.reason,
          ...decidedBy,
        },
      },
      client: clientCall(`payouts.${action}`, EXAMPLE_PAYOUT_ID, ending.reason),
    },
  });
}

export const PAYOUT_ROUTES = [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createPayoutRequest',
    summary:
      'Operation 9: ask for a payout to a payee; it waits for approval at or above the threshold, and runs at schedule_at (docs/payouts.md).',
    description:
      'callback_url must be an http or https URL (820007 otherwise); it is told of every change of either status. ' +
      'reference_id is unique per merchant: the same reference with the same content answers the same payout, other content is refused (820004).',
    tags: TAGS,
    body: CreatePayoutBody,
    data: PayoutData,
    errors: [
      PLATFORM_ERRORS.currencyInvalid,
      PAYOUT_ERRORS.payeeNotFound,
      PAYOUT_ERRORS.payoutCallbackInvalid,
      PAYOUT_ERRORS.payoutCurrencyMismatch,
      PAYOUT_ERRORS.payoutReferenceUsed,
      RAIL_ERRORS.bankUnavailable,
    ],
    handler: ({ ctx, body }) => createPayout(ctx, body.payout_request),
    present: reply,
    example: {
      request: { body: { payout_request: EXAMPLE_NEW_PAYOUT } },
      reply: { payout_request: EXAMPLE_PAYOUT },
      client: clientCall('payouts.create', EXAMPLE_NEW_PAYOUT),
    },
  }),
  defineRoute({
    method: 'GET',
    url: BASE,
    operationId: 'listPayoutRequests',
    summary: 'List payout requests, newest first, with filter[field][operator]=value (docs/payouts.md).',
    tags: TAGS,
    querystring: PageQuery,
    data: PayoutListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listMerchantPayouts(ctx, listParameters(query), query);
      return pageReply('payout_requests', query, rows.map(presentPayout), total);
    },
    example: {
      request: { query: { 'filter[schedule_status][_eq]': 'Approved' } },
      reply: { payout_requests: [EXAMPLE_PAYOUT], offset: 0, limit: 20, total: 1 },
      client: clientCall('payouts.list', { filters: { 'filter[schedule_status][_eq]': 'Approved' } }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id`,
    operationId: 'getPayoutRequest',
    summary: 'Read a payout request: its schedule and transfer status.',
    tags: TAGS,
    params: PayoutParams,
    data: PayoutData,
    errors: [PAYOUT_ERRORS.payoutNotFound],
    handler: ({ ctx, params }) => getPayout(ctx, params.id),
    present: reply,
    example: {
      request: { params: { id: EXAMPLE_PAYOUT_ID } },
      reply: { payout_request: EXAMPLE_PAYOUT },
      client: clientCall('payouts.get', EXAMPLE_PAYOUT_ID),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/:id/approve`,
    operationId: 'approvePayoutRequest',
    summary: 'Approve a payout request pending approval; it runs at its schedule_at (at once when none, or past).',
    tags: TAGS,
    params: PayoutParams,
    data: PayoutData,
    errors: [PAYOUT_ERRORS.payoutNotFound, PAYOUT_ERRORS.payoutNotPendingApproval],
    handler: ({ ctx, params }) => approvePayout(ctx, params.id),
    present: reply,
    example: {
      request: { params: { id: EXAMPLE_PAYOUT_ID } },
      reply: { payout_request: { ...EXAMPLE_PAYOUT, ...decidedBy } },
      client: clientCall('payouts.approve', EXAMPLE_PAYOUT_ID),
    },
  }),
  endingRoute('reject', {
    summary: 'Reject a payout request pending approval, for good.',
    refusal: PAYOUT_ERRORS.payoutNotPendingApproval,
    decide: rejectPayout,
    status: 'Rejected',
    reason: 'Duplicate invoice.',
  }),
  endingRoute('cancel', {
    summary: 'Cancel a payout request pending approval, or approved and not yet run, for good.',
    refusal: PAYOUT_ERRORS.payoutNotCancellable,
    decide: cancelPayout,
    status: 'Cancelled',
    reason: 'Paid by cheque instead.',
  }),
];
