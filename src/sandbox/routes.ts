import Type from 'typebox';
import { EXAMPLE_TOKEN, exampleToken } from '../customers/examples.js';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { ORDER_ERRORS } from '../orders/errors.js';
import { challengedExample, EXAMPLE_ORDER } from '../orders/examples.js';
import { completePayerAction } from '../orders/payments.js';
import { presentOrder, presentTransaction } from '../orders/present.js';
import { OrderTransactionData } from '../orders/schemas.js';
import { topUp } from '../ledger/balances.js';
import { EXAMPLE_BALANCE, EXAMPLE_TOP_UP } from '../ledger/examples.js';
import { presentBalance, presentTopUp } from '../ledger/present.js';
import { TopUpBody, TopUpData } from '../ledger/schemas.js';
import { completeBinding } from '../payment-tokens/bind.js';
import { TOKEN_ERRORS } from '../payment-tokens/errors.js';
import { presentToken } from '../payment-tokens/present.js';
import { TokenData } from '../payment-tokens/schemas.js';
import { requireToken, type TokenRow } from '../payment-tokens/tokens.js';
import { PLATFORM_ERRORS } from '../platform/errors.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { SANDBOX_REJECTION } from '../rails/sandbox/identity.js';
import { USER_ERRORS } from '../users/errors.js';
import { EXAMPLE_USER, EXAMPLE_USER_ID } from '../users/examples.js';
import { presentUser } from '../users/present.js';
import { RejectUserBody, SandboxUserParams, UserData } from '../users/schemas.js';
import type { UserRow } from '../users/users.js';
import { settlePendingUser } from '../users/verification.js';
import { advanceClock, MAX_ADVANCE_SECONDS, readClock } from './clock.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];

const Clock = Type.Object({
  now: Type.String({ description: 'Business time now, UTC.' }),
  business_date: Type.String({ description: 'The local date in the merchant\'s time zone.' }),
  timezone: Type.String(),
  offset_seconds: Type.Integer({ description: 'How far business time is ahead of wall time.' }),
});
const TransactionParams = Type.Object({ uuid: Type.String({ maxLength: 64 }) });

/** Sandbox mode only (absent in live mode), signed, and scoped to the caller's merchant like everything else. */
export const sandboxRoutes = [
  defineRoute({
    method: 'GET',
    url: `${BASE}/clock`,
    operationId: 'readSandboxClock',
    summary: "Read the merchant's business clock.",
    tags: TAGS,
    data: Clock,
    errors: [],
    handler: ({ ctx }) => readClock(ctx),
    example: {
      request: {},
      reply: { now: '2026-11-21T08:00:00.000Z', business_date: '2026-11-21', timezone: 'Asia/Hong_Kong', offset_seconds: 0 },
      client: clientCall('sandbox.clock'),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/clock`,
    operationId: 'advanceSandboxClock',
    summary: "Move the merchant's business clock forward; returns when everything due on the way has run.",
    description: 'Settlement, authorisation expiry and due-date voids (and later billing, payouts, webhook retries) ' +
      'run in time order as the clock passes their times. Only this merchant\'s clock moves.',
    tags: TAGS,
    body: Type.Object({ advance_seconds: Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_SECONDS }) }),
    data: Clock,
    errors: [],
    handler: ({ ctx, body }) => advanceClock(ctx, body.advance_seconds),
    example: {
      request: { body: { advance_seconds: 86400 } },
      reply: { now: '2026-11-22T08:00:00.000Z', business_date: '2026-11-22', timezone: 'Asia/Hong_Kong', offset_seconds: 86400 },
      client: clientCall('sandbox.advanceClock', 86400),
    },
  }),
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
        top_up: { id: '019ad0a0-1b2c-7000-8d3e-4f5a6b7c8d9e', ...EXAMPLE_TOP_UP, created_at: '2026-12-01T02:00:00.000Z' },
        balance: { ...EXAMPLE_BALANCE, available: '2172.54' },
      },
      client: clientCall('sandbox.topUp', EXAMPLE_TOP_UP),
    },
  }),
  ...(['succeed', 'fail'] as const).map((outcome) => defineRoute({
    method: 'POST',
    url: `${BASE}/transactions/:uuid/${outcome}`,
    operationId: outcome === 'succeed' ? 'succeedSandboxTransaction' : 'failSandboxTransaction',
    summary: outcome === 'succeed'
      ? 'Complete a pending transaction as the payer would (3-D Secure passed, or the wallet payment made).'
      : 'Fail a pending transaction as the payer would (3-D Secure failed, or the wallet payment refused).',
    tags: TAGS,
    params: TransactionParams,
    data: OrderTransactionData,
    errors: [ORDER_ERRORS.transactionNotFound, ORDER_ERRORS.transactionNotPending, RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer],
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
  })),
  ...(['succeed', 'fail'] as const).map((outcome) => defineRoute({
    method: 'POST',
    url: `${BASE}/payment_tokens/:token/${outcome}`,
    operationId: outcome === 'succeed' ? 'succeedSandboxPaymentToken' : 'failSandboxPaymentToken',
    summary: outcome === 'succeed'
      ? 'Settle a pending binding as the cardholder passing 3-D Secure would: the token succeeds.'
      : 'Settle a pending binding as the cardholder failing 3-D Secure would: the token fails.',
    tags: TAGS,
    params: Type.Object({ token: Type.String({ maxLength: 128 }) }),
    data: TokenData,
    errors: [TOKEN_ERRORS.paymentTokenNotFound, TOKEN_ERRORS.paymentTokenNotPending, RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer],
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
  })),
  defineRoute({
    method: 'POST',
    url: `${BASE}/users/:user_id/approve`,
    operationId: 'approveSandboxUser',
    summary: "Approve a user whose identity check is pending (a last name of Review), as the provider finishing its review would.",
    tags: TAGS,
    params: SandboxUserParams,
    data: UserData,
    errors: [USER_ERRORS.userNotFound, USER_ERRORS.userNotPending],
    handler: ({ ctx, params }) => settlePendingUser(ctx, params.user_id, { status: 'approved' }),
    present: (row: UserRow) => ({ user: presentUser(row) }),
    example: {
      request: { params: { user_id: EXAMPLE_USER_ID } },
      reply: { user: EXAMPLE_USER },
      client: clientCall('sandbox.approveUser', EXAMPLE_USER_ID),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/users/:user_id/reject`,
    operationId: 'rejectSandboxUser',
    summary: 'Reject a user whose identity check is pending, with a reason (a default when none is given).',
    tags: TAGS,
    params: SandboxUserParams,
    body: RejectUserBody,
    data: UserData,
    errors: [USER_ERRORS.userNotFound, USER_ERRORS.userNotPending],
    handler: ({ ctx, params, body }) => settlePendingUser(ctx, params.user_id, { status: 'rejected', reason: body.reason ?? SANDBOX_REJECTION }),
    present: (row: UserRow) => ({ user: presentUser(row) }),
    example: {
      request: { params: { user_id: EXAMPLE_USER_ID }, body: { reason: 'The document has expired.' } },
      reply: { user: { ...EXAMPLE_USER, verification_status: 'rejected', rejection_reason: 'The document has expired.' } },
      client: clientCall('sandbox.rejectUser', EXAMPLE_USER_ID, 'The document has expired.'),
    },
  }),
];
