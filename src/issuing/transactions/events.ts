import type { Context } from '../../context/context.js';
import { defineEventTypes } from '../../events/event-type.js';
import { emitEvent } from '../../events/outbox.js';
import { presentCardTransaction } from './present.js';
import type { CardTransactionRow } from './store.js';

/**
 * What a card did, to the merchant's apps' endpoints: `data.transaction` as operation 4 shows it, with
 * `decline_reason` and the internal `state` (a fully reversed or expired authorisation leaves operation 4's list,
 * and stays here, in the card's events).
 */
export const CARD_TRANSACTION_EVENTS = defineEventTypes(
  (row: CardTransactionRow) => ({
    data: { transaction: presentCardTransaction(row), state: row.status, decline_reason: row.decline_reason },
    subjectId: row.card_id,
    notifyUrl: null,
    appId: null,
  }),
  {
    'card_transaction.authorized':
      'A purchase was authorised: the amount is held (on_hold) until it clears, is reversed or expires.',
    'card_transaction.declined': 'A purchase or a withdrawal was declined; decline_reason says why.',
    'card_transaction.incremented': 'An authorisation grew (an incremental authorisation).',
    'card_transaction.reversed':
      'Part or all of an authorisation was reversed; state Reversed when nothing is left of it.',
    'card_transaction.expired':
      'An authorisation was not settled within 7 days of business time: its hold is released.',
    'card_transaction.settled': 'An authorisation cleared: final_local_amount was debited.',
    'card_transaction.refunded': 'A refund was credited to the card.',
    'card_transaction.withdrawn': 'A cash withdrawal was paid out.',
  },
);

export async function emitCardTransactionEvent(
  ctx: Context,
  action: keyof typeof CARD_TRANSACTION_EVENTS,
  row: CardTransactionRow,
): Promise<void> {
  await emitEvent(ctx, CARD_TRANSACTION_EVENTS[action], row);
}
