/**
 * The recurring-billing calendar: when a plan bills, which period each billing pays for, and what share of the
 * price a partial period or a cancellation is worth. Pure functions on epoch milliseconds: the billing engine owns
 * the clock, the store and the orders, this file owns only the arithmetic, so every rule can be tested in isolation.
 *
 * All calendar arithmetic happens in the merchant's IANA time zone, on local dates: "one month later" and "how many
 * days" mean what the merchant's customers read on their calendars, not multiples of 24 hours, so a daylight saving
 * change neither moves a billing's local time of day nor changes a day count.
 *
 * Amounts are integers in minor units as `bigint` (never floats), so a share of a price is exact before rounding.
 */
import { instantOf, localTime } from '../platform/time-zone.js';

export type BillingInterval = 'daily' | 'weekly' | 'monthly' | 'yearly';
export type BillingType = 'automated' | 'customized';

/** What a plan says about its billings, in the calendar's terms (see {@link billingRuleOf} for the stored fields). */
export interface BillingRule {
  interval: BillingInterval;
  /** Bills every `intervalCount` intervals; at least 1. */
  intervalCount: number;
  /** `automated`: anchored on the cycle's start. `customized` (monthly or yearly only): on a fixed day of the month. */
  type: BillingType;
  /** Customized only: the billing day, 1-31, clamped to the last day of shorter months. */
  dayOfMonth?: number | undefined;
  /** Customized yearly only: the billing month, 1-12. */
  month?: number | undefined;
  /** Customized only: whether the partial period before the first billing day is charged (prorated) or free. */
  proration: boolean;
}

/** A plan's billing configuration as the interface names it. */
export interface BillingConfig {
  billing_interval: BillingInterval;
  interval_count: number;
  billing_type: BillingType;
  billing_day_of_month?: number | null | undefined;
  billing_month?: number | null | undefined;
  billing_proration_enabled: boolean;
}

/** A day on the merchant's calendar. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** One billing cycle of a plan: the rule, when the cycle starts, in which zone, and what stops it. */
export interface BillingCycle {
  rule: BillingRule;
  /**
   * The cycle's start instant: an automated plan bills here first; a customized one counts its partial period from
   * here.
   */
  start: number;
  /** The merchant's IANA time zone. */
  zone: string;
  /** `interval_counts`: how many full periods the cycle bills (a prorated partial period is not one of them). */
  intervalCounts?: number | undefined;
  /** `estimated_end_date`: no billing is made at or after this instant. */
  endDate?: number | undefined;
}

/** What a billing pays for: a full period, or the partial one before a customized plan's first billing day. */
export type BillingShare =
  | { kind: 'full' }
  | {
      kind: 'partial' /** calendar days of the partial period */;
      days: number /** calendar days of the full period it is a share of */;
      ofDays: number;
    };

/**
 * One billing of a cycle: when to charge, the period [periodStart, periodEnd) it pays for, and which share of the
 * price.
 */
export type Billing = BillingShare & {
  /** 1, 2, 3…: the position among the charges this cycle actually makes, the prorated partial charge included. */
  sequence: number;
  /** Which full period this pays for (1 for the first), or 0 for the partial period. */
  period: number;
  /** The instant to charge. */
  at: number;
  periodStart: number;
  /** The next billing time (or, for the partial period, the first billing day's): the period's end, exclusive. */
  periodEnd: number;
};

/** A partial period: from the cycle's start to the first billing day of a customized plan. */
export interface PartialPeriod {
  start: number;
  end: number;
  /** Calendar days from the start's local date to the first billing day. */
  days: number;
  /** Calendar days of the full period that ends on the first billing day: the denominator of its price share. */
  ofDays: number;
}

const DAY_MS = 86_400_000;
const INTERVALS: readonly BillingInterval[] = ['daily', 'weekly', 'monthly', 'yearly'];

/**
 * Throws unless `rule` is one the calendar can compute. The interface validates plans with proper refusals before
 * they reach here; this catches a caller that skipped that, rather than letting it bill on a wrong date.
 */
