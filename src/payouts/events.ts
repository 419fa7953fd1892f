import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { presentPayout } from './present.js';
import type { PayoutRow } from './store.js';

/**
 * A payout request's events: to its callback_url (signed by the key of the app that created it) and to the
 * merchant's app endpoints, `data.payout_request` as operation 9's reply shows it. One per change of either status.
 */
export const PAYOUT_EVENTS = defineEventTypes(
  (payout: PayoutRow) => ({
    data: { payout_request: presentPayout(payout) },
    subjectId: payout.id,
    notifyUrl: payout.callback_url,
    appId: payout.app_id,
  }),
  {
    'payout.created':
      'A payout request was created (operation 9): schedule_status Pending Approval or Approved, transfer_status Initiated.',
    'payout.approved': 'A payout request pending approval was approved; it runs at schedule_at (at once without one).',
    'payout.rejected': 'A payout request pending approval was rejected; status_reason says why.',
    'payout.cancelled': 'A payout request was cancelled before it ran.',
    'payout.failed':
      'A payout request could not run: the available balance was short (schedule_status Failed); nothing moved.',
    'payout.processing':
      'The payout ran: its amount is reserved and the bank took the transfer (transfer_status Processing Transfer).',
    'payout.settled': 'The bank paid the payee (transfer_status Settled).',
    'payout.terminated':
      'The bank rejected the transfer (transfer_status Terminated); the reserved amount is available again.',
    'payout.reversed':
      "The payee's bank returned the payment after it settled (transfer_status Reversed); the money is on its way back.",
    'payout.refunded': 'The returned payment arrived (transfer_status Refunded): the amount is available again.',
  },
);

export type PayoutAction = keyof typeof PAYOUT_EVENTS;

export async function emitPayoutEvent(ctx: Context, action: PayoutAction, payout: PayoutRow): Promise<void> {
  await emitEvent(ctx, PAYOUT_EVENTS[action], payout);
}
