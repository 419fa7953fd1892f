import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brandOf, maskCardNumber, passesLuhn, readCard, withoutCardNumbers } from '../../src/cards/card.js';

const today = { year: 2026, month: 11 };

describe('card input', () => {
  test('Luhn and brands of the sandbox numbers', () => {
    for (const number of [
      '4242424242424242',
      '5555555555554444',
      '3530111333300000',
      '4000000000000002',
      '4000000000003220',
    ]) {
      assert.ok(passesLuhn(number), number);
    }
    assert.equal(passesLuhn('4242424242424241'), false);
    assert.deepEqual(
      ['4242424242424242', '5555555555554444', '2223003122003222', '3530111333300000', '378282246310005'].map(brandOf),
      ['VISA', 'MASTERCARD', 'MASTERCARD', 'JCB', 'AMEX'],
    );
  });

  test('reads the forms clients send and refuses the rest, naming the field', () => {
    const ok = readCard(
      { number: '4242 4242 4242 4242', exp_month: '01', exp_year: 28, cvv: '123' },
      today,
      'payment.credit_card',
    );
    assert.deepEqual(ok, { number: '4242424242424242', expMonth: 1, expYear: 2028, cvv: '123', holderName: undefined });
    assert.ok(
      'number' in readCard({ number: '4242424242424242', exp_month: 11, exp_year: '2026' }, today, 'c'),
      'this month is still valid',
    );
    const problems: Array<[Parameters<typeof readCard>[0], string]> = [
      [{ number: '4242424242424241', exp_month: 1, exp_year: 2030 }, 'c.number'],
      [{ number: '4242', exp_month: 1, exp_year: 2030 }, 'c.number'],
      [{ number: '4242424242424242', exp_month: 13, exp_year: 2030 }, 'c.exp_month'],
      [{ number: '4242424242424242', exp_month: 10, exp_year: 2026 }, 'c.exp_year'],
      [{ number: '4242424242424242', exp_month: 1, exp_year: '203' }, 'c.exp_year'],
      [{ number: '4242424242424242', exp_month: 1, exp_year: 2030, cvv: '12' }, 'c.cvv'],
    ];
    for (const [raw, field] of problems) {
      const result = readCard(raw, today, 'c');
      assert.ok('field' in result && result.field === field, `${JSON.stringify(raw)} → ${JSON.stringify(result)}`);
    }
  });

  test('free text keeps no card number: every run of 12 to 19 digits, spaced or dashed, is masked', () => {
    assert.equal(withoutCardNumbers('pay 4242424242424242 now'), 'pay 424242******4242 now');
    assert.equal(
      withoutCardNumbers('4242 4242 4242 4242 and 4000-0000-0000-3055'),
      '424242******4242 and 400000******3055',
    );
    assert.equal(
      withoutCardNumbers('order 12345678901 of 2026-12-06, 1500.00 HKD'),
      'order 12345678901 of 2026-12-06, 1500.00 HKD',
    );
    assert.equal(maskCardNumber('3530111333300000'), '353011******0000');
  });
});