export function assertBillingRule(rule: BillingRule): void {
  const fail = (why: string): never => {
    throw new RangeError(`invalid billing rule: ${why}`);
  };
  if (!INTERVALS.includes(rule.interval)) fail(`interval ${String(rule.interval)}`);
  if (!Number.isSafeInteger(rule.intervalCount) || rule.intervalCount < 1)
    fail(`interval count ${rule.intervalCount} is not a whole number ≥ 1`);
  if (rule.type === 'automated') {
    if (rule.dayOfMonth !== undefined || rule.month !== undefined)
      fail('an automated plan bills on its start date, not on a day of the month');
    return;
  }
  if (rule.type !== 'customized') fail(`type ${String(rule.type)}`);
  if (rule.interval !== 'monthly' && rule.interval !== 'yearly')
    fail(`a customized plan bills monthly or yearly, not ${rule.interval}`);
  if (!isWholeIn(rule.dayOfMonth, 1, 31)) fail(`day of month ${String(rule.dayOfMonth)} is not 1-31`);
  if (rule.interval === 'yearly' && !isWholeIn(rule.month, 1, 12)) fail(`month ${String(rule.month)} is not 1-12`);
  if (rule.interval === 'monthly' && rule.month !== undefined)
    fail('a monthly plan bills every month, not in one month');
}

/** The rule of a stored billing configuration (absent or null day and month fields mean none), checked. */
export function billingRuleOf(config: BillingConfig): BillingRule {
  const rule: BillingRule = {
    interval: config.billing_interval,
    intervalCount: config.interval_count,
    type: config.billing_type,
    dayOfMonth: config.billing_day_of_month ?? undefined,
    month: config.billing_month ?? undefined,
    proration: config.billing_proration_enabled,
  };
  assertBillingRule(rule);
  return rule;
}

/** How many days `month` (1-12) of `year` has: the last day a billing day is clamped to. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Calendar days from the local date of `from` to the local date of `to` in `zone` (negative when `to` is earlier).
 * The times of day don't matter, and neither does daylight saving: the day the clocks go forward has 23 hours but
 * still counts as one day, which is what a customer paying for "days" expects.
 */
export function localDaysBetween(from: number, to: number, zone: string): number {
  return dayNumber(dateAt(to, zone)) - dayNumber(dateAt(from, zone));
}

/**
 * The k-th regular billing instant of a cycle starting at `cycleStart` (k = 0 for the first), recomputed from the
 * start every time rather than from the previous billing, so a clamped day never becomes the new anchor: a monthly
 * plan started on 31 January bills on 28 February, then 31 March again.
 *
 * - automated: k × intervalCount intervals after the start's local date (daily and weekly add local days; monthly
 *   and yearly keep the start's day, clamped to the month's last day), so k = 0 is the start itself.
 * - customized: k × intervalCount months (or years) after the first billing day, on `dayOfMonth` (of `month`),
 *   clamped. The first billing day is the first such day on or after the start's local date: a cycle that starts
 *   on a billing day bills that day, at its start, and has no partial period.
 *
 * Every billing keeps the local time of day of the cycle's start, for customized plans too (they have no time of day
 * of their own, and the start's is the one the customer chose, usually when they subscribed). A local time that a
 * daylight saving jump skips is moved forward by the jump, and one that occurs twice is the first, as
 * {@link instantOf} does; the start's local time is used again on the next date, so the shift never accumulates.
 */
export function billingTime(rule: BillingRule, cycleStart: number, k: number, zone: string): number {
  assertBillingRule(rule);
  if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`billing index ${k} is not a whole number ≥ 0`);
  return regularBillingTime(rule, cycleStart, k, zone);
}

/**
 * The partial period of a customized plan whose cycle starts between billing days: from the start to the first
 * billing day, with the day counts its prorated price is computed from. The full period it is a share of is the one
 * that ends on the first billing day: from one interval before it (clamped the same way) to it. Undefined for an
 * automated plan, or a customized one that starts on a billing day. Whether it is charged is the rule's `proration`.
 */
export function partialPeriod(rule: BillingRule, cycleStart: number, zone: string): PartialPeriod | undefined {
  assertBillingRule(rule);
  if (rule.type !== 'customized') return undefined;
  const start = dateAt(cycleStart, zone);
  const first = firstBillingDate(rule, start);
  if (dayNumber(first) === dayNumber(start)) return undefined;
  const before = monthsLater(first, -monthsPerInterval(rule), rule.dayOfMonth!);
  return {
    start: cycleStart,
    end: regularBillingTime(rule, cycleStart, 0, zone),
    days: dayNumber(first) - dayNumber(start),
    ofDays: dayNumber(first) - dayNumber(before),
  };
}

/**
 * `price × days / ofDays`, rounded half-up to the minor unit, in integers: the share of a period's price that `days`
 * of its `ofDays` days are worth (a partial period's charge, a cancellation's credit). Half-up, not to even, so a
 * customer is never charged differently for the same share depending on the price's last digit.
 */
