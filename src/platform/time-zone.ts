/**
 * Calendar arithmetic in a merchant's time zone, on epoch milliseconds, with Intl for the zone rules (so no time
 * zone library): settlement at a local hour, due dates that end at local midnight, daylight saving included.
 */

export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The wall-clock reading in `zone` at instant `at`. */
export function localTime(at: number, zone: string): LocalTime {
  const seconds = Math.floor(at / 1000) * 1000;
  const local = new Date(seconds + offsetAt(at, zone));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/** The reading as Intl gives it: the truth the cached offsets are checked against. */
export function readLocalTime(at: number, zone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** The local date (YYYY-MM-DD) in `zone` at instant `at`. */
export function localDate(at: number, zone: string): string {
  const { year, month, day } = localTime(at, zone);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The instant at which `zone` reads the given local time. A local time that occurs twice (clocks going back)
 * resolves to its first occurrence; one that never occurs (clocks jumping forward) is moved forward by the jump,
 * as a wall clock would be: 01:30 on the day London skips from 01:00 to 02:00 becomes 02:30.
 */
export function instantOf(local: Omit<LocalTime, 'second'> & { second?: number }, zone: string): number {
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second ?? 0);
  const offsetBefore = offsetAt(asUtc - DAY, zone);
  const offsetAfter = offsetAt(asUtc + DAY, zone);
  const candidates = [...new Set([offsetBefore, offsetAfter])].map((offset) => asUtc - offset).sort((a, b) => a - b);
  for (const candidate of candidates) {
    if (offsetAt(candidate, zone) === asUtc - candidate) return candidate;
  }
  return asUtc - offsetBefore;
}

const DAY = 86_400_000;

/**
 * Offsets are kept per zone and quarter of an hour, once the quarter is seen to have one offset from its first
 * second to its last (time zones change their offset on the hour, the half or the quarter: a quarter that holds a
 * change is never kept, and read from Intl each time). Reading Intl costs microseconds, and billing ten thousand
 * plans reads the calendar hundreds of thousands of times, mostly in the same few quarters.
 */
const QUARTER_HOUR = 15 * 60 * 1000;
const KEPT_QUARTERS = 50_000;
const keptOffsets = new Map<string, number>();

/** How far `zone`'s wall clock is ahead of UTC at instant `at`. */
function offsetAt(at: number, zone: string): number {
  const quarter = Math.floor(at / QUARTER_HOUR);
  const key = `${zone} ${quarter}`;
  const kept = keptOffsets.get(key);
  if (kept !== undefined) return kept;
  const first = readOffset(quarter * QUARTER_HOUR, zone);
  const last = readOffset((quarter + 1) * QUARTER_HOUR - 1000, zone);
  if (first !== last) return readOffset(at, zone);
  if (keptOffsets.size >= KEPT_QUARTERS) keptOffsets.clear();
  keptOffsets.set(key, first);
  return first;
}

function readOffset(at: number, zone: string): number {
  const seen = readLocalTime(at, zone);
  return (
    Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute, seen.second) - Math.floor(at / 1000) * 1000
  );
}

/** The first instant strictly after `after` at which `zone` reads `hour`:00 local time. */
export function nextLocalHour(after: number, hour: number, zone: string): number {
  const now = localTime(after, zone);
  let day = { year: now.year, month: now.month, day: now.day };
  for (let i = 0; i < 3; i += 1) {
    const candidate = instantOf({ ...day, hour, minute: 0 }, zone);
    if (candidate > after) return candidate;
    day = addDays(day, 1);
  }
  throw new Error(`no ${hour}:00 after ${new Date(after).toISOString()} in ${zone}`);
}

/** Local midnight at the start of the day after `date` (YYYY-MM-DD): the instant that date is over. */
export function endOfLocalDate(date: string, zone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return instantOf({ ...addDays({ year, month, day }, 1), hour: 0, minute: 0 }, zone);
}

function addDays(
  date: { year: number; month: number; day: number },
  days: number,
): { year: number; month: number; day: number } {
  const at = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() };
}
