import { AppError, type ErrorDefinition, PLATFORM_ERRORS } from '../errors.js';
import { currencyExponent } from './currencies.js';

/** An amount in integer minor units (cents, yen) of one currency. Money is never a float. */
export type Minor = number;

/** An amount of one currency. */
export interface Money {
  readonly minor: Minor;
  readonly currency: Currency;
}

/** An ISO 4217 currency and its exponent: the number of decimals an amount of it may have. */
export interface Currency {
  readonly code: string;
  readonly exponent: number;
}

/**
 * The largest amount, and the largest total, paygate holds: fifteen digits of minor units. Below 2^53, so every
 * sum of amounts that stays within it is exact; verbs refuse what would take a total past it.
 */
export const MAX_MINOR: Minor = 999_999_999_999_999;

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

/** The currency of this ISO 4217 code (any case, surrounding spaces ignored), or the refusal naming `field`. */
export function readCurrency(text: string, field: string): Currency {
  const code = text.trim().toUpperCase();
  const exponent = currencyExponent(code);
  if (exponent === undefined)
    throw new AppError(
      PLATFORM_ERRORS.currencyInvalid,
      `${field} ${JSON.stringify(text)} is not an ISO 4217 currency code.`,
    );
  return { code, exponent };
}

/** A currency paygate already stored (so known to be valid). */
export function currencyOf(code: string): Currency {
  const exponent = currencyExponent(code);
  if (exponent === undefined) throw new Error(`not a currency: ${code}`);
  return { code, exponent };
}

/**
 * The one reader of amounts the interface receives: decimal text ("12.50") or a JSON number (12.5), in the
 * currency's minor units, refused naming `field` (with `refusal`, validation by default) when it is not exact
 * money of that currency within {@link MAX_MINOR}.
 */
export function readMoney(
  input: string | number,
  currency: Currency,
  field: string,
  options: AmountRules & { refusal?: ErrorDefinition } = {},
): Money {
  const minor = parseAmount(input, currency.exponent, options);
  if (typeof minor === 'string') {
    throw new AppError(
      options.refusal ?? PLATFORM_ERRORS.validationFailed,
      `${field} ${describeAmountProblem(minor, currency.exponent)}.`,
    );
  }
  return { minor, currency };
}

/**
 * Parses decimal text or a JSON number into minor units without floating-point arithmetic: a number is read
 * through its shortest decimal text (String(n)), never multiplied.
 */
export function parseAmount(input: string | number, exponent: number, rules: AmountRules = {}): Minor | AmountProblem {
  if (typeof input === 'number' && !Number.isFinite(input)) return 'not_a_number';
  // Text is read as given: " 5" is no more an amount than "5 HKD" is.
  const text = typeof input === 'number' ? String(input) : input;
  if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) return 'exponent_notation';
  const match = DECIMAL.exec(text);
  if (!match) return 'not_a_number';
  const [, sign, whole = '', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > exponent) return 'too_many_decimals';
  const digits = `${whole}${trimmed.padEnd(exponent, '0')}`.replace(/^0+(?=\d)/, '');
  if (digits.length > String(MAX_MINOR).length) return 'out_of_range';
  const magnitude = Number(digits);
  const value = sign ? -magnitude : magnitude;
  if (value < 0 && !rules.allowNegative) return 'negative';
  if (value === 0 && !rules.allowZero) return 'zero';
  return value === 0 ? 0 : value;
}

/** Raised when arithmetic on amounts would no longer be exact (past 2^53): a verb should have refused earlier. */
export class MoneyRangeError extends RangeError {
  override readonly name = 'MoneyRangeError';
}

/** Exactness, not the business maximum: a sum past {@link MAX_MINOR} may be legitimate on the way to a refusal. */
function checked(value: number): Minor {
  if (!Number.isSafeInteger(value))
    throw new MoneyRangeError(`${value} minor units: arithmetic past 2^53 is no longer exact`);
  return value;
}

/** a + b, exact, or a {@link MoneyRangeError}. */
export function addMinor(a: Minor, b: Minor): Minor {
  return checked(a + b);
}

/** The sum of amounts, exact at every step, or a {@link MoneyRangeError}. */
export function sumMinor(amounts: Iterable<Minor>): Minor {
  let sum = 0;
  for (const amount of amounts) sum = checked(sum + amount);
  return sum;
}

/** amount × count, exact, or a {@link MoneyRangeError}. */
export function timesMinor(amount: Minor, count: number): Minor {
  return checked(amount * count);
}

/** Whether `minor` is exact (a safe integer): what every sum must be before it is compared or stored. */
export function isExact(minor: number): boolean {
  return Number.isSafeInteger(minor);
}

/** Whether a total of `minor` stays within what paygate holds ({@link MAX_MINOR}). */
export function withinMaximum(minor: number): boolean {
  return isExact(minor) && Math.abs(minor) <= MAX_MINOR;
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

/** One whole unit of a currency (HKD 1.00, JPY 1, KWD 1.000), in its minor units. */
export function oneUnit(currency: Currency): Minor {
  return 10 ** currency.exponent;
}

export function exponentOf(currency: string): number {
  return currencyOf(currency).exponent;
}

function describeAmountProblem(problem: AmountProblem, exponent: number): string {
  switch (problem) {
    case 'not_a_number':
      return 'must be a decimal amount such as "12.50"';
    case 'exponent_notation':
      return 'must be written without exponent notation';
    case 'too_many_decimals':
      return exponent === 0
        ? 'must be a whole amount (the currency has no decimals)'
        : `must have at most ${exponent} decimals`;
    case 'negative':
      return 'must not be negative';
    case 'zero':
      return 'must be greater than zero';
    case 'out_of_range':
      return 'is too large';
  }
}
