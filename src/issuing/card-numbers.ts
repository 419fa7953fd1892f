import { passesLuhn } from '../cards/card.js';
import type { IdSource } from '../platform/ids.js';

/**
 * The program's JCB range (IIN 3569 99, inside JCB's 3528-3589): sixteen digits, the last a Luhn check digit. The
 * platform is its own issuer here, so numbers are drawn within the range (at random, or seeded for a deterministic
 * merchant); uniqueness is the store's
 * (a keyed fingerprint of every number issued).
 */
export const PROGRAM_IIN = '356999';

export function newCardNumber(ids: IdSource): string {
  let body = PROGRAM_IIN;
  while (body.length < 15) body += String(ids.below(10));
  return body + checkDigit(body);
}

export function newCvv(ids: IdSource): string {
  return String(ids.below(1000)).padStart(3, '0');
}

function checkDigit(body: string): string {
  for (let digit = 0; digit < 10; digit += 1) if (passesLuhn(body + digit)) return String(digit);
  throw new Error('no check digit');
}

/** As replies show a number: first six, last four. */
export function maskNumber(first6: string, last4: string): string {
  return `${first6}******${last4}`;
}
