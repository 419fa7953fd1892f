import { currencyExponent } from '../../platform/money/currencies.js';
import type { TriggerRun } from './trigger.js';

/** docs/sandbox.md's magic cards the triggers use. */
export const SANDBOX_CARDS = {
  approved: '4242424242424242',
  declined: '4000000000000002',
  /** Binds at once (frictionless 3-D Secure), charges approved. */
  frictionless: '4000000000003055',
  /** Binds at once, then every charge is declined (51 Insufficient funds). */
  bindsThenDeclines: '4000000000000341',
} as const;

/** `major` whole units of the currency, written with its decimals ("50.00", JPY "50"); HKD's when unknown. */
export function majorUnits(currency: unknown, major: number): string {
  const exponent = typeof currency === 'string' ? (currencyExponent(currency.toUpperCase()) ?? 2) : 2;
  return exponent === 0 ? String(major) : `${major}.${'0'.repeat(exponent)}`;
}

/** A card's expiry some years ahead of the merchant's business date: valid whenever the clock is moved to. */
export function expiry(run: TriggerRun): { exp_month: string; exp_year: string } {
  return { exp_month: '12', exp_year: String(run.ctx.clock.now().getUTCFullYear() + 5) };
}

/** Puts the field's value at `key` of `body` when `set` gave it; an omitted field stays out of the body. */
export function optional(run: TriggerRun, body: Record<string, unknown>, key: string, field = key): void {
  if (run.given(field)) body[key] = run.value(field, undefined);
}
