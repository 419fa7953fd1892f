import { withoutCardNumbers } from '../cards/card.js';

/** A row of a batch file as a spreadsheet shows it: its number (the header is row 1) and its cells' text. */
export interface SheetRow {
  row: number;
  cells: string[];
}

/**
 * What a spreadsheet may hold (Excel's limits, which XLSX files are written for): rows 1 to 1,048,576, columns A to
 * XFD.
 */
export const SHEET_LIMITS = { rows: 1_048_576, columns: 16_384 } as const;

/**
 * Why a file cannot be read as a whole (not a spreadsheet, a broken quote, too big once unpacked). The reason is
 * stored, shown, exported and sent in events, and may quote the file (a part's name, a tag, as the zip and XML
 * readers word their faults): every run of digits as long as a card number is masked in it, and it is kept short.
 */
export class BatchFileError extends Error {
  constructor(reason: string) {
    const masked = withoutCardNumbers(reason);
    super(masked.length > 400 ? `${masked.slice(0, 397)}...` : masked);
  }
}

/**
 * A file whose rows or cells are misnumbered: a row number that is not a whole number within the sheet's limits, a
 * row that comes twice or out of order, a cell of another row or beyond the last column. Found while the file is
 * read, like any other reason; an XLSX sent as the body is also read for these in the request, which refuses it.
 */
export class MisnumberedError extends BatchFileError {}

/** "A" → 1, "XFD" → 16384: a column's letters as its number, from A = 1. */
export function columnNumber(letters: string): number {
  let number = 0;
  for (const char of letters.toUpperCase()) number = number * 26 + (char.charCodeAt(0) - 64);
  return number;
}
