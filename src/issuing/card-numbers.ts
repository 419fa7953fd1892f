import { randomInt } from 'node:crypto';
import { passesLuhn } from '../cards/card.js';

/**
 * The program's JCB range (IIN 3569 99, inside JCB's 3528-3589): sixteen digits, the last a Luhn check digit. The
 * platform is its own issuer here, so numbers are drawn at random within the range; uniqueness is the store's
 * (a keyed fingerprint of every number issued).
 */
export const PROGRAM_IIN = '356999';

export function newCardNumber(): string {
  let body = PROGRAM_IIN;
  while (body.length < 15) body += String(randomInt(10));
  return body + checkDigit(body);
}

export function newCvv(): string {
  return String(randomInt(1000)).padStart(3, '0');
}

function checkDigit(body: string): string {
  for (let digit = 0; digit < 10; digit += 1) if (passesLuhn(body + digit)) return String(digit);
  throw new Error('no check digit');
}

/** As replies show a number: first six, last four. */
export function maskNumber(first6: string, last4: string): string {
  return `${first6}******${last4}`;
}
