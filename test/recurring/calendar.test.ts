import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instantOf, localDate, localTime } from '../../src/platform/time-zone.js';
import {
  amountDue,
  assertBillingRule,
  type Billing,
  type BillingCycle,
  type BillingInterval,
  type BillingRule,
  billingRuleOf,
  billings,
  billingsDue,
  billingTime,
  cycleEnd,
  localDaysBetween,
  nextBillingAfter,
  partialPeriod,
  prorate,
  refundCredit,
} from '../../src/recurring/calendar.js';

const HK = 'Asia/Hong_Kong'; // UTC+8 all year
const LONDON = 'Europe/London'; // 2025: GMT → BST at 01:00 on 30 March, back at 02:00 on 26 October
const HOUR = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();
const local = (zone: string, year: number, month: number, day: number, hour = 10, minute = 0) =>
  instantOf({ year, month, day, hour, minute }, zone);
const automated = (interval: BillingInterval, intervalCount = 1): BillingRule => ({
  interval,
  intervalCount,
  type: 'automated',
  proration: false,
});
const monthlyOn = (dayOfMonth: number, options: { intervalCount?: number; proration?: boolean } = {}): BillingRule => ({
  interval: 'monthly',
  intervalCount: options.intervalCount ?? 1,
  type: 'customized',
  dayOfMonth,
  proration: options.proration ?? true,
});
const yearlyOn = (month: number, dayOfMonth: number, intervalCount = 1): BillingRule => ({
  interval: 'yearly',
  intervalCount,
  type: 'customized',
  month,
  dayOfMonth,
  proration: true,
});
/** The local dates of billings k = 0 … count - 1. */
const billingDates = (rule: BillingRule, start: number, zone: string, count: number) =>
  Array.from({ length: count }, (_, k) => localDate(billingTime(rule, start, k, zone), zone));
/** A billing in a form one line of expectations can state. */
const summary = (billing: Billing, zone: string) => [
  billing.sequence,
  billing.period,
  billing.kind,
  localDate(billing.at, zone),
  localDate(billing.periodStart, zone),
  localDate(billing.periodEnd, zone),
];
/** Days in a month, by the Gregorian rule spelled out, not through Date (which the calendar uses). */
const monthLength = (year: number, month: number) =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

