import { currencyExponent } from './currencies.js';
import { type Minor, parseAmount } from './money.js';

/** What a payment method costs: a share of the amount (parts per million) plus a fixed amount per currency. */
export interface FeeRate {
  ppm: number;
  fixed: Readonly<Record<string, Minor>>;
}

/**
 * Fee rates by who (`*` for every merchant, or a merchant id) and by payment method (`*` for any other method):
 * a merchant's own rate for the method first, then its `*`, then everyone's for the method, then everyone's `*`.
 */
export type FeeSchedule = Readonly<Record<string, Readonly<Record<string, FeeRate>>>>;

const rate = (percent: string, fixed: Record<string, string> = {}): FeeRate => {
  const parsed = readRate({ percent, fixed });
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

/** The sandbox's rates (docs/sandbox.md); a live platform charges nothing unless PAYGATE_FEES says so. */
export const SANDBOX_FEES: FeeSchedule = {
  '*': {
    credit_card: rate('2.9', { HKD: '2.35', USD: '0.30', EUR: '0.25', GBP: '0.20', JPY: '30' }),
    payment_token: rate('2.9', { HKD: '2.35', USD: '0.30', EUR: '0.25', GBP: '0.20', JPY: '30' }),
    '*': rate('2.2'),
  },
};

/**
 * The fee on `amount` of `currency` paid by `method`: the share rounded half up, plus the fixed part; never more than
 * the amount.
 */
export function feeOf(
  schedule: FeeSchedule,
  merchantId: string,
  method: string,
  currency: string,
  amount: Minor,
): Minor {
  const own = schedule[merchantId];
  const everyone = schedule['*'];
  const found = own?.[method] ?? own?.['*'] ?? everyone?.[method] ?? everyone?.['*'];
  if (!found || amount <= 0) return 0;
  const share = Number((BigInt(amount) * BigInt(found.ppm) + 500_000n) / 1_000_000n);
  return Math.min(amount, share + (found.fixed[currency] ?? 0));
}

/**
 * PAYGATE_FEES: JSON `{"<* or merchant id>": {"<* or payment method>": {"percent": "2.9", "fixed": {"HKD": "2.35"}}}}`.
 * Laid over `base` (the sandbox's rates in sandbox mode): what it names replaces, the rest stays. A problem is text.
 */
export function parseFeeSchedule(raw: string, base: FeeSchedule): FeeSchedule | string {
  let given: unknown;
  try {
    given = JSON.parse(raw);
  } catch {
    return 'must be JSON: {"*": {"credit_card": {"percent": "2.9", "fixed": {"HKD": "2.35"}}}}';
  }
  if (!isRecord(given)) return 'must be a JSON object of merchants ("*" for all) to payment methods to rates';
  const schedule: Record<string, Record<string, FeeRate>> = Object.fromEntries(
    Object.entries(base).map(([who, methods]) => [who, { ...methods }]),
  );
  for (const [who, methods] of Object.entries(given)) {
    if (!isRecord(methods)) return `${who}: must map payment methods ("*" for any) to rates`;
    for (const [method, value] of Object.entries(methods)) {
      const parsed = readRate(value);
      if (typeof parsed === 'string') return `${who}.${method}: ${parsed}`;
      const rates = schedule[who] ?? {};
      rates[method] = parsed;
      schedule[who] = rates;
    }
  }
  return schedule;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readRate(value: unknown): FeeRate | string {
  if (!isRecord(value)) return 'must be {"percent": "2.9", "fixed": {"HKD": "2.35"}}';
  const percent = value.percent ?? '0';
  if (typeof percent !== 'string' || !/^\d{1,3}(\.\d{1,4})?$/.test(percent) || Number(percent) > 100) {
    return 'percent must be decimal text from "0" to "100", at most 4 decimals';
  }
  const [whole = '0', fraction = ''] = percent.split('.');
  const ppm = Number(whole) * 10_000 + Number(fraction.padEnd(4, '0'));
  const fixed: Record<string, Minor> = {};
  const given = value.fixed ?? {};
  if (!isRecord(given)) return 'fixed must map currencies to amounts, such as {"HKD": "2.35"}';
  for (const [currency, text] of Object.entries(given)) {
    const exponent = currencyExponent(currency);
    if (exponent === undefined) return `fixed: ${currency} is not an ISO 4217 currency code`;
    const minor = typeof text === 'string' ? parseAmount(text, exponent, { allowZero: true }) : 'not_a_number';
    if (typeof minor === 'string') return `fixed.${currency} must be decimal text of ${currency}, such as "2.35"`;
    fixed[currency] = minor;
  }
  return { ppm, fixed };
}
