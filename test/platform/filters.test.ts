import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError, PLATFORM_ERRORS } from '../../src/platform/errors.js';
import {
  type FilterCatalogue,
  MAX_CONDITIONS,
  MAX_LIST_VALUES,
  parseFilters,
} from '../../src/platform/query/filters.js';

const catalogue: FilterCatalogue = {
  state: { type: 'text', column: 'o.state', values: ['invoiced', 'completed'] },
  reference_number: { type: 'text', column: 'o.reference_number' },
  'customer.uuid': { type: 'text', column: 'o.customer_id' },
  created_at: { type: 'time', column: 'o.created_at' },
  initial_total: { type: 'money', column: 'o.initial_total', exponentColumn: 'o.currency_exponent' },
  over: { type: 'boolean', column: 'o.over' },
};

describe('the list query language', () => {
  test('parses operators, nested names, lists, booleans, times and repeated parameters', () => {
    const conditions = parseFilters(
      {
        'filter[state][_in]': 'invoiced,completed',
        'filter[customer.uuid][_null]': '0',
        'filter[created_at][_gte]': '2026-11-21T08:00:00+08:00',
        'filter[reference_number][_contains]': ['R-', '2026'],
        'filter[over][_eq]': '1',
        offset: '0',
      },
      catalogue,
    );
    assert.deepEqual(conditions, [
      { field: 'state', op: '_in', values: ['invoiced', 'completed'] },
      { field: 'customer.uuid', op: '_null', isNull: false },
      { field: 'created_at', op: '_gte', value: Date.parse('2026-11-21T00:00:00Z') },
      { field: 'reference_number', op: '_contains', value: 'R-' },
      { field: 'reference_number', op: '_contains', value: '2026' },
      { field: 'over', op: '_eq', value: 1 },
    ]);
  });

  test('refuses unknown fields, operators and bad values, naming the parameter', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'filter[colour][_eq]': 'x' }, /^filter\[colour\]\[_eq\] filters on an unknown field/],
      [{ 'filter[state][_gt]': 'x' }, /^filter\[state\]\[_gt\] takes one of the operators/],
      [{ 'filter[state][_eq]': 'paid' }, /must be one of invoiced, completed/],
      [{ 'filter[created_at][_lt]': '2026-11-21 08:00' }, /RFC 3339/],
      [{ 'filter[created_at][_lt]': '2026-11-21T08:00:00' }, /with an offset/],
      [{ 'filter[over][_eq]': 'true' }, /must be 0 or 1/],
      [{ 'filter[initial_total][_gt]': '1e3' }, /decimal amount/],
      // Twelve integer digits in a 4-decimal currency would be past 2^53 in minor units: refused, not rounded.
      [{ 'filter[initial_total][_gt]': '999999999999' }, /at most 11 digits before the point/],
      [{ 'filter[initial_total][_gt]': '1.123456789' }, /8 after/],
      [{ 'filter[state]': 'x' }, /is not of the form/],
      [{ 'filter[state][_null]': 'yes' }, /must be 1 \(is null\) or 0/],
    ];
    for (const [query, message] of cases) {
      assert.throws(
        () => parseFilters(query, catalogue),
        (e) => e instanceof AppError && e.definition === PLATFORM_ERRORS.validationFailed && message.test(e.message),
        JSON.stringify(query),
      );
    }
  });

  test(`takes at most ${MAX_CONDITIONS} conditions and ${MAX_LIST_VALUES} values in a list, however they are spelt`, () => {
    const refused = (query: Record<string, unknown>, message: RegExp) =>
      assert.throws(
        () => parseFilters(query, catalogue),
        (e) => e instanceof AppError && e.definition === PLATFORM_ERRORS.validationFailed && message.test(e.message),
      );
    const many = (count: number) => Array.from({ length: count }, (_, i) => `R${i}`);
    assert.equal(
      parseFilters({ 'filter[reference_number][_neq]': many(MAX_CONDITIONS) }, catalogue).length,
      MAX_CONDITIONS,
    );
    refused(
      { 'filter[reference_number][_neq]': many(MAX_CONDITIONS + 1) },
      new RegExp(`At most ${MAX_CONDITIONS} filter conditions per request \\(got ${MAX_CONDITIONS + 1}\\)`),
    );
    // Repeated parameters and distinct ones count alike.
    refused({ 'filter[reference_number][_neq]': many(MAX_CONDITIONS), 'filter[state][_eq]': 'invoiced' }, /At most/);
    assert.equal(
      parseFilters({ 'filter[reference_number][_in]': many(MAX_LIST_VALUES).join(',') }, catalogue)[0]!.op,
      '_in',
    );
    refused(
      { 'filter[reference_number][_not_in]': many(MAX_LIST_VALUES + 1).join(',') },
      new RegExp(`takes at most ${MAX_LIST_VALUES} comma-separated values`),
    );
  });
});
