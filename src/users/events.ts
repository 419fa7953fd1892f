import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { presentUser } from './present.js';
import type { UserRow } from './store.js';

/**
 * A user's events, to the merchant's apps' endpoints (a user has no callback URL); `data.user` as operation 2's read
 * shows it.
 */
export const USER_EVENTS = defineEventTypes(
  (user: UserRow) => ({ data: { user: presentUser(user) }, subjectId: user.id, notifyUrl: null, appId: user.app_id }),
  {
    'user.created':
      'A user was registered (operation 2); verification_status is pending until the identity check answers.',
    'user.updated':
      'A user was edited; a change of name, date of birth or document sends the identity check again (pending).',
    'user.approved': 'The identity check approved the user: cards can be issued to it.',
    'user.rejected': 'The identity check rejected the user; rejection_reason says why.',
  },
);

export async function emitUserEvent(ctx: Context, action: keyof typeof USER_EVENTS, user: UserRow): Promise<void> {
  await emitEvent(ctx, USER_EVENTS[action], user);
}
