import Type from 'typebox';
import { clientCall } from '../http/examples.js';
import { defineRoute } from '../http/route.js';

const Message = Type.Object({ message: Type.String() });

/** Signature self-test: a signed request whose reply carries the message back. */
export const ECHO_ROUTES = [
  defineRoute({
    method: 'POST',
    url: '/svc/payment/api/v1/openapi/echo',
    aliases: ['/svc/payment/api/v1/echo'],
    operationId: 'echo',
    summary: 'Check request signing: the reply carries the message back.',
    tags: ['signing'],
    body: Message,
    data: Message,
    errors: [],
    handler: async ({ body }) => ({ message: body.message }),
    example: {
      request: { body: { message: 'Hello, paygate' } },
      reply: { message: 'Hello, paygate' },
      client: clientCall('echo', 'Hello, paygate'),
    },
  }),
];
