/**
 * The sandbox's magic card numbers (docs/sandbox.md). Any future expiry and any CVV; any other number that
 * passes the Luhn check is approved. Binding a card (a verification) asks for 3-D Secure for every card that
 * would be approved, except a frictionless one. A decline that `verifies` is the exception the other way: its
 * verification (binding it as a payment token) is approved, frictionless, and every charge is declined, so that
 * merchants can test a bound card that stops paying (recurring billing's retries ending uncollectible).
 */
export type SandboxOutcome =
  | { kind: 'approve'; answerAfterMs?: number; frictionless?: boolean }
  | { kind: 'decline'; code: string; message: string; verifies?: boolean }
  | { kind: 'fault'; code: string; message: string }
  | { kind: 'challenge' };

export const SANDBOX_CARDS: Readonly<Record<string, { outcome: SandboxOutcome; description: string }>> = {
  '4242424242424242': { outcome: { kind: 'approve' }, description: 'Visa, approved' },
  '5555555555554444': { outcome: { kind: 'approve' }, description: 'Mastercard, approved' },
  '3530111333300000': { outcome: { kind: 'approve' }, description: 'JCB, approved' },
  '4000000000000002': {
    outcome: { kind: 'decline', code: '05', message: 'Do not honour' },
    description: 'declined, generic',
  },
  '4000000000009995': {
    outcome: { kind: 'decline', code: '51', message: 'Insufficient funds' },
    description: 'declined, insufficient funds',
  },
  '4000000000000341': {
    outcome: { kind: 'decline', code: '51', message: 'Insufficient funds', verifies: true },
    description:
      'binds, then declines: binding it as a payment token succeeds at once (frictionless 3-D Secure); every ' +
      'charge, of its token (cit or mit, sale or authorisation) or of the number itself, is declined: insufficient funds',
  },
  '4000000000000069': {
    outcome: { kind: 'decline', code: '54', message: 'Expired card' },
    description: 'declined, expired card',
  },
  '4000000000000127': {
    outcome: { kind: 'decline', code: 'N7', message: 'Incorrect CVV' },
    description: 'declined, incorrect CVC',
  },
  '4000000000003220': {
    outcome: { kind: 'challenge' },
    description: '3-D Secure challenge: pending until passed or failed',
  },
  '4000000000003055': {
    outcome: { kind: 'approve', frictionless: true },
    description:
      'approved; 3-D Secure frictionless: binding it as a payment token succeeds at once, without a challenge',
  },
  '4000000000006207': {
    outcome: { kind: 'approve', answerAfterMs: 3_000 },
    description:
      'slow: approved at once, the answer arrives after 3 seconds, for its captures, voids and refunds too ' +
      '(for timeouts and crashes in flight)',
  },
  '4000000000000119': {
    outcome: { kind: 'fault', code: '96', message: 'System malfunction' },
    description: 'acquirer fault: failed with a retryable code, nothing charged',
  },
};

export function sandboxOutcome(cardNumber: string): SandboxOutcome {
  return SANDBOX_CARDS[cardNumber]?.outcome ?? { kind: 'approve' };
}

/**
 * How long answers about a card take, known from what the acquirer keeps of it (first six and last four
 * digits): a slow card's captures, voids and refunds are as slow as its payment.
 */
export function answerDelayOf(card: StoredCardParts): number {
  for (const { outcome } of cardsLike(card)) {
    if (outcome.kind === 'approve' && outcome.answerAfterMs) return outcome.answerAfterMs;
  }
  return 0;
}

/**
 * The decline of a charge of a stored card (a payment token), known the same way: only a card that binds and
 * then declines (`verifies`) is declined, since no other decline can be stored; every other stored card is charged.
 */
export function storedChargeDeclineOf(card: StoredCardParts): { code: string; message: string } | undefined {
  for (const { outcome } of cardsLike(card)) {
    if (outcome.kind === 'decline' && outcome.verifies) return { code: outcome.code, message: outcome.message };
  }
  return undefined;
}

type StoredCardParts = { first6: string | null; last4: string | null };

/** The magic cards with these first six and last four digits. */
function cardsLike(card: StoredCardParts): Array<{ outcome: SandboxOutcome }> {
  return Object.entries(SANDBOX_CARDS)
    .filter(([number]) => number.startsWith(card.first6 ?? '-') && number.endsWith(card.last4 ?? '-'))
    .map(([, entry]) => entry);
}
