import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ORDER_ERRORS } from '../../src/orders/errors.js';
import { isAppError, PLATFORM_ERRORS } from '../../src/platform/errors.js';
import { currencyExponent } from '../../src/platform/money/currencies.js';
import {
  addMinor,
  amountAsNumber,
  formatAmount,
  MAX_MINOR,
  MoneyRangeError,
  oneUnit,
  parseAmount,
  readCurrency,
  readMoney,
  sumMinor,
  timesMinor,
  withinMaximum,
} from '../../src/platform/money/money.js';

describe('money', () => {
  test('ISO 4217 exponents, not display conventions', () => {
    assert.deepEqual(
      ['HKD', 'JPY', 'KWD', 'IDR', 'HUF', 'IQD', 'CLF', 'USD'].map(currencyExponent),
      [2, 0, 3, 2, 2, 3, 4, 2],
    );
    for (const code of ['XAU', 'XXX', 'HRK', 'hkd', 'ABC', '__proto__', 'toString'])
      assert.equal(currencyExponent(code), undefined, code);
  });

  test('decimal text and JSON numbers parse to exact minor units', () => {
    const cases: Array<[string | number, number, number]> = [
      ['12.50', 2, 1250],
      ['12.5', 2, 1250],
      [12.5, 2, 1250],
      [21, 2, 2100],
      ['0.10', 2, 10],
      [0.1, 2, 10],
      [0.29, 2, 29],
      [1.005, 3, 1005],
      ['1250', 0, 1250],
      ['1.250', 3, 1250],
      ['007.10', 2, 710],
      ['12.500', 2, 1250],
      ['9007199254740.99', 2, 900719925474099],
    ];
    for (const [input, exponent, minor] of cases) assert.equal(parseAmount(input, exponent), minor, `${input}`);
  });

  test('refuses what is not exact money', () => {
    const cases: Array<[string | number, number, string]> = [
      ['12.345', 2, 'too_many_decimals'],
      ['1.5', 0, 'too_many_decimals'],
      [0.001, 2, 'too_many_decimals'],
      ['1e3', 2, 'exponent_notation'],
      ['ten', 2, 'not_a_number'],
      ['1e', 2, 'not_a_number'],
      ['e5', 2, 'not_a_number'],
      [1e21, 2, 'exponent_notation'],
      [1e-7, 2, 'exponent_notation'],
      ['abc', 2, 'not_a_number'],
      ['', 2, 'not_a_number'],
      ['12.', 2, 'not_a_number'],
      ['.5', 2, 'not_a_number'],
      ['+1', 2, 'not_a_number'],
      ['1,000', 2, 'not_a_number'],
      [Number.NaN, 2, 'not_a_number'],
      [Infinity, 2, 'not_a_number'],
      ['-1.00', 2, 'negative'],
      ['0', 2, 'zero'],
      ['0.00', 2, 'zero'],
      ['99999999999999999', 2, 'out_of_range'],
      ['90071992547409.93', 2, 'out_of_range'],
      // Spaces around an amount are refused as any other malformed amount is (issue 34): never trimmed into money.
      [' 5', 2, 'not_a_number'],
      ['5 ', 2, 'not_a_number'],
      [' 5.00', 2, 'not_a_number'],
      ['5\t', 2, 'not_a_number'],
      ['\u00a05', 2, 'not_a_number'],
    ];
    for (const [input, exponent, problem] of cases) assert.equal(parseAmount(input, exponent), problem, `${input}`);
    assert.equal(parseAmount('-0.05', 2, { allowNegative: true }), -5);
    assert.equal(parseAmount('0', 2, { allowZero: true }), 0);
  });

  test('formats with exactly the currency decimals, both as text and as the JSON number', () => {
    assert.deepEqual(
      [
        formatAmount(1250, 2),
        formatAmount(5, 2),
        formatAmount(-5, 2),
        formatAmount(1250, 0),
        formatAmount(1250, 3),
        formatAmount(0, 2),
      ],
      ['12.50', '0.05', '-0.05', '1250', '1.250', '0.00'],
    );
    assert.deepEqual([amountAsNumber(1250, 2), amountAsNumber(2100, 2), amountAsNumber(29, 2)], [12.5, 21, 0.29]);
  });
});

describe('money as a value', () => {
  test('one reader for every amount: the currency, the field, the refusal', () => {
    const hkd = readCurrency(' hkd ', 'order.currency');
    assert.deepEqual(hkd, { code: 'HKD', exponent: 2 });
    assert.deepEqual(readMoney('12.5', hkd, 'refund.amount'), { minor: 1250, currency: hkd });
    assert.throws(
      () => readCurrency('HKX', 'order.currency'),
      (e: unknown) => isAppError(e, PLATFORM_ERRORS.currencyInvalid) && /order\.currency "HKX"/.test(e.message),
    );
    assert.throws(
      () => readMoney('1.001', hkd, 'refund.amount'),
      (e: unknown) =>
        isAppError(e, PLATFORM_ERRORS.validationFailed) && e.message === 'refund.amount must have at most 2 decimals.',
    );
    assert.throws(
      () => readMoney('-1', hkd, 'x', { refusal: ORDER_ERRORS.orderAmountsInvalid }),
      (e: unknown) => isAppError(e, ORDER_ERRORS.orderAmountsInvalid),
    );
    assert.deepEqual(readMoney('9999999999999.99', hkd, 'x').minor, MAX_MINOR);
    assert.equal(oneUnit(readCurrency('KWD', 'c')), 1000);
  });

  test('arithmetic is exact or refuses: never a rounded sum', () => {
    assert.equal(sumMinor([MAX_MINOR, MAX_MINOR, MAX_MINOR]), 2_999_999_999_999_997);
    assert.throws(() => sumMinor(Array.from({ length: 10 }, () => MAX_MINOR)), MoneyRangeError);
    assert.throws(() => timesMinor(MAX_MINOR, 10), MoneyRangeError);
    assert.equal(addMinor(MAX_MINOR, 1), MAX_MINOR + 1);
    assert.equal(withinMaximum(MAX_MINOR), true);
    assert.equal(withinMaximum(MAX_MINOR + 1), false);
  });
});
