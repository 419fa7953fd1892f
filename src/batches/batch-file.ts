import { yieldToEventLoop } from '../platform/event-loop.js';
import { type BatchColumn, readHeader } from './columns.js';
import { type FileSource, headOf } from './file-source.js';
import { readCsvRows } from './read-csv.js';
import { readXlsxRows } from './read-xlsx.js';
import { BatchFileError, MisnumberedError, SHEET_LIMITS, type SheetRow } from './sheet-row.js';

/** The media types a batch file may be sent as: CSV text and an XLSX workbook. */
export const BATCH_FILE_TYPES = [
  'text/csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

/** A row of a batch file: its number as a spreadsheet shows it, and the text of each known column it fills. */
export interface BatchRow {
  row: number;
  fields: Partial<Record<BatchColumn, string>>;
}

/** What a batch file is, from its first bytes: an XLSX workbook is a zip; anything else is read as CSV text. */
export async function fileKind(source: FileSource): Promise<'xlsx' | 'csv'> {
  return (await headOf(source, 4)).equals(ZIP_SIGNATURE) ? 'xlsx' : 'csv';
}

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * The rows of a batch file, CSV or XLSX, streamed. Row 1 names the columns; a file whose header lacks a required
 * column fails as a whole, naming it ({@link BatchFileError}). Each later row with any text gives the known columns
 * it fills, trimmed; empty rows keep their numbers and are skipped. Rows come once each, in order, numbered within
 * a sheet's limits, with at most as many cells as a sheet has columns; a file that breaks this is refused naming the
 * row ({@link MisnumberedError}), so every row that runs has a number of its own and appears in the result file.
 */
export async function* readBatchFile(source: FileSource): AsyncGenerator<BatchRow> {
  const rows: AsyncGenerator<SheetRow> =
    (await fileKind(source)) === 'xlsx' ? readXlsxRows(source) : readCsvRows(source.range(0, source.size));
  let columns: Map<BatchColumn, number> | undefined;
  let previous = 0;
  let read = 0;
  for await (const { row, cells } of rows) {
    checkNumbering(row, previous, cells.length);
    previous = row;
    // Read from memory, a file of many (even blank) rows would hold the event loop: it is let go now and then.
    read += 1;
    if (read % 1_000 === 0) await yieldToEventLoop();
    if (columns === undefined) {
      if (row !== 1) throw new BatchFileError('Row 1 of the file is empty: it must name the columns.');
      const header = readHeader(cells);
      if ('problem' in header) throw new BatchFileError(header.problem);
      columns = header.columns;
      continue;
    }
    const fields: BatchRow['fields'] = {};
    for (const [column, index] of columns) {
      const text = cells[index]?.trim() ?? '';
      if (text !== '') fields[column] = text;
    }
    if (cells.some((cell) => cell.trim() !== '')) yield { row, fields };
  }
  if (columns === undefined) throw new BatchFileError('The file is empty: row 1 must name the columns.');
}

/**
 * Whether a row may follow the one before it: the reader of each format numbers rows; this holds them all to one rule.
 */
function checkNumbering(row: number, previous: number, cells: number): void {
  if (!Number.isSafeInteger(row) || row < 1 || row > SHEET_LIMITS.rows) {
    throw new MisnumberedError(
      `The row after row ${previous} is numbered ${row}: rows are numbered 1 to ${SHEET_LIMITS.rows}.`,
    );
  }
  if (row <= previous)
    throw new MisnumberedError(`Row ${row} comes after row ${previous}: each row must come once, in order.`);
  if (cells > SHEET_LIMITS.columns)
    throw new MisnumberedError(
      `Row ${row} has ${cells} cells: a sheet has at most ${SHEET_LIMITS.columns} columns (A to XFD).`,
    );
}

/**
 * Reads an XLSX file for misnumbered rows and cells only, in the request that sends it, so that such a file is refused
 * before anything is stored. Any other reason it cannot be read is left to the batch's load, which fails the batch
 * with that reason, as for a file fetched from a file_url. CSV rows are numbered by their position: never misnumbered.
 */
export async function findMisnumbering(source: FileSource): Promise<MisnumberedError | undefined> {
  if ((await fileKind(source)) !== 'xlsx') return undefined;
  let previous = 0;
  let seen = 0;
  try {
    for await (const { row, cells } of readXlsxRows(source)) {
      checkNumbering(row, previous, cells.length);
      previous = row;
      // A sheet of many rows is read a slice at a time: other requests are answered in between.
      seen += 1;
      if (seen % 2_000 === 0) await yieldToEventLoop();
    }
  } catch (error) {
    if (error instanceof MisnumberedError) return error;
    if (error instanceof BatchFileError) return undefined;
    throw error;
  }
  return undefined;
}