export function prorate(price: bigint, days: number, ofDays: number): bigint {
  if (price < 0n) throw new RangeError(`cannot prorate a negative price ${price}`);
  if (!Number.isSafeInteger(ofDays) || ofDays < 1) throw new RangeError(`a period of ${ofDays} days`);
  if (!Number.isSafeInteger(days) || days < 0 || days > ofDays)
    throw new RangeError(`${days} days of a ${ofDays}-day period`);
  const denominator = BigInt(ofDays);
  return (price * BigInt(days) * 2n + denominator) / (2n * denominator);
}

/** What a billing charges for a period priced at `price`: all of it, or the partial period's prorated share. */
export function amountDue(billing: BillingShare, price: bigint): bigint {
  return billing.kind === 'full' ? price : prorate(price, billing.days, billing.ofDays);
}

/**
 * The credit for the unused part of a paid period when the plan is cancelled at `cancelledAt`: `amount` × (whole
 * days left after the cancellation day until the period's end) / (days of the period), half-up. The cancellation
 * day itself counts as used, and the end day belongs to the next period: a period from 1 to 29 February 2025 has 28
 * days, and cancelling on 10 February leaves 11-28 February, 18 days. Cancelling before the period's first day
 * credits all of it; on or after its last day, nothing.
 */
export function refundCredit(
  periodStart: number,
  periodEnd: number,
  cancelledAt: number,
  zone: string,
  amount: bigint,
): bigint {
  const periodDays = localDaysBetween(periodStart, periodEnd, zone);
  const daysLeft = Math.min(periodDays, Math.max(0, localDaysBetween(cancelledAt, periodEnd, zone) - 1));
  return prorate(amount, daysLeft, periodDays);
}

/**
 * The billings of a cycle after the instant `after` (all of them by default), in time order, lazily: a cycle with
 * neither `intervalCounts` nor `endDate` never ends. First, for a customized plan with proration that starts between
 * billing days, the partial period's charge at the start; then one billing per full period, at its start.
 *
 * Stops after `intervalCounts` full periods, and before any billing at or after `endDate` (the partial charge too).
 * Starting from a later `after` skips to it without walking the billings before it, so the engine can ask again
 * each time it runs.
 */
export function* billings(cycle: BillingCycle, after = -Infinity): Generator<Billing, void, undefined> {
  assertCycle(cycle);
  const { rule, start, zone, intervalCounts, endDate } = cycle;
  const partial = rule.proration ? partialPeriod(rule, start, zone) : undefined;
  const chargesPartial = partial !== undefined && (endDate === undefined || start < endDate);
  if (chargesPartial && start > after) {
    yield {
      kind: 'partial',
      days: partial.days,
      ofDays: partial.ofDays,
      sequence: 1,
      period: 0,
      at: start,
      periodStart: start,
      periodEnd: partial.end,
    };
  }
  const before = chargesPartial ? 1 : 0;
  let k = firstPeriodAfter(rule, start, zone, after);
  let at = regularBillingTime(rule, start, k, zone);
  for (; intervalCounts === undefined || k < intervalCounts; k += 1) {
    if (endDate !== undefined && at >= endDate) return;
    const next = regularBillingTime(rule, start, k + 1, zone);
    yield { kind: 'full', sequence: before + k + 1, period: k + 1, at, periodStart: at, periodEnd: next };
    at = next;
  }
}

/**
 * The billings due by `clock` (at or before it) that come after `after` (the instant the engine last billed up
 * to; all of them by default), in the order they must be made.
 */
export function billingsDue(cycle: BillingCycle, clock: number, after = -Infinity): Billing[] {
  const due: Billing[] = [];
  for (const billing of billings(cycle, after)) {
    if (billing.at > clock) break;
    due.push(billing);
  }
  return due;
}

/**
 * The first billing strictly after `after`, whose `at` is the plan's next execution time; undefined once the cycle
 * bills no more.
 */
export function nextBillingAfter(cycle: BillingCycle, after: number): Billing | undefined {
  const next = billings(cycle, after).next();
  return next.done ? undefined : next.value;
}

/**
 * When the cycle ends, which is when the next one starts: at the end of its `intervalCounts`-th full period (the end
 * of the last period it bills), or at `endDate`, whichever is earlier; undefined for a cycle that never ends. With
 * `endDate`, the last billing (the last one before it) pays for a period that may run past the cycle's end: the
 * calendar reports both, and leaves what to do about the overlap to the engine.
 */
