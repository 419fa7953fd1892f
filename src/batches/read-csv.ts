import type { Readable } from 'node:stream';
import { pipeline, Transform } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { BatchFileError, type SheetRow } from './sheet-row.js';

/** What the parser is given at one go. */
const PIECE_CHARACTERS = 4096;
/** The most one record may hold: a row of a batch file is a few hundred bytes. */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The rows of a CSV file (RFC 4180: quoted fields with commas, quotes and line breaks, CRLF or LF, UTF-8 with or
 * without a byte order mark), read as a stream. Rows are numbered as a spreadsheet shows the file: empty lines keep
 * their numbers and are not yielded. Text that is not UTF-8, or a quote left open, fails the file with the row.
 */
export async function* readCsvRows(source: Readable): AsyncGenerator<SheetRow> {
  const parser = parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  // A failure anywhere (the file, the decoding) destroys every stream with it, and the loop below throws it.
  pipeline(source, utf8Only(), parser, () => {});
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { records: number; empty_lines: number };
    }>) {
      yield { row: info.records + info.empty_lines, cells: record };
    }
  } catch (error) {
    if (error instanceof CsvError)
      throw new BatchFileError(
        `The CSV file cannot be read near row ${((error as CsvError & { records?: number }).records ?? 0) + 1}: ${csvProblem(error.code)}`,
      );
    throw error;
  }
}

/**
 * What a CSV fault is, in paygate's words: the parser's own messages quote the field at fault, which may be a card
 * number, and a reason is stored, shown and sent in events.
 */
function csvProblem(code: string): string {
  switch (code) {
    case 'INVALID_OPENING_QUOTE':
      return 'a quote starts inside a field; a field with quotes in it is quoted whole, each quote in it doubled.';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'a quoted field has more text after its closing quote; each quote inside a field is doubled.';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote is left open to the end of the file.';
    case 'CSV_MAX_RECORD_SIZE':
      return `a row is longer than ${MAX_RECORD_BYTES / 1024} KiB.`;
    default:
      return 'it is not CSV text as RFC 4180 describes it.';
  }
}

/** Passes the bytes on as text, failing at the first byte sequence that is not UTF-8. */
function utf8Only(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  return new Transform({
    readableObjectMode: false,
    decodeStrings: true,
    transform(chunk: Buffer, _encoding, done) {
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        done(new BatchFileError('The file is neither an XLSX workbook nor CSV text in UTF-8.'));
        return;
      }
      // U+0000 is UTF-8, but no spreadsheet's text: a database's text column (PostgreSQL's) cannot even hold it.
      if (text.includes('\u0000')) {
        done(new BatchFileError('The file holds a NUL character: CSV text has none.'));
        return;
      }
      // The parser reads each piece it is given at one go, and a piece of short records costs it dearly (it builds
      // an error object for each record shorter than the header, then lets it pass): small pieces keep each go short,
      // so that the reader lets the event loop go between them.
      for (let at = 0; at < text.length; at += PIECE_CHARACTERS) this.push(text.slice(at, at + PIECE_CHARACTERS));
      done();
    },
    flush(done) {
      try {
        done(null, decoder.decode());
      } catch {
        done(new BatchFileError('The file is neither an XLSX workbook nor CSV text in UTF-8.'));
      }
    },
  });
}
