/**
 * The columns of a batch file (compatibility.md section 6), by the name a merchant's spreadsheet gives them. Headers
 * match without regard to case and surrounding spaces; other columns are ignored.
 */
export const BATCH_COLUMNS = {
  action: 'Action',
  reference: 'Reference Number',
  originalTransaction: 'Original Transaction ID',
  customer: 'Customer UUID',
  amount: 'Amount',
  token: 'Token ID',
  cardNumber: 'Card Number',
  expiryMonth: 'Expiry Month',
  expiryYear: 'Expiry Year',
  cvc: 'CVC',
  remark: 'Remark',
  currency: 'Currency',
} as const;

export type BatchColumn = keyof typeof BATCH_COLUMNS;

/**
 * Every file has these. `Original Transaction ID`, `CVC`, `Remark` and `Currency` may be left out (a file of
 * payments has no original transactions); a row that needs a column the file lacks fails on its own.
 */
const REQUIRED: BatchColumn[] = ['action', 'reference', 'customer', 'amount'];

const byHeader = new Map(
  Object.entries(BATCH_COLUMNS).map(([column, header]) => [normalise(header), column as BatchColumn]),
);

function normalise(header: string): string {
  return header.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Where each known column is in the header row, or why the header cannot be used. */
export function readHeader(cells: string[]): { columns: Map<BatchColumn, number> } | { problem: string } {
  const columns = new Map<BatchColumn, number>();
  for (const [index, cell] of cells.entries()) {
    const column = byHeader.get(normalise(cell));
    if (column === undefined) continue;
    if (columns.has(column))
      return {
        problem: `The header names the column "${BATCH_COLUMNS[column]}" twice (columns ${columns.get(column)! + 1} and ${index + 1}).`,
      };
    columns.set(column, index);
  }
  const missing = REQUIRED.filter((column) => !columns.has(column));
  if (missing.length > 0)
    return {
      problem: `The file has no ${missing.map((column) => `"${BATCH_COLUMNS[column]}"`).join(', ')} column (the header is row 1).`,
    };
  if (!columns.has('token') && !columns.has('cardNumber'))
    return { problem: 'The file has neither a "Token ID" nor a "Card Number" column: rows need one of them to pay.' };
  if (columns.has('cardNumber')) {
    const expiry = (['expiryMonth', 'expiryYear'] as const).filter((column) => !columns.has(column));
    if (expiry.length > 0)
      return {
        problem: `The file has a "Card Number" column but no ${expiry.map((column) => `"${BATCH_COLUMNS[column]}"`).join(' or ')} column.`,
      };
  }
  return { columns };
}
