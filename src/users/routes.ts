import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { USER_ERRORS } from './errors.js';
import { EXAMPLE_NEW_USER, EXAMPLE_USER, EXAMPLE_USER_ID } from './examples.js';
import { presentUser } from './present.js';
import { CreatedUserData, CreateUserBody, UpdateUserBody, UserData, UserParams } from './schemas.js';
import { createUser, editUser, readUserByName, type UserRow } from './users.js';

const BASE = '/svc/ts/api/v1/openapi/user';
const TAGS = ['users'];
const UNIQUE = [USER_ERRORS.userReferenceUsed, USER_ERRORS.userPhoneUsed, USER_ERRORS.userExists];
const reply = (row: UserRow) => ({ user: presentUser(row) });

export const USER_ROUTES = [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createUser',
    summary: 'Register an identity-verified user (operation 2); its identity check starts at once (docs/issuing.md).',
    description:
      'Unique per merchant by reference_id (300013), by calling_code and phone_number (30014), and by document ' +
      'type, number and issuing country (300008). The reply carries the user_id only; read the user for its verification_status.',
    tags: TAGS,
    body: CreateUserBody,
    data: CreatedUserData,
    errors: [...UNIQUE, RAIL_ERRORS.identityUnavailable],
    handler: ({ ctx, body }) => createUser(ctx, body.user),
    present: (row) => ({ user_id: row.id }),
    example: {
      request: { body: { user: EXAMPLE_NEW_USER } },
      reply: { user_id: EXAMPLE_USER_ID },
      client: clientCall('users.create', EXAMPLE_NEW_USER),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:reference_id`,
    operationId: 'getUser',
    summary: 'Read a user by its reference_id (or its user_id), with its verification_status.',
    tags: TAGS,
    params: UserParams,
    data: UserData,
    errors: [USER_ERRORS.userNotFound],
    handler: ({ ctx, params }) => readUserByName(ctx, params.reference_id),
    present: reply,
    example: {
      request: { params: { reference_id: EXAMPLE_NEW_USER.reference_id } },
      reply: { user: EXAMPLE_USER },
      client: clientCall('users.get', EXAMPLE_NEW_USER.reference_id),
    },
  }),
  defineRoute({
    method: 'PUT',
    url: `${BASE}/:reference_id`,
    operationId: 'updateUser',
    summary: 'Edit a user: the fields sent replace the stored ones, under the rules of creation.',
    description:
      'A change of name, date of birth or document sends the user to the identity check again (pending until it answers).',
    tags: TAGS,
    params: UserParams,
    body: UpdateUserBody,
    data: UserData,
    errors: [USER_ERRORS.userNotFound, ...UNIQUE, RAIL_ERRORS.identityUnavailable],
    handler: ({ ctx, params, body }) => editUser(ctx, params.reference_id, body.user),
    present: reply,
    example: {
      request: {
        params: { reference_id: EXAMPLE_NEW_USER.reference_id },
        body: { user: { phone_number: '61234568' } },
      },
      reply: { user: { ...EXAMPLE_USER, phone_number: '61234568' } },
      client: clientCall('users.update', EXAMPLE_NEW_USER.reference_id, { phone_number: '61234568' }),
    },
  }),
];
