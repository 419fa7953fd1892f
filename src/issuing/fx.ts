import { exponentOf } from '../platform/money/money.js';
import type { SettlementCurrency } from './program.js';

/**
 * The sandbox card network's foreign exchange (docs/issuing.md): what one unit of a transaction currency costs in
 * each settlement currency on the day an authorisation is made. The rate moves up 0.1% for each local day after,
 * so that a settlement days later converts at another rate than its authorisation, as real ones do. A
 * transaction in the card's own currency converts at 1 and pays no fee.
 */
export const SANDBOX_RATES: Readonly<Record<string, Readonly<Record<SettlementCurrency, string>>>> = {
  HKD: { HKD: '1', USD: '0.128205' },
  USD: { HKD: '7.8', USD: '1' },
  EUR: { HKD: '8.45', USD: '1.083333' },
  GBP: { HKD: '9.85', USD: '1.262821' },
  JPY: { HKD: '0.0521', USD: '0.006679' },
  CNY: { HKD: '1.08', USD: '0.138462' },
  SGD: { HKD: '5.8', USD: '0.74359' },
  AUD: { HKD: '5.1', USD: '0.653846' },
  TWD: { HKD: '0.24', USD: '0.030769' },
  MOP: { HKD: '0.97', USD: '0.124359' },
};

/** The foreign-exchange fee on a transaction in another currency than the card's: per cent of the converted amount. */
export const FX_FEE_PERCENT = '1.5';
const DRIFT_PER_DAY = 0.001;
const RATE_DECIMALS = 6;

export function takesCurrency(currency: string): boolean {
  return currency in SANDBOX_RATES;
}

/** The rate, as decimal text with six decimals at most, `daysAfter` local days after the authorisation's. */
export function rateOn(from: string, to: SettlementCurrency, daysAfter = 0): string {
  const base = SANDBOX_RATES[from]?.[to];
  if (base === undefined) throw new Error(`no rate from ${from}`);
  if (from === to || daysAfter <= 0) return base;
  const scaled = (toScaled(base) * BigInt(Math.round((1 + DRIFT_PER_DAY * daysAfter) * 1_000_000))) / 1_000_000n;
  return fromScaled(scaled);
}

/** `amount` (minor units of `from`) at `rate`, in minor units of `to`, rounded half up. */
export function convert(amount: number, from: string, to: string, rate: string): number {
  const shift = exponentOf(to) - exponentOf(from);
  const numerator = BigInt(amount) * toScaled(rate) * 10n ** BigInt(Math.max(shift, 0));
  const denominator = 10n ** BigInt(RATE_DECIMALS) * 10n ** BigInt(Math.max(-shift, 0));
  return Number((numerator * 2n + denominator) / (denominator * 2n));
}

/** The fee on a converted amount: nothing in the card's own currency. */
export function fxFee(localAmount: number, sameCurrency: boolean): number {
  if (sameCurrency) return 0;
  const [whole, fraction = ''] = FX_FEE_PERCENT.split('.');
  const basisPoints = BigInt(whole! + fraction.padEnd(2, '0').slice(0, 2));
  return Number((BigInt(localAmount) * basisPoints * 2n + 10_000n) / 20_000n);
}

function toScaled(rate: string): bigint {
  const [whole, fraction = ''] = rate.split('.');
  return (
    BigInt(whole!) * 10n ** BigInt(RATE_DECIMALS) + BigInt(fraction.padEnd(RATE_DECIMALS, '0').slice(0, RATE_DECIMALS))
  );
}

function fromScaled(scaled: bigint): string {
  const whole = scaled / 10n ** BigInt(RATE_DECIMALS);
  const fraction = (scaled % 10n ** BigInt(RATE_DECIMALS)).toString().padStart(RATE_DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
