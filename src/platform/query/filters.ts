import { AppError, invalid, PLATFORM_ERRORS } from '../errors.js';

/**
 * The list query language (compatibility.md section 6): repeated `filter[field][op]=value` parameters, all
 * ANDed. Each list declares the fields it can filter on; this module turns the query string into checked
 * conditions, and ./sql.ts turns those into SQL.
 */

export type FilterType = 'text' | 'integer' | 'money' | 'boolean' | 'time' | 'date';

export const OPERATORS = [
  '_eq',
  '_neq',
  '_gt',
  '_gte',
  '_lt',
  '_lte',
  '_contains',
  '_not_contains',
  '_in',
  '_not_in',
  '_null',
] as const;
export type Operator = (typeof OPERATORS)[number];

const ALLOWED: Record<FilterType, readonly Operator[]> = {
  text: ['_eq', '_neq', '_contains', '_not_contains', '_in', '_not_in', '_null'],
  integer: ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_in', '_not_in', '_null'],
  money: ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_null'],
  boolean: ['_eq', '_neq', '_null'],
  time: ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_null'],
  date: ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_null'],
};

export interface FilterField {
  type: FilterType;
  /** The column (table.column) the field reads. */
  column: string;
  /** Money only: the column holding each row's currency exponent. */
  exponentColumn?: string;
  /** For text fields with a closed list of values: others are refused rather than silently matching nothing. */
  values?: readonly string[];
}

export type FilterCatalogue = Record<string, FilterField>;

/** A checked condition; `values` holds one value, several for `_in`/`_not_in`, and `_null` holds a boolean. */
export type Condition =
  | { field: string; op: Exclude<Operator, '_null' | '_in' | '_not_in'>; value: FilterValue }
  | { field: string; op: '_in' | '_not_in'; values: FilterValue[] }
  | { field: string; op: '_null'; isNull: boolean };

/**
 * Text stays text; integers and booleans become numbers (0/1); times become epoch milliseconds; money stays decimal
 * text.
 */
export type FilterValue = string | number;

const KEY = /^filter\[([^\]]+)\]\[([^\]]+)\]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONEY = /^-?\d{1,11}(?:\.\d{1,8})?$/;

/**
 * Bounds on one request's filters: each condition costs every row scanned, so without a bound a signed list
 * request could hold the process for everyone (the URL alone allows some 500). Far above what a real query needs.
 */
export const MAX_CONDITIONS = 20;
export const MAX_LIST_VALUES = 100;

export function parseFilters(query: Record<string, unknown>, catalogue: FilterCatalogue): Condition[] {
  const conditions: Condition[] = [];
  const given = Object.entries(query)
    .filter(([key]) => key.startsWith('filter['))
    .reduce((count, [, raw]) => count + (Array.isArray(raw) ? raw.length : 1), 0);
  if (given > MAX_CONDITIONS) {
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      `At most ${MAX_CONDITIONS} filter conditions per request (got ${given}): narrow the query, or use _in.`,
    );
  }
  for (const [key, raw] of Object.entries(query)) {
    if (!key.startsWith('filter[')) continue;
    const match = KEY.exec(key);
    if (!match) throw invalid(key, 'is not of the form filter[field][operator]');
    const [, field, op] = match as unknown as [string, string, string];
    if (!Object.hasOwn(catalogue, field)) {
      throw invalid(key, `filters on an unknown field; the fields are: ${Object.keys(catalogue).join(', ')}`);
    }
    const spec = catalogue[field]!;
    if (!(ALLOWED[spec.type] as readonly string[]).includes(op)) {
      throw invalid(key, `takes one of the operators ${ALLOWED[spec.type].join(', ')}`);
    }
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      conditions.push(condition(key, field, op as Operator, String(text), spec));
    }
  }
  return conditions;
}

function condition(key: string, field: string, op: Operator, text: string, spec: FilterField): Condition {
  if (op === '_null') {
    if (text !== '0' && text !== '1') throw invalid(key, 'must be 1 (is null) or 0 (is not null)');
    return { field, op, isNull: text === '1' };
  }
  if (op === '_in' || op === '_not_in') {
    const items = text.split(',');
    if (items.length > MAX_LIST_VALUES)
      throw invalid(key, `takes at most ${MAX_LIST_VALUES} comma-separated values (got ${items.length})`);
    const values = items.map((item) => value(key, item.trim(), spec));
    return { field, op, values };
  }
  return { field, op, value: value(key, text, spec) };
}

function value(key: string, text: string, spec: FilterField): FilterValue {
  switch (spec.type) {
    case 'text':
      // No stored text holds U+0000, and PostgreSQL cannot compare text with it.
      if (text.includes('\u0000')) throw invalid(key, 'must not hold U+0000');
      if (spec.values && !spec.values.includes(text)) throw invalid(key, `must be one of ${spec.values.join(', ')}`);
      return text;
    case 'integer':
      if (!/^-?\d{1,15}$/.test(text)) throw invalid(key, 'must be a whole number');
      return Number(text);
    case 'money':
      // Eleven integer digits scaled by the largest exponent (4) stay a safe integer: the bounds are exact.
      if (!MONEY.test(text))
        throw invalid(key, 'must be a decimal amount such as 12.50 (at most 11 digits before the point, 8 after)');
      return text;
    case 'boolean':
      if (text !== '0' && text !== '1') throw invalid(key, 'must be 0 or 1');
      return Number(text);
    case 'time': {
      const at = RFC3339.test(text) && isRealDate(text.slice(0, 10)) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(at))
        throw invalid(key, 'must be an RFC 3339 time with an offset, such as 2026-11-21T08:00:00+08:00');
      return at;
    }
    case 'date':
      if (!DATE.test(text) || !isRealDate(text)) throw invalid(key, 'must be a date YYYY-MM-DD');
      return text;
  }
}

/** Date.parse rolls 2026-02-30 over into March; a filter on a day that does not exist is a mistake to report. */
function isRealDate(text: string): boolean {
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const at = new Date(Date.UTC(y, m - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === m - 1 && at.getUTCDate() === d;
}

/** offset and limit of a list page, with the interface's ceiling of 1000. */
export interface Page {
  offset: number;
  limit: number;
}

export const MAX_LIMIT = 1000;
