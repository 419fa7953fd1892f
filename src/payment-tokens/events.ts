import type { Context } from '../context/context.js';
import { getCustomer } from '../customers/index.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { presentToken } from './present.js';
import type { TokenRow } from './store.js';

/** A payment token's binding settled, or the token was deleted: to the apps' endpoints only (docs/webhooks.md). */
export const TOKEN_EVENTS = defineEventTypes(
  ({ row, defaultTokenId }: { row: TokenRow; defaultTokenId: string | null }) => ({
    data: { customer_uuid: row.customer_id, payment_token: presentToken(row, defaultTokenId) },
    subjectId: row.id,
    notifyUrl: null,
    appId: row.app_id,
  }),
  {
    'payment_token.succeeded': 'A binding succeeded: the token can be charged.',
    'payment_token.failed': 'A binding failed (declined, 3-D Secure failed or abandoned, deleted while pending).',
    'payment_token.deleted': 'The token was deleted.',
  },
);

export async function emitTokenEvent(ctx: Context, action: keyof typeof TOKEN_EVENTS, row: TokenRow): Promise<void> {
  const customer = await getCustomer(ctx, row.customer_id);
  await emitEvent(ctx, TOKEN_EVENTS[action], { row, defaultTokenId: customer.default_payment_token_id });
}