export function cycleEnd(cycle: BillingCycle): number | undefined {
  assertCycle(cycle);
  const afterCounts =
    cycle.intervalCounts === undefined
      ? undefined
      : regularBillingTime(cycle.rule, cycle.start, cycle.intervalCounts, cycle.zone);
  if (afterCounts === undefined) return cycle.endDate;
  return cycle.endDate === undefined ? afterCounts : Math.min(afterCounts, cycle.endDate);
}

function assertCycle(cycle: BillingCycle): void {
  assertBillingRule(cycle.rule);
  if (!Number.isFinite(cycle.start)) throw new RangeError(`cycle start ${cycle.start} is not an instant`);
  if (cycle.intervalCounts !== undefined && (!Number.isSafeInteger(cycle.intervalCounts) || cycle.intervalCounts < 1)) {
    throw new RangeError(`interval counts ${cycle.intervalCounts} is not a whole number ≥ 1`);
  }
  if (cycle.endDate !== undefined && !(cycle.endDate > cycle.start))
    throw new RangeError('a cycle must end after it starts');
}

/** {@link billingTime} for a rule already checked. */
function regularBillingTime(rule: BillingRule, cycleStart: number, k: number, zone: string): number {
  const start = localTime(cycleStart, zone);
  const date = regularBillingDate(rule, start, k);
  // The start itself, not its local reading converted back: that keeps its milliseconds, and picks the right one of
  // a local time that occurs twice.
  if (dayNumber(date) === dayNumber(start)) return cycleStart;
  const milliseconds = ((cycleStart % 1000) + 1000) % 1000;
  return instantOf({ ...date, hour: start.hour, minute: start.minute, second: start.second }, zone) + milliseconds;
}

function regularBillingDate(rule: BillingRule, start: CalendarDate, k: number): CalendarDate {
  const steps = k * rule.intervalCount;
  if (rule.type === 'customized')
    return monthsLater(firstBillingDate(rule, start), k * monthsPerInterval(rule), rule.dayOfMonth!);
  switch (rule.interval) {
    case 'daily':
      return daysLater(start, steps);
    case 'weekly':
      return daysLater(start, 7 * steps);
    case 'monthly':
      return monthsLater(start, steps, start.day);
    case 'yearly':
      return monthsLater(start, 12 * steps, start.day);
  }
}

/** A customized plan's first billing day: its day (of its month), clamped, on or after the start's local date. */
function firstBillingDate(rule: BillingRule, start: CalendarDate): CalendarDate {
  const step = rule.interval === 'yearly' ? 12 : 1;
  const candidate = monthsLater(
    { year: start.year, month: rule.interval === 'yearly' ? rule.month! : start.month },
    0,
    rule.dayOfMonth!,
  );
  return dayNumber(candidate) >= dayNumber(start) ? candidate : monthsLater(candidate, step, rule.dayOfMonth!);
}

function monthsPerInterval(rule: BillingRule): number {
  return (rule.interval === 'yearly' ? 12 : 1) * rule.intervalCount;
}

/**
 * The smallest k whose regular billing is after `after`: billing times only grow with k, so search rather than walk.
 */
function firstPeriodAfter(rule: BillingRule, cycleStart: number, zone: string, after: number): number {
  // Billing 0 is the start for an automated plan, but the first billing day, later, for a customized one.
  if (regularBillingTime(rule, cycleStart, 0, zone) > after) return 0;
  let low = 0; // invariant: billing `low` is at or before `after`, billing `high` after it
  let high = 1;
  while (regularBillingTime(rule, cycleStart, high, zone) <= after) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (regularBillingTime(rule, cycleStart, middle, zone) <= after) low = middle;
    else high = middle;
  }
  return high;
}

function dateAt(at: number, zone: string): CalendarDate {
  const { year, month, day } = localTime(at, zone);
  return { year, month, day };
}

/** Days since 1970-01-01 of a calendar date: differences of these are calendar days. */
function dayNumber(date: CalendarDate): number {
  return Date.UTC(date.year, date.month - 1, date.day) / DAY_MS;
}

function daysLater(date: CalendarDate, days: number): CalendarDate {
  const at = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() };
}

/**
 * The date `months` months after the month of `from`, on `day`, or on that month's last day when it is shorter.
 * `day` is the anchor (the plan's day, never a clamped one), which is why the clamp never drifts.
 */
function monthsLater(from: { year: number; month: number }, months: number, day: number): CalendarDate {
  const index = from.year * 12 + (from.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(day, daysInMonth(year, month)) };
}

function isWholeIn(value: number | undefined, min: number, max: number): boolean {
  return value !== undefined && Number.isSafeInteger(value) && value >= min && value <= max;
}
