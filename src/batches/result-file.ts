import { Readable } from 'node:stream';
import type { Context } from '../context/context.js';
import { csvWriter } from '../platform/csv-export.js';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import { instructionOf } from './rows.js';
import { type BatchRecord, type BatchRowRecord, rowsAfter } from './store.js';

const HEADER = [
  'Row',
  'Action',
  'Reference Number',
  'Original Transaction ID',
  'Customer UUID',
  'Amount',
  'Currency',
  'Token ID',
  'Card Number',
  'Remark',
  'Status',
  'Transaction ID',
  'Column',
  'Outcome',
];
/** Rows read per page while the file is written: memory stays flat whatever the batch's size. */
const PAGE_ROWS = 1000;

/**
 * Every row of a batch and what became of it, as CSV: the file's own cells (a card shown by its first six and last
 * four digits), the row's status (waiting, running, succeeded, failed, skipped), the transaction it made, and the
 * column and reason of a failure. Written as a stream, a page of rows at a time; no cell can start a formula.
 */
export function resultFile(ctx: Context, batch: BatchRecord): Readable {
  const csv = csvWriter();
  async function* lines(): AsyncGenerator<string[]> {
    yield HEADER;
    for (let after = 0; ; ) {
      const rows = await rowsAfter(ctx.db, ctx.merchant.id, batch.id, after, PAGE_ROWS);
      if (rows.length === 0) return;
      for (const row of rows) yield line(row);
      after = rows.at(-1)!.row_number;
    }
  }
  return Readable.from(lines()).pipe(csv);
}

function line(row: BatchRowRecord): string[] {
  const ins = row.instruction === null ? undefined : instructionOf(row);
  const amount =
    ins && 'amount' in ins && ins.amount !== null ? formatAmount(ins.amount, exponentOf(ins.currency)) : '';
  return [
    String(row.row_number),
    row.action ?? '',
    ins?.reference ?? '',
    ins && 'originalTransactionId' in ins ? ins.originalTransactionId : '',
    ins && 'customerUuid' in ins ? (ins.customerUuid ?? '') : '',
    amount,
    ins && 'currency' in ins ? ins.currency : '',
    ins && 'token' in ins ? (ins.token ?? '') : '',
    row.card_masked ?? '',
    row.remark ?? '',
    row.state,
    row.transaction_id ?? '',
    row.error_column ?? '',
    row.outcome ?? '',
  ];
}
