import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import type { CardReply } from './present.js';

/** A card's events, to the merchant's apps' endpoints: `data.card` as the card routes show it (masked). */
export const CARD_EVENTS = defineEventTypes(
  (card: CardReply & { app_id: string | null }) => {
    const { app_id: appId, ...shown } = card;
    return { data: { card: shown }, subjectId: card.id, notifyUrl: null, appId };
  },
  {
    'card.created': 'A card was issued to an approved user (status Active).',
    'card.locked': 'A card was locked: authorisations are declined until it is unlocked.',
    'card.unlocked': 'A locked card is Active again.',
    'card.terminated': 'A card was terminated, for good.',
    'card.limits_updated': "A card's spending limits were replaced.",
  },
);

export async function emitCardEvent(
  ctx: Context,
  action: keyof typeof CARD_EVENTS,
  card: CardReply,
  appId: string | null,
): Promise<void> {
  await emitEvent(ctx, CARD_EVENTS[action], { ...card, app_id: appId });
}