describe('the recurring-billing calendar', () => {
  describe('automated plans: anchored on the start', () => {
    test('monthly from 31 January keeps day 31, clamped to the last day of shorter months (common year)', () => {
      const start = local(HK, 2025, 1, 31); // 10:00 HKT = 02:00Z
      assert.deepEqual(billingDates(automated('monthly'), start, HK, 13), [
        '2025-01-31',
        '2025-02-28',
        '2025-03-31',
        '2025-04-30',
        '2025-05-31',
        '2025-06-30',
        '2025-07-31',
        '2025-08-31',
        '2025-09-30',
        '2025-10-31',
        '2025-11-30',
        '2025-12-31',
        '2026-01-31',
      ]);
      assert.equal(billingTime(automated('monthly'), start, 0, HK), start);
      assert.equal(iso(billingTime(automated('monthly'), start, 1, HK)), '2025-02-28T02:00:00.000Z');
      assert.equal(iso(billingTime(automated('monthly'), start, 2, HK)), '2025-03-31T02:00:00.000Z');
    });

    test('monthly from 31 January of a leap year bills on 29 February', () => {
      assert.deepEqual(billingDates(automated('monthly'), local(HK, 2024, 1, 31), HK, 5), [
        '2024-01-31',
        '2024-02-29',
        '2024-03-31',
        '2024-04-30',
        '2024-05-31',
      ]);
    });

    test('yearly from 29 February bills on 28 February in common years and 29 February in leap years', () => {
      const start = local(HK, 2024, 2, 29);
      assert.deepEqual(billingDates(automated('yearly'), start, HK, 6), [
        '2024-02-29',
        '2025-02-28',
        '2026-02-28',
        '2027-02-28',
        '2028-02-29',
        '2029-02-28',
      ]);
      assert.deepEqual(billingDates(automated('yearly', 4), start, HK, 3), ['2024-02-29', '2028-02-29', '2032-02-29']);
    });

    test('every 3 months from 30 November: 28 February, then day 30 again', () => {
      assert.deepEqual(billingDates(automated('monthly', 3), local(HK, 2024, 11, 30), HK, 6), [
        '2024-11-30',
        '2025-02-28',
        '2025-05-30',
        '2025-08-30',
        '2025-11-30',
        '2026-02-28',
      ]);
    });

    test('daily and weekly add local days: the local time of day survives daylight saving (23- and 25-hour days)', () => {
      // 09:00 GMT on 28 March is 09:00Z; from 30 March 09:00 BST is 08:00Z. The 29→30 March step is 23 hours.
      const spring = local(LONDON, 2025, 3, 28, 9);
      const daily = Array.from({ length: 4 }, (_, k) => billingTime(automated('daily'), spring, k, LONDON));
      assert.deepEqual(daily.map(iso), [
        '2025-03-28T09:00:00.000Z',
        '2025-03-29T09:00:00.000Z',
        '2025-03-30T08:00:00.000Z',
        '2025-03-31T08:00:00.000Z',
      ]);
      assert.equal(daily[2]! - daily[1]!, 23 * HOUR);
      // 09:00 BST on 25 October is 08:00Z; 09:00 GMT on 26 October is 09:00Z: a 25-hour step.
      const autumn = local(LONDON, 2025, 10, 25, 9);
      assert.equal(billingTime(automated('daily'), autumn, 1, LONDON) - autumn, 25 * HOUR);
      // Weekly from Monday 20 October 09:00 BST (08:00Z) to Monday 27 October 09:00 GMT (09:00Z): 7 × 24 + 1 hours.
      const weekly = local(LONDON, 2025, 10, 20, 9);
      assert.equal(iso(billingTime(automated('weekly'), weekly, 1, LONDON)), '2025-10-27T09:00:00.000Z');
      assert.equal(billingTime(automated('weekly'), weekly, 1, LONDON) - weekly, 169 * HOUR);
      // Every 2 weeks from 17 March 09:00 GMT: 31 March 09:00 BST (08:00Z), 14 April.
      assert.deepEqual(
        [1, 2].map((k) => iso(billingTime(automated('weekly', 2), local(LONDON, 2025, 3, 17, 9), k, LONDON))),
        ['2025-03-31T08:00:00.000Z', '2025-04-14T08:00:00.000Z'],
      );
    });

    test('a local time the clocks skip moves forward that day only; one that occurs twice is the first', () => {
      // Daily at 01:30 from 29 March (01:30 GMT = 01:30Z). 30 March 01:30 does not exist: 02:30 BST = 01:30Z.
      // 31 March is back to 01:30, BST = 00:30Z: the skip does not carry over.
      const start = local(LONDON, 2025, 3, 29, 1, 30);
      assert.deepEqual(
        [0, 1, 2].map((k) => iso(billingTime(automated('daily'), start, k, LONDON))),
        ['2025-03-29T01:30:00.000Z', '2025-03-30T01:30:00.000Z', '2025-03-31T00:30:00.000Z'],
      );
      // 26 October 01:30 happens at 00:30Z (BST) and again at 01:30Z (GMT): the first one.
      const autumn = local(LONDON, 2025, 10, 25, 1, 30);
      assert.deepEqual(
        [1, 2].map((k) => iso(billingTime(automated('daily'), autumn, k, LONDON))),
        ['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z'],
      );
      // A start at the second 01:30 of 26 October is itself billing 0, exactly.
      const secondOccurrence = Date.parse('2025-10-26T01:30:00Z');
      assert.equal(billingTime(automated('daily'), secondOccurrence, 0, LONDON), secondOccurrence);
    });

    test('keeps the start time of day to the millisecond', () => {
      const start = Date.parse('2025-01-31T02:00:07.250Z'); // 10:00:07.250 HKT
      assert.equal(iso(billingTime(automated('monthly'), start, 1, HK)), '2025-02-28T02:00:07.250Z');
      assert.equal(iso(billingTime(automated('daily'), start, 1, HK)), '2025-02-01T02:00:07.250Z');
    });

    test('a full year of daily billings at 01:30 in London: 363 days of 24 hours, one of 23 and one of 25', () => {
      const start = local(LONDON, 2025, 1, 1, 1, 30);
      const times = Array.from({ length: 366 }, (_, k) => billingTime(automated('daily'), start, k, LONDON));
      const steps = new Map<number, number>();
      for (let k = 1; k < times.length; k += 1) {
        const hours = (times[k]! - times[k - 1]!) / HOUR;
        steps.set(hours, (steps.get(hours) ?? 0) + 1);
        assert.equal(localDaysBetween(start, times[k]!, LONDON), k);
        const { hour, minute } = localTime(times[k]!, LONDON);
        // Only 30 March reads 02:30: its 01:30 does not exist.
        assert.deepEqual(
          [hour, minute],
          localDate(times[k]!, LONDON) === '2025-03-30' ? [2, 30] : [1, 30],
          localDate(times[k]!, LONDON),
        );
      }
      // 30 → 31 March: 01:30Z → 00:30Z, 23 hours; 26 → 27 October: 00:30Z → 01:30Z, 25 hours.
      assert.deepEqual(Object.fromEntries(steps), { 23: 1, 24: 363, 25: 1 });
    });

    test('property: monthly billings never drift, for a start on every day of 2023-2025, and strictly increase', () => {
      let checked = 0;
      for (let day = Date.UTC(2023, 0, 1); day <= Date.UTC(2025, 11, 31); day += 86_400_000) {
        const date = new Date(day);
        const [year, month, anchor] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
        const start = local(LONDON, year, month, anchor, 9, 15);
        let previous = -Infinity;
        for (let k = 0; k <= 24; k += 1) {
          const at = billingTime(automated('monthly'), start, k, LONDON);
          const seen = localTime(at, LONDON);
          const index = year * 12 + month - 1 + k;
          const [expectedYear, expectedMonth] = [Math.floor(index / 12), (index % 12) + 1];
          const expected = [
            expectedYear,
            expectedMonth,
            Math.min(anchor, monthLength(expectedYear, expectedMonth)),
            9,
            15,
          ];
          assert.deepEqual(
            [seen.year, seen.month, seen.day, seen.hour, seen.minute],
            expected,
            `${year}-${month}-${anchor} k=${k}`,
          );
          assert.ok(at > previous, `${year}-${month}-${anchor} k=${k} is not after k-1`);
          previous = at;
          checked += 1;
        }
      }
      assert.equal(checked, 1096 * 25); // 2023, 2024 (leap), 2025
    });
  });

  describe('customized plans: on a day of the month', () => {
    test('monthly on day 31: the first billing day after the start, then clamped, at the start time of day', () => {
      const start = local(HK, 2025, 1, 15); // 10:00 HKT
      const rule = monthlyOn(31);
      assert.deepEqual(billingDates(rule, start, HK, 6), [
        '2025-01-31',
        '2025-02-28',
        '2025-03-31',
        '2025-04-30',
        '2025-05-31',
        '2025-06-30',
      ]);
      assert.equal(iso(billingTime(rule, start, 0, HK)), '2025-01-31T02:00:00.000Z');
      assert.equal(iso(billingTime(rule, start, 1, HK)), '2025-02-28T02:00:00.000Z');
      // Partial period 15 → 31 January: 16 days, of the full period 31 December → 31 January: 31 days.
      assert.deepEqual(partialPeriod(rule, start, HK), {
        start,
        end: billingTime(rule, start, 0, HK),
        days: 16,
        ofDays: 31,
      });
      // From 1 February: first billing 28 February; 27 days of the period 31 January → 28 February, 28 days.
      const february = local(HK, 2025, 2, 1);
      assert.deepEqual(billingDates(rule, february, HK, 2), ['2025-02-28', '2025-03-31']);
      assert.deepEqual(partialPeriod(rule, february, HK), {
        start: february,
        end: billingTime(rule, february, 0, HK),
        days: 27,
        ofDays: 28,
      });
      // Leap year, from 10 February 2024: 29 February; 19 days of 31 January → 29 February, 29 days.
      assert.deepEqual(partialPeriod(rule, local(HK, 2024, 2, 10), HK)?.days, 19);
      assert.deepEqual(partialPeriod(rule, local(HK, 2024, 2, 10), HK)?.ofDays, 29);
    });

    test('a start on a billing day (28 February is day 31 clamped) bills at the start: no partial period', () => {
      const start = local(HK, 2025, 2, 28, 16, 45);
      assert.equal(billingTime(monthlyOn(31), start, 0, HK), start);
      assert.equal(partialPeriod(monthlyOn(31), start, HK), undefined);
      assert.equal(iso(billingTime(monthlyOn(31), start, 1, HK)), '2025-03-31T08:45:00.000Z');
      // Later the same day still counts as the billing day; the next day does not.
      assert.equal(partialPeriod(monthlyOn(1), local(HK, 2025, 3, 1, 23, 59), HK), undefined);
      assert.equal(billingDates(monthlyOn(1), local(HK, 2025, 3, 2), HK, 1)[0], '2025-04-01');
    });

    test('every 3 months on day 15, counted from the first billing day', () => {
      const start = local(HK, 2025, 1, 20);
      const rule = monthlyOn(15, { intervalCount: 3 });
      assert.deepEqual(billingDates(rule, start, HK, 4), ['2025-02-15', '2025-05-15', '2025-08-15', '2025-11-15']);
      // 20 January → 15 February: 26 days; 15 November → 15 February: 30 + 31 + 31 = 92 days.
      assert.deepEqual(partialPeriod(rule, start, HK), {
        start,
        end: billingTime(rule, start, 0, HK),
        days: 26,
        ofDays: 92,
      });
    });

    test('yearly in February on day 30: 29 February in leap years, 28 February otherwise', () => {
      const start = local(HK, 2023, 6, 10);
      assert.deepEqual(billingDates(yearlyOn(2, 30), start, HK, 5), [
        '2024-02-29',
        '2025-02-28',
        '2026-02-28',
        '2027-02-28',
        '2028-02-29',
      ]);
      // 10 June 2023 → 29 February 2024: 20 (to 30 June) + 31 + 31 + 30 + 31 + 30 + 31 (July-December) + 31 + 29 = 264
      // days.
      // Full period 28 February 2023 → 29 February 2024: 365 + 1 = 366 days.
      assert.deepEqual(partialPeriod(yearlyOn(2, 30), start, HK), {
        start,
        end: billingTime(yearlyOn(2, 30), start, 0, HK),
        days: 264,
        ofDays: 366,
      });
      // From 1 March 2024 the first is 28 February 2025: 364 days of 29 February 2024 → 28 February 2025, 365.
      assert.deepEqual(partialPeriod(yearlyOn(2, 30), local(HK, 2024, 3, 1), HK)?.days, 364);
      assert.deepEqual(partialPeriod(yearlyOn(2, 30), local(HK, 2024, 3, 1), HK)?.ofDays, 365);
      // From 29 February 2024 itself: a billing day.
      assert.equal(partialPeriod(yearlyOn(2, 30), local(HK, 2024, 2, 29), HK), undefined);
      // Every 2 years: 2024, 2026, 2028; the full period before the first is 28 February 2022 → 29 February 2024, 731
      // days.
      assert.deepEqual(billingDates(yearlyOn(2, 30, 2), start, HK, 3), ['2024-02-29', '2026-02-28', '2028-02-29']);
      assert.equal(partialPeriod(yearlyOn(2, 30, 2), start, HK)?.ofDays, 731);
    });

    test('property: for a start on every day of 2024, the first billing day is the earliest on or after it, and none drift', () => {
      for (const dayOfMonth of [1, 15, 28, 29, 30, 31]) {
        const rule = monthlyOn(dayOfMonth);
        for (let day = Date.UTC(2024, 0, 1); day <= Date.UTC(2024, 11, 31); day += 86_400_000) {
          const date = new Date(day);
          const [year, month, startDay] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
          const start = local(HK, year, month, startDay);
          const label = `day ${dayOfMonth} from 2024-${month}-${startDay}`;
          // The billing day of this month if it is not yet past, else next month's.
          const thisMonths = Math.min(dayOfMonth, monthLength(year, month));
          const firstMonth = thisMonths >= startDay ? month : month + 1; // 2024-12 + 1 → 2025-01 below
          let previous = -Infinity;
          for (let k = 0; k <= 12; k += 1) {
            const at = billingTime(rule, start, k, HK);
            const index = year * 12 + firstMonth - 1 + k;
            const [expectedYear, expectedMonth] = [Math.floor(index / 12), (index % 12) + 1];
            const seen = localTime(at, HK);
            assert.deepEqual(
              [seen.year, seen.month, seen.day, seen.hour, seen.minute],
              [expectedYear, expectedMonth, Math.min(dayOfMonth, monthLength(expectedYear, expectedMonth)), 10, 0],
              `${label} k=${k}`,
            );
            assert.ok(at > previous, `${label} k=${k}`);
            previous = at;
          }
          const partial = partialPeriod(rule, start, HK);
          const days = localDaysBetween(start, billingTime(rule, start, 0, HK), HK);
          if (days === 0) {
            assert.equal(partial, undefined, label);
          } else {
            assert.equal(partial?.days, days, label);
            assert.ok(partial!.days < partial!.ofDays, label);
            assert.ok(partial!.ofDays >= 28 && partial!.ofDays <= 31, label);
          }
        }
      }
    });
  });

  describe('money: prorated partial periods and refund credits', () => {
    test('prorate is price × days / ofDays, rounded half-up in integers', () => {
      // HKD, 2 decimals: 100.00 = 10000n.
      assert.equal(prorate(10000n, 16, 31), 5161n); // 160000 / 31 = 5161.29
      assert.equal(prorate(10000n, 27, 28), 9643n); // 270000 / 28 = 9642.857
      assert.equal(prorate(10000n, 26, 92), 2826n); // 260000 / 92 = 2826.09
      assert.equal(prorate(10000n, 264, 366), 7213n); // 2640000 / 366 = 7213.11
      assert.equal(prorate(10001n, 14, 28), 5001n); // 140014 / 28 = 5000.5: half-up (to even would be 5000)
      // JPY, no decimals: ¥1000 = 1000n.
      assert.equal(prorate(1000n, 16, 31), 516n); // 16000 / 31 = 516.13
      assert.equal(prorate(1000n, 10, 31), 323n); // 10000 / 31 = 322.58
      assert.equal(prorate(1000n, 264, 366), 721n); // 264000 / 366 = 721.31
      assert.equal(prorate(1001n, 14, 28), 501n); // 500.5: half-up
      assert.equal(prorate(999n, 14, 28), 500n); // 499.5: half-up
      assert.equal(prorate(5n, 1, 2), 3n); // 2.5
      assert.equal(prorate(1000n, 0, 31), 0n);
      assert.equal(prorate(1000n, 31, 31), 1000n);
      // Exact beyond 2^53: 10^20 minor units × 1/3.
      assert.equal(prorate(10n ** 20n, 1, 3), 33333333333333333333n);
      assert.throws(() => prorate(-1n, 1, 2), RangeError);
      assert.throws(() => prorate(100n, 3, 2), RangeError);
      assert.throws(() => prorate(100n, 0, 0), RangeError);
      assert.throws(() => prorate(100n, 0.5, 2), RangeError);
    });

    test('the partial charge of a customized plan: HKD and JPY', () => {
      // Monthly on day 1 from 15 February 2025: 14 days of the 28-day period 1 February → 1 March.
      const start = local(HK, 2025, 2, 15);
      const [partial] = billings({ rule: monthlyOn(1), start, zone: HK });
      assert.deepEqual(partial?.kind === 'partial' && [partial.days, partial.ofDays], [14, 28]);
      assert.equal(amountDue(partial!, 10000n), 5000n);
      assert.equal(amountDue(partial!, 10001n), 5001n); // 5000.5
      assert.equal(amountDue(partial!, 1001n), 501n); // JPY 500.5
      // Monthly on day 31 from 15 January 2025: 16 of 31 days.
      const [january] = billings({ rule: monthlyOn(31), start: local(HK, 2025, 1, 15), zone: HK });
      assert.equal(amountDue(january!, 10000n), 5161n);
      assert.equal(amountDue(january!, 1000n), 516n);
      assert.equal(amountDue({ kind: 'full' }, 10000n), 10000n);
    });

    test('refund credit: whole days after the cancellation day until the period ends, of the period', () => {
      // 1 February → 1 March 2025, 10:00 HKT: 28 days.
      const [from, to] = [local(HK, 2025, 2, 1), local(HK, 2025, 3, 1)];
      // Cancelled 10 February: 11-28 February left, 18 days. 180000 / 28 = 6428.57; JPY 18000 / 28 = 642.86.
      assert.equal(refundCredit(from, to, local(HK, 2025, 2, 10, 15), HK, 10000n), 6429n);
      assert.equal(refundCredit(from, to, local(HK, 2025, 2, 10, 15), HK, 1000n), 643n);
      // Cancelled 14 February: 14 days left; 10001 × 14 / 28 = 5000.5 → 5001.
      assert.equal(refundCredit(from, to, local(HK, 2025, 2, 14), HK, 10001n), 5001n);
      // On the first day (even before the billing hour): that day is used, 27 left. 270000 / 28 = 9642.86.
      assert.equal(refundCredit(from, to, local(HK, 2025, 2, 1, 9), HK, 10000n), 9643n);
      // On the last day, or on the end day before the next billing: nothing left.
      assert.equal(refundCredit(from, to, local(HK, 2025, 2, 28, 23, 59), HK, 10000n), 0n);
      assert.equal(refundCredit(from, to, local(HK, 2025, 3, 1, 9), HK, 10000n), 0n);
      assert.equal(refundCredit(from, to, local(HK, 2025, 4, 1), HK, 10000n), 0n);
      // Before the period's first day: all of it.
      assert.equal(refundCredit(from, to, local(HK, 2025, 1, 31), HK, 10000n), 10000n);
      // London, 1 March 09:00 GMT → 1 April 09:00 BST: 743 hours but 31 days. Cancelled 30 March: 31 March left.
      const [march, april] = [local(LONDON, 2025, 3, 1, 9), local(LONDON, 2025, 4, 1, 9)];
      assert.equal(april - march, 743 * HOUR);
      assert.equal(refundCredit(march, april, local(LONDON, 2025, 3, 30, 10), LONDON, 10000n), 323n); // 10000 / 31 = 322.58
      assert.equal(refundCredit(march, april, local(LONDON, 2025, 3, 15, 10), LONDON, 10000n), 5161n); // 16 days: 5161.29
    });

    test('days between instants are calendar days in the zone, not 24-hour units', () => {
      assert.equal(localDaysBetween(local(HK, 2025, 1, 31, 23, 30), local(HK, 2025, 2, 1, 0, 30), HK), 1); // one hour apart
      assert.equal(localDaysBetween(local(HK, 2025, 2, 1, 0, 30), local(HK, 2025, 2, 1, 23, 30), HK), 0);
      assert.equal(localDaysBetween(local(LONDON, 2025, 3, 29, 12), local(LONDON, 2025, 3, 31, 12), LONDON), 2); // 47 hours
      assert.equal(localDaysBetween(local(LONDON, 2025, 10, 25, 12), local(LONDON, 2025, 10, 27, 12), LONDON), 2); // 49 hours
      assert.equal(localDaysBetween(local(LONDON, 2025, 10, 27, 12), local(LONDON, 2025, 10, 25, 12), LONDON), -2);
      // 2025-01-01 00:30 HKT is still 31 December in London.
      assert.equal(localDaysBetween(local(HK, 2025, 1, 1, 0, 30), local(HK, 2025, 1, 1, 9), LONDON), 1);
    });
  });

  describe('cycles: billings in order, and what stops them', () => {
    test('an automated cycle of 3 periods: sequences, the periods they pay for, and its end', () => {
      const cycle: BillingCycle = {
        rule: automated('monthly'),
        start: local(HK, 2025, 1, 31),
        zone: HK,
        intervalCounts: 3,
      };
      assert.deepEqual(
        [...billings(cycle)].map((billing) => summary(billing, HK)),
        [
          [1, 1, 'full', '2025-01-31', '2025-01-31', '2025-02-28'],
          [2, 2, 'full', '2025-02-28', '2025-02-28', '2025-03-31'],
          [3, 3, 'full', '2025-03-31', '2025-03-31', '2025-04-30'],
        ],
      );
      assert.equal(cycleEnd(cycle), local(HK, 2025, 4, 30));
    });

    test('a customized cycle with proration charges the partial period first; interval counts are full periods only', () => {
      const start = local(HK, 2025, 2, 15);
      const cycle: BillingCycle = { rule: monthlyOn(1), start, zone: HK, intervalCounts: 2 };
      const made = [...billings(cycle)];
      assert.deepEqual(
        made.map((billing) => summary(billing, HK)),
        [
          [1, 0, 'partial', '2025-02-15', '2025-02-15', '2025-03-01'],
          [2, 1, 'full', '2025-03-01', '2025-03-01', '2025-04-01'],
          [3, 2, 'full', '2025-04-01', '2025-04-01', '2025-05-01'],
        ],
      );
      assert.equal(made[0]!.at, start);
      assert.equal(cycleEnd(cycle), local(HK, 2025, 5, 1));
      // Without proration the partial period is free: the first order is on the first billing day.
      const free = [...billings({ ...cycle, rule: monthlyOn(1, { proration: false }) })];
      assert.deepEqual(
        free.map((billing) => summary(billing, HK)),
        [
          [1, 1, 'full', '2025-03-01', '2025-03-01', '2025-04-01'],
          [2, 2, 'full', '2025-04-01', '2025-04-01', '2025-05-01'],
        ],
      );
    });

    test('no billing at or after the end date; the cycle ends at it, or after its last counted period if earlier', () => {
      const start = local(HK, 2025, 1, 1);
      const daily = (limits: Pick<BillingCycle, 'intervalCounts' | 'endDate'>): BillingCycle => ({
        rule: automated('daily'),
        start,
        zone: HK,
        ...limits,
      });
      const endDate = local(HK, 2025, 1, 4);
      assert.deepEqual(
        [...billings(daily({ endDate }))].map((billing) => localDate(billing.at, HK)),
        ['2025-01-01', '2025-01-02', '2025-01-03'],
      );
      assert.equal(cycleEnd(daily({ endDate })), endDate);
      // One millisecond later, 4 January is billed, and pays for a period past the cycle's end.
      const later = [...billings(daily({ endDate: endDate + 1 }))];
      assert.equal(later.length, 4);
      assert.equal(later[3]!.periodEnd, local(HK, 2025, 1, 5));
      assert.equal(cycleEnd(daily({ endDate: endDate + 1 })), endDate + 1);
      // Both limits: whichever comes first.
      assert.equal(cycleEnd(daily({ endDate, intervalCounts: 10 })), endDate);
      assert.equal(cycleEnd(daily({ endDate, intervalCounts: 2 })), local(HK, 2025, 1, 3));
      assert.equal([...billings(daily({ endDate, intervalCounts: 2 }))].length, 2);
      // Neither: it never ends.
      assert.equal(cycleEnd(daily({})), undefined);
      let count = 0;
      for (const billing of billings(daily({})))
        if (billing.sequence === 1000) break;
        else count += 1;
      assert.equal(count, 999);
      // An end before the first billing day: only the prorated partial period is charged.
      const short = [
        ...billings({ rule: monthlyOn(1), start: local(HK, 2025, 2, 15), zone: HK, endDate: local(HK, 2025, 2, 20) }),
      ];
      assert.deepEqual(
        short.map((billing) => [billing.sequence, billing.kind]),
        [[1, 'partial']],
      );
    });

    test('what is due by a clock instant, and the next execution time', () => {
      const start = local(HK, 2025, 1, 1);
      const cycle: BillingCycle = { rule: automated('daily'), start, zone: HK };
      assert.deepEqual(
        billingsDue(cycle, local(HK, 2025, 1, 3)).map((billing) => billing.sequence),
        [1, 2, 3],
      ); // at the clock is due
      assert.deepEqual(
        billingsDue(cycle, local(HK, 2025, 1, 3) - 1, start).map((billing) => billing.sequence),
        [2],
      );
      assert.deepEqual(billingsDue(cycle, start - 1), []);
      const next = nextBillingAfter(cycle, local(HK, 2025, 1, 3));
      assert.deepEqual([next?.sequence, next && iso(next.at)], [4, '2025-01-04T02:00:00.000Z']);
      // Years later, without walking there: 2025-01-01 → 2030-01-01 is 5 × 365 + 1 (2028) = 1826 days, + 31 + 28 + 31
      // + 30 + 31 = 1977 to 1 June, + 15 = 1992 to 16 June: billing k = 1992, sequence 1993.
      const far = nextBillingAfter(cycle, local(HK, 2030, 6, 15, 12));
      assert.deepEqual([far?.sequence, far?.period, far && iso(far.at)], [1993, 1993, '2030-06-16T02:00:00.000Z']);
      // A finished cycle has no next billing.
      assert.equal(nextBillingAfter({ ...cycle, intervalCounts: 5 }, local(HK, 2025, 1, 5)), undefined);
      assert.equal(nextBillingAfter({ ...cycle, intervalCounts: 5 }, local(HK, 2025, 1, 4))?.sequence, 5);
      // The partial charge is at the start: due after anything before it, not after the start itself.
      const prorated: BillingCycle = { rule: monthlyOn(1), start: local(HK, 2025, 2, 15), zone: HK };
      assert.equal(nextBillingAfter(prorated, prorated.start - 1)?.kind, 'partial');
      assert.deepEqual(summary(nextBillingAfter(prorated, prorated.start)!, HK), [
        2,
        1,
        'full',
        '2025-03-01',
        '2025-03-01',
        '2025-04-01',
      ]);
    });

    test('property: skipping ahead finds the same billing as walking, for every day of 2025', () => {
      const cycles: BillingCycle[] = [
        { rule: automated('weekly', 2), start: local(LONDON, 2025, 1, 8, 9), zone: LONDON },
        { rule: monthlyOn(31), start: local(LONDON, 2025, 1, 15, 9), zone: LONDON },
      ];
      for (const cycle of cycles) {
        const walked = [...billings({ ...cycle, endDate: local(LONDON, 2026, 2, 1) })];
        for (let day = Date.UTC(2025, 0, 1); day <= Date.UTC(2025, 11, 31); day += 86_400_000) {
          const date = new Date(day);
          const after = local(LONDON, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), 9); // sometimes exactly a billing
          assert.deepEqual(
            nextBillingAfter(cycle, after),
            walked.find((billing) => billing.at > after),
            `${cycle.rule.type} ${date.toISOString()}`,
          );
        }
      }
    });
  });

  describe('rules', () => {
    test('the stored configuration maps to a rule', () => {
      assert.deepEqual(
        billingRuleOf({
          billing_interval: 'yearly',
          interval_count: 1,
          billing_type: 'customized',
          billing_day_of_month: 30,
          billing_month: 2,
          billing_proration_enabled: true,
        }),
        yearlyOn(2, 30),
      );
      assert.deepEqual(
        billingRuleOf({
          billing_interval: 'weekly',
          interval_count: 2,
          billing_type: 'automated',
          billing_day_of_month: null,
          billing_month: null,
          billing_proration_enabled: false,
        }),
        { ...automated('weekly', 2), dayOfMonth: undefined, month: undefined },
      );
    });

    test('refuses rules and cycles it cannot compute', () => {
      const invalid: BillingRule[] = [
        { ...automated('monthly'), intervalCount: 0 },
        { ...automated('monthly'), intervalCount: 1.5 },
        { ...automated('monthly'), interval: 'hourly' as BillingInterval },
        { ...automated('monthly'), dayOfMonth: 5 },
        { ...monthlyOn(5), interval: 'daily' },
        { ...monthlyOn(5), interval: 'weekly' },
        monthlyOn(0),
        monthlyOn(32),
        monthlyOn(1.5),
        { ...monthlyOn(5), month: 3 },
        { ...yearlyOn(2, 5), month: undefined },
        yearlyOn(13, 5),
      ];
      for (const rule of invalid) assert.throws(() => assertBillingRule(rule), RangeError, JSON.stringify(rule));
      const start = local(HK, 2025, 1, 1);
      assert.throws(() => billingTime(automated('daily'), start, -1, HK), RangeError);
      assert.throws(() => [...billings({ rule: automated('daily'), start, zone: HK, intervalCounts: 0 })], RangeError);
      assert.throws(() => [...billings({ rule: automated('daily'), start, zone: HK, endDate: start })], RangeError);
      assert.throws(() => cycleEnd({ rule: monthlyOn(40), start, zone: HK, intervalCounts: 1 }), RangeError);
    });
  });
});
