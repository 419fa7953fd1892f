import { currencyExponent } from './currencies.js';

/** An amount in integer minor units (cents, yen) of one currency. Money is never a float. */
export type Minor = number;

export type AmountProblem =
  | 'not_a_number'
  | 'exponent_notation'
  | 'too_many_decimals'
  | 'negative'
  | 'zero'
  | 'out_of_range';

export interface AmountRules {
  allowNegative?: boolean;
  allowZero?: boolean;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parses decimal text ("12.50") or a JSON number (12.5) into minor units without floating-point arithmetic:
 * a number is read through its shortest decimal text (String(n)), never multiplied.
 */
export function parseAmount(input: string | number, exponent: number, rules: AmountRules = {}): Minor | AmountProblem {
  if (typeof input === 'number' && !Number.isFinite(input)) return 'not_a_number';
  const text = typeof input === 'number' ? String(input) : input.trim();
  if (/e/i.test(text)) return 'exponent_notation';
  const match = DECIMAL.exec(text);
  if (!match) return 'not_a_number';
  const [, sign, whole = '', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > exponent) return 'too_many_decimals';
  const digits = `${whole}${trimmed.padEnd(exponent, '0')}`.replace(/^0+(?=\d)/, '');
  if (digits.length > 15) return 'out_of_range';
  const magnitude = Number(digits);
  if (!Number.isSafeInteger(magnitude)) return 'out_of_range';
  const value = sign ? -magnitude : magnitude;
  if (value < 0 && !rules.allowNegative) return 'negative';
  if (value === 0 && !rules.allowZero) return 'zero';
  return value === 0 ? 0 : value;
}

/** Decimal text with exactly the currency's decimals: "12.50", JPY "1250", KWD "1.250". */
export function formatAmount(minor: Minor, exponent: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${text}` : text;
}

/** The interface's JSON-number form (initial_total, amount): produced only at the edge, from the exact text. */
export function amountAsNumber(minor: Minor, exponent: number): number {
  return Number(formatAmount(minor, exponent));
}

export function exponentOf(currency: string): number {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) throw new Error(`not a currency: ${currency}`);
  return exponent;
}

export function describeAmountProblem(problem: AmountProblem, exponent: number): string {
  switch (problem) {
    case 'not_a_number': return 'must be a decimal amount such as "12.50"';
    case 'exponent_notation': return 'must be written without exponent notation';
    case 'too_many_decimals': return exponent === 0 ? 'must be a whole amount (the currency has no decimals)' : `must have at most ${exponent} decimals`;
    case 'negative': return 'must not be negative';
    case 'zero': return 'must be greater than zero';
    case 'out_of_range': return 'is too large';
  }
}
