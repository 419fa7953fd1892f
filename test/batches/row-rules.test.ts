import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BatchRow } from '../../src/batches/batch-file.js';
import { checkRow } from '../../src/batches/row-rules.js';

// Each row of a batch file checked on its own (issue 13, point 2): refused with its row number, column and reason.

const context = { today: { year: 2026, month: 11 }, currency: 'HKD' };
const row = (fields: BatchRow['fields'], number = 7): BatchRow => ({ row: number, fields });
const card = { cardNumber: '4000 0000 0000 3055', expiryMonth: '3', expiryYear: '29' };

describe('batch rows', () => {
  test('payments and authorisations: a new order of the reference, paid with a token or a card', () => {
    assert.deepEqual(
      checkRow(
        row({ action: 'payment', reference: 'INV-1', customer: 'c-1', amount: '12.50', token: 'tok', remark: 'March' }),
        context,
      ),
      {
        row: 7,
        action: 'payment',
        reference: 'INV-1',
        customerUuid: 'c-1',
        amount: { minor: 1250, currency: { code: 'HKD', exponent: 2 } },
        means: { token: 'tok' },
        remark: 'March',
      },
    );
    const authorised = checkRow(
      row({ action: 'Authorize', reference: 'INV-2', amount: '1500', currency: 'jpy', ...card, cvc: '123' }),
      context,
    );
    assert.ok('action' in authorised && authorised.action === 'authorize');
    assert.deepEqual(authorised.amount, { minor: 1500, currency: { code: 'JPY', exponent: 0 } });
    assert.deepEqual(authorised.means, {
      card: { number: '4000000000003055', expMonth: 3, expYear: 2029, cvv: '123', holderName: '' },
    });
    // A row without a currency is in the platform's default (PAYGATE_DEFAULT_CURRENCY), whose exponent then rules.
    const yen = checkRow(row({ action: 'payment', reference: 'INV-3', amount: '1500', token: 'tok' }), {
      ...context,
      currency: 'JPY',
    });
    assert.ok('amount' in yen && yen.amount?.currency.code === 'JPY' && yen.amount.minor === 1500);
    assert.ok(
      'reason' in
        checkRow(row({ action: 'payment', reference: 'INV-4', amount: '15.5', token: 'tok' }), {
          ...context,
          currency: 'JPY',
        }),
    );
  });

  test('captures, refunds and voids name their original transaction; cancellation is a void', () => {
    assert.deepEqual(checkRow(row({ action: 'capture', originalTransaction: 'tr-1', amount: '5' }), context), {
      row: 7,
      action: 'capture',
      originalTransactionId: 'tr-1',
      reference: undefined,
      amount: { minor: 500, currency: { code: 'HKD', exponent: 2 } },
      remark: undefined,
    });
    assert.deepEqual(checkRow(row({ action: 'refund', originalTransaction: 'tr-2', reference: 'INV-1' }), context), {
      row: 7,
      action: 'refund',
      originalTransactionId: 'tr-2',
      reference: 'INV-1',
      amount: undefined,
      remark: undefined,
    });
    assert.deepEqual(
      checkRow(row({ action: 'cancellation', originalTransaction: 'tr-3', amount: 'ignored' }), context),
      {
        row: 7,
        action: 'void',
        named: 'cancellation',
        originalTransactionId: 'tr-3',
        reference: undefined,
        remark: undefined,
      },
    );
  });

  test('every refusal names the row, the column and the reason', () => {
    const refusals: Array<[BatchRow['fields'], string, RegExp]> = [
      [{ reference: 'R', amount: '1', token: 't' }, 'Action', /is empty/],
      [
        { action: 'charge', reference: 'R', amount: '1', token: 't' },
        'Action',
        /"charge" is not an action: use one of payment, authorize, capture, void, cancellation, refund/,
      ],
      [{ action: 'payment', amount: '1', token: 't' }, 'Reference Number', /is empty/],
      [
        { action: 'payment', reference: 'R'.repeat(256), amount: '1', token: 't' },
        'Reference Number',
        /longer than 255/,
      ],
      [{ action: 'payment', reference: 'R', token: 't' }, 'Amount', /is empty/],
      [{ action: 'payment', reference: 'R', amount: '12.345', token: 't' }, 'Amount', /HKD/],
      [{ action: 'payment', reference: 'R', amount: '12.5', currency: 'JPY', token: 't' }, 'Amount', /JPY/],
      [{ action: 'payment', reference: 'R', amount: '0', token: 't' }, 'Amount', /greater than zero/],
      [{ action: 'payment', reference: 'R', amount: '-1', token: 't' }, 'Amount', /./],
      [{ action: 'payment', reference: 'R', amount: '1e3', token: 't' }, 'Amount', /exponent notation/],
      [{ action: 'payment', reference: 'R', amount: 'ten', token: 't' }, 'Amount', /^(?!.*exponent)/],
      [
        { action: 'payment', reference: 'R', amount: '1', currency: 'XYZ', token: 't' },
        'Currency',
        /"XYZ" is not an ISO 4217 currency code/,
      ],
      [{ action: 'payment', reference: 'R', amount: '1' }, 'Token ID', /nothing to pay with/],
      [{ action: 'payment', reference: 'R', amount: '1', token: 't', ...card }, 'Token ID', /both given/],
      [
        { action: 'payment', reference: 'R', amount: '1', ...card, cardNumber: '4000000000003056' },
        'Card Number',
        /check digit/,
      ],
      [
        { action: 'payment', reference: 'R', amount: '1', ...card, cardNumber: '4000' },
        'Card Number',
        /12 to 19 digits/,
      ],
      [{ action: 'payment', reference: 'R', amount: '1', ...card, expiryMonth: '13' }, 'Expiry Month', /1 to 12/],
      [
        { action: 'payment', reference: 'R', amount: '1', cardNumber: card.cardNumber, expiryYear: '29' },
        'Expiry Month',
        /is empty/,
      ],
      [{ action: 'payment', reference: 'R', amount: '1', ...card, expiryYear: '25' }, 'Expiry Year', /expired/],
      [{ action: 'payment', reference: 'R', amount: '1', ...card, cvc: '12' }, 'CVC', /3 or 4 digits/],
      [{ action: 'refund', amount: '1' }, 'Original Transaction ID', /is empty/],
      [{ action: 'void' }, 'Original Transaction ID', /is empty/],
      [{ action: 'capture', originalTransaction: 'tr', amount: '1.001' }, 'Amount', /HKD/],
    ];
    for (const [fields, column, reason] of refusals) {
      const refused = checkRow(row(fields, 12), context);
      assert.ok('column' in refused, `${JSON.stringify(fields)} was accepted`);
      assert.equal(refused.row, 12);
      assert.equal(refused.column, column, JSON.stringify(fields));
      assert.match(refused.reason, reason, JSON.stringify(fields));
    }
  });

  test('a card number a misaligned row put in another cell is masked where the reason quotes the cell (issue 34)', () => {
    const refusals = [
      checkRow(row({ action: '4242424242424242', reference: 'R', amount: '1', token: 't' }), context),
      checkRow(
        row({ action: 'payment', reference: 'R', amount: '1', token: 't', currency: '4242 4242 4242 4242' }),
        context,
      ),
      checkRow(row({ action: 'payment', reference: 'R', amount: '4242-4242-4242-4242', token: 't' }), context),
    ];
    for (const refusal of refusals) {
      assert.ok('reason' in refusal);
      assert.doesNotMatch(refusal.reason, /4242[ -]?4242[ -]?4242[ -]?4242/);
      assert.match(refusal.reason, /"424242\*{6}4242"/);
    }
  });
});
