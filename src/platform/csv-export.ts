import { type Stringifier, stringify } from 'csv-stringify';

/**
 * Text a spreadsheet would take for the start of a formula (OWASP, "CSV Injection"): `=`, `+`, `-`, `@`, a tab or a
 * carriage return as its first character.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number, negative ones included: a spreadsheet reads it as a number, never as a formula. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A cell as it may leave paygate in a CSV file: text that a spreadsheet would run as a formula gets a leading
 * apostrophe, which spreadsheets show as text and never evaluate. Stored data is never changed: only what is exported.
 */
export function spreadsheetSafe(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/**
 * The writer of every CSV file paygate exports: CRLF lines (RFC 4180), a field quoted when it holds a delimiter, a
 * quote or a line break, and every text cell made {@link spreadsheetSafe}.
 */
export function csvWriter(): Stringifier {
  return stringify({ record_delimiter: 'windows', cast: { string: spreadsheetSafe } });
}
