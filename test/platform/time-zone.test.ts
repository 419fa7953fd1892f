import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  endOfLocalDate,
  instantOf,
  localDate,
  localTime,
  nextLocalHour,
  readLocalTime,
} from '../../src/platform/time-zone.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('time zones', () => {
  test('local dates and instants in fixed and daylight-saving zones', () => {
    assert.equal(localDate(Date.parse('2026-11-21T20:00:00Z'), 'Asia/Hong_Kong'), '2026-11-22');
    assert.equal(
      iso(instantOf({ year: 2026, month: 11, day: 22, hour: 23, minute: 0 }, 'Asia/Hong_Kong')),
      '2026-11-22T15:00:00.000Z',
    );
    assert.equal(
      iso(instantOf({ year: 2026, month: 7, day: 1, hour: 12, minute: 0 }, 'Europe/London')),
      '2026-07-01T11:00:00.000Z',
    );
    // On 2026-03-29 London's clocks jump from 01:00 to 02:00: 01:30 never happens and becomes 02:30 BST.
    assert.equal(
      iso(instantOf({ year: 2026, month: 3, day: 29, hour: 1, minute: 30 }, 'Europe/London')),
      '2026-03-29T01:30:00.000Z',
    );
    // On 2026-10-25 they go back from 02:00 to 01:00: 01:30 happens twice, and the first one counts.
    assert.equal(
      iso(instantOf({ year: 2026, month: 10, day: 25, hour: 1, minute: 30 }, 'Europe/London')),
      '2026-10-25T00:30:00.000Z',
    );
  });

  test("the next settlement hour comes tomorrow once today's has passed", () => {
    assert.equal(
      iso(nextLocalHour(Date.parse('2026-11-22T10:00:00Z'), 23, 'Asia/Hong_Kong')),
      '2026-11-22T15:00:00.000Z',
    );
    assert.equal(
      iso(nextLocalHour(Date.parse('2026-11-22T15:00:00Z'), 23, 'Asia/Hong_Kong')),
      '2026-11-23T15:00:00.000Z',
    );
    assert.equal(
      iso(nextLocalHour(Date.parse('2026-10-24T23:30:00Z'), 23, 'Europe/London')),
      '2026-10-25T23:00:00.000Z',
    );
  });

  test('a due date ends at the local midnight after it', () => {
    assert.equal(iso(endOfLocalDate('2026-11-30', 'Asia/Hong_Kong')), '2026-11-30T16:00:00.000Z');
    assert.equal(iso(endOfLocalDate('2026-12-31', 'UTC')), '2027-01-01T00:00:00.000Z');
  });

  test('the kept offsets read every instant as Intl does, across daylight saving changes of the hour, half and quarter', () => {
    const zones = [
      'Europe/London',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Pacific/Chatham',
      'Asia/Hong_Kong',
      'Africa/Casablanca',
    ];
    const from = Date.parse('2026-01-01T00:00:00Z');
    const to = Date.parse('2027-01-01T00:00:00Z');
    for (const zone of zones) {
      // Every 37 min 11.5 s: instants at every offset within the quarter hours, the same quarter read again later.
      for (let at = from; at < to; at += 2_231_500)
        assert.deepEqual(localTime(at, zone), readLocalTime(at, zone), `${zone} at ${iso(at)}`);
      // And every second of each hour in which the offset changes.
      const wall = (at: number) => {
        const seen = readLocalTime(at, zone);
        return Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute, seen.second);
      };
      for (let at = from; at < to; at += 3_600_000) {
        if (wall(at + 3_600_000) - wall(at) === 3_600_000) continue;
        for (let near = at - 2_000; near <= at + 3_602_000; near += 1_000) {
          assert.deepEqual(localTime(near, zone), readLocalTime(near, zone), `${zone} at ${iso(near)}`);
        }
      }
    }
  });
});
