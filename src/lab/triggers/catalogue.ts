import { BATCH_TRIGGERS } from './batches.js';
import { CARD_TRANSACTION_TRIGGERS, CARD_TRIGGERS } from './issuing.js';
import { ORDER_TRIGGERS } from './orders.js';
import { PAYMENT_TOKEN_TRIGGERS } from './payment-tokens.js';
import { PAYOUT_TRIGGERS } from './payouts.js';
import { RECURRING_TRIGGERS } from './recurring.js';
import type { Trigger } from './trigger.js';
import { USER_TRIGGERS } from './users.js';

/** One trigger per event kind of docs/webhooks.md, in its order (a test compares the two). */
export const TRIGGERS: readonly Trigger[] = [
  ...ORDER_TRIGGERS,
  ...PAYMENT_TOKEN_TRIGGERS,
  ...RECURRING_TRIGGERS,
  ...BATCH_TRIGGERS,
  ...USER_TRIGGERS,
  ...CARD_TRIGGERS,
  ...CARD_TRANSACTION_TRIGGERS,
  ...PAYOUT_TRIGGERS,
];
