import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { readHeader, type BatchColumn } from './columns.js';
import { readCsvRows } from './read-csv.js';
import { readXlsxRows } from './read-xlsx.js';
import { BatchFileError, type SheetRow } from './sheet-row.js';

/** The media types a batch file may be sent as: CSV text and an XLSX workbook. */
export const BATCH_FILE_TYPES = ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] as const;

/** A row of a batch file: its number as a spreadsheet shows it, and the text of each known column it fills. */
export interface BatchRow {
  row: number;
  fields: Partial<Record<BatchColumn, string>>;
}

/** What a batch file is, from its first bytes: an XLSX workbook is a zip; anything else is read as CSV text. */
export async function fileKind(path: string): Promise<'xlsx' | 'csv'> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(4), position: 0 });
    return bytesRead === 4 && buffer.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? 'xlsx' : 'csv';
  } finally {
    await handle.close();
  }
}

/**
 * The rows of a batch file on disk, CSV or XLSX, streamed. Row 1 names the columns; a file whose header lacks a
 * required column fails as a whole, naming it ({@link BatchFileError}). Each later row with any text gives the
 * known columns it fills, trimmed; empty rows keep their numbers and are skipped.
 */
export async function* readBatchFile(path: string): AsyncGenerator<BatchRow> {
  const rows: AsyncGenerator<SheetRow> = (await fileKind(path)) === 'xlsx' ? readXlsxRows(path) : readCsvRows(createReadStream(path));
  let columns: Map<BatchColumn, number> | undefined;
  for await (const { row, cells } of rows) {
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
