import { type CheckedCard, readCard, withoutCardNumbers } from '../cards/card.js';
import { AppError } from '../platform/errors.js';
import { type Currency, type Money, readCurrency, readMoney } from '../platform/money/money.js';
import type { BatchRow } from './batch-file.js';
import { BATCH_COLUMNS, type BatchColumn } from './columns.js';

/** The actions of a batch file (compatibility.md section 5); `cancellation` is another name of `void`. */
export const BATCH_ACTIONS = ['payment', 'authorize', 'capture', 'void', 'cancellation', 'refund'] as const;
export type BatchActionName = (typeof BATCH_ACTIONS)[number];

/** What a row pays with: a token of the customer, or a card. */
export type Means = { token: string } | { card: CheckedCard };

/** A row whose own cells hold together; what it names (customer, token, transaction) is checked when it runs. */
export type RowInstruction =
  | {
      row: number;
      action: 'payment' | 'authorize';
      reference: string;
      customerUuid: string | undefined;
      amount: Money;
      means: Means;
      remark: string | undefined;
    }
  | {
      row: number;
      action: 'capture' | 'refund';
      originalTransactionId: string;
      reference: string | undefined;
      amount: Money | undefined;
      remark: string | undefined;
    }
  | {
      row: number;
      action: 'void';
      named: 'void' | 'cancellation';
      originalTransactionId: string;
      reference: string | undefined;
      remark: string | undefined;
    };

/** Why a row cannot run: the column at fault (as the file names it) and the reason. */
export interface RowRefusal {
  row: number;
  column: string;
  reason: string;
}

/** What a row is checked against: the month on the merchant's clock, and the currency of rows without one. */
export interface RowContext {
  today: { year: number; month: number };
  /** The platform's default currency (PAYGATE_DEFAULT_CURRENCY). */
  currency: string;
}

class Refused extends Error {
  constructor(
    readonly column: BatchColumn,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Checks one row on its own, as the API would check the same request: the action, the amount against the currency's
 * exponent, a token or a card (number by its check digit, expiry on the merchant's clock), the reference of a new
 * order, the original transaction of a capture, void or refund.
 */
export function checkRow(input: BatchRow, context: RowContext): RowInstruction | RowRefusal {
  try {
    return instructionOf(input, context);
  } catch (error) {
    if (error instanceof Refused) return { row: input.row, column: BATCH_COLUMNS[error.column], reason: error.message };
    throw error;
  }
}

function instructionOf({ row, fields }: BatchRow, { today, currency: defaultCurrency }: RowContext): RowInstruction {
  const actionText = required(fields, 'action').toLowerCase();
  if (!(BATCH_ACTIONS as readonly string[]).includes(actionText)) {
    throw new Refused(
      'action',
      `${quoteCell(fields.action!)} is not an action: use one of ${BATCH_ACTIONS.join(', ')}.`,
    );
  }
  const action = actionText as BatchActionName;
  const currency = currencyOf(fields, defaultCurrency);
  const remark = fields.remark;
  if (action === 'payment' || action === 'authorize') {
    const reference = required(fields, 'reference');
    if (reference.length > 255) throw new Refused('reference', 'is longer than 255 characters.');
    const amount = money(required(fields, 'amount'), currency);
    return { row, action, reference, customerUuid: fields.customer, amount, means: meansOf(fields, today), remark };
  }
  const originalTransactionId = required(fields, 'originalTransaction');
  const reference = fields.reference;
  if (action === 'void' || action === 'cancellation')
    return { row, action: 'void', named: action, originalTransactionId, reference, remark };
  const amount = fields.amount === undefined ? undefined : money(fields.amount, currency);
  return { row, action, originalTransactionId, reference, amount, remark };
}

/**
 * A cell quoted back in a reason (which is stored, shown, exported and sent in events): at most 60 characters, and a
 * card number that a misaligned row put in this cell masked, as every card number paygate shows.
 */
export function quoteCell(text: string): string {
  const shown = withoutCardNumbers(text);
  return JSON.stringify(shown.length > 60 ? `${shown.slice(0, 57)}...` : shown);
}

function required(fields: BatchRow['fields'], column: BatchColumn): string {
  const text = fields[column];
  if (text === undefined) throw new Refused(column, 'is empty: this row needs it.');
  return text;
}

function currencyOf(fields: BatchRow['fields'], defaultCurrency: string): Currency {
  try {
    return readCurrency(fields.currency ?? defaultCurrency, BATCH_COLUMNS.currency);
  } catch (error) {
    if (error instanceof AppError)
      throw new Refused(
        'currency',
        `${quoteCell(fields.currency ?? defaultCurrency)} is not an ISO 4217 currency code.`,
      );
    throw error;
  }
}

function money(text: string, currency: Currency): Money {
  try {
    return readMoney(text, currency, quoteCell(text));
  } catch (error) {
    if (error instanceof AppError)
      throw new Refused('amount', `${error.message.replace(/\.$/, '')} (${currency.code}).`);
    throw error;
  }
}

function meansOf(fields: BatchRow['fields'], today: { year: number; month: number }): Means {
  const { token, cardNumber } = fields;
  if (token !== undefined && cardNumber !== undefined)
    throw new Refused('token', 'and "Card Number" are both given: pay with one of them.');
  if (token !== undefined) return { token };
  if (cardNumber === undefined)
    throw new Refused('token', 'is empty, and so is "Card Number": the row has nothing to pay with.');
  const card = readCard(
    {
      number: cardNumber,
      exp_month: required(fields, 'expiryMonth'),
      exp_year: required(fields, 'expiryYear'),
      ...(fields.cvc !== undefined && { cvv: fields.cvc }),
      holder_name: '',
    },
    today,
    'card',
  );
  if ('field' in card) {
    const column: BatchColumn = card.field.endsWith('.number')
      ? 'cardNumber'
      : card.field.endsWith('.exp_month')
        ? 'expiryMonth'
        : card.field.endsWith('.cvv')
          ? 'cvc'
          : 'expiryYear';
    throw new Refused(column, `${card.message}.`);
  }
  return { card };
}
