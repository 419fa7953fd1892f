import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { currencyOf, readMoney } from '../platform/money/money.js';

export const LIMIT_PERIODS = ['transaction', 'daily', 'monthly', 'lifetime'] as const;
export type LimitPeriod = (typeof LIMIT_PERIODS)[number];

/** A spending limit as stored: minor units of the card's settlement currency. */
export interface CardLimit {
  period: LimitPeriod;
  amount: number;
}

/** Reads limits as sent (decimal text in the card's currency), one per period at most, in the periods' order. */
export function readLimits(
  input: ReadonlyArray<{ period: LimitPeriod; limit_amount: string | number }>,
  currency: string,
  field: string,
): CardLimit[] {
  const seen = new Set<LimitPeriod>();
  const limits = input.map((limit, index) => {
    if (seen.has(limit.period))
      throw new AppError(
        PLATFORM_ERRORS.validationFailed,
        `${field}[${index}].period ${limit.period} is given twice: one limit per period.`,
      );
    seen.add(limit.period);
    return {
      period: limit.period,
      amount: readMoney(limit.limit_amount, currencyOf(currency), `${field}[${index}].limit_amount`).minor,
    };
  });
  return limits.sort((a, b) => LIMIT_PERIODS.indexOf(a.period) - LIMIT_PERIODS.indexOf(b.period));
}

export function parseLimits(json: string): CardLimit[] {
  return JSON.parse(json) as CardLimit[];
}
