import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { SANDBOX_REJECTION } from '../rails/sandbox/identity.js';
import { USER_ERRORS } from './errors.js';
import { EXAMPLE_USER, EXAMPLE_USER_ID } from './examples.js';
import { presentUser } from './present.js';
import { RejectUserBody, SandboxUserParams, UserData } from './schemas.js';
import type { UserRow } from './users.js';
import { settlePendingUser } from './verification.js';

const BASE = '/svc/sandbox/api/v1';
const TAGS = ['sandbox'];

/** Sandbox mode only: the identity check's provider finishing a review, by hand. */
export const USER_SANDBOX_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/users/:user_id/approve`,
    operationId: 'approveSandboxUser',
    summary:
      'Approve a user whose identity check is pending (a last name of Review), as the provider finishing its review would.',
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
    handler: ({ ctx, params, body }) =>
      settlePendingUser(ctx, params.user_id, { status: 'rejected', reason: body.reason ?? SANDBOX_REJECTION }),
    present: (row: UserRow) => ({ user: presentUser(row) }),
    example: {
      request: { params: { user_id: EXAMPLE_USER_ID }, body: { reason: 'The document has expired.' } },
      reply: {
        user: { ...EXAMPLE_USER, verification_status: 'rejected', rejection_reason: 'The document has expired.' },
      },
      client: clientCall('sandbox.rejectUser', EXAMPLE_USER_ID, 'The document has expired.'),
    },
  }),
];
