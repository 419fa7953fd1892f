import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl from 'yauzl';
import type { FileSource } from './file-source.js';
import { BatchFileError, columnNumber, MisnumberedError, SHEET_LIMITS, type SheetRow } from './sheet-row.js';

/**
 * How much an XLSX file may unpack to. A workbook is a zip of XML: a few hundred kilobytes can claim gigabytes.
 * The sizes are read from the zip's directory and enforced while inflating, so a file that lies stops there.
 */
export interface XlsxLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxSharedStrings: number;
}

export const XLSX_LIMITS: XlsxLimits = {
  maxEntries: 2_000,
  maxEntryBytes: 256 * 2 ** 20,
  maxTotalBytes: 512 * 2 ** 20,
  maxSharedStrings: 2_000_000,
};

/** Reads a zip's bytes from wherever the source keeps them. */
class SourceReader extends yauzl.RandomAccessReader {
  constructor(private readonly source: FileSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return this.source.range(start, end);
  }
}

const openZip = (source: FileSource, options: yauzl.Options) =>
  new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromRandomAccessReader(new SourceReader(source), source.size, options, (error, zip) =>
      error ? reject(error) : resolve(zip),
    );
  });

/**
 * The rows of the first worksheet (in tab order) of an XLSX file, streamed: the sheet's XML is parsed as it is
 * inflated, one row at a time; only the workbook's shared strings are held. Each cell gives the text the file holds
 * for it: a number as written (12.5 stays "12.5", never a float turned back into text), a shared or inline string as
 * is, a formula's cached result. Rows keep the numbers the sheet gives them (the header is row 1), which must be
 * whole numbers within the sheet's limits; a cell's reference must name its own row and a column from A to XFD, each
 * once, left to right ({@link MisnumberedError} otherwise). Rows with no cell are not yielded.
 *
 * Why not a workbook library: the one that streams rows (exceljs) breaks characters that fall between two chunks
 * of a sheet, sets no bound on what a file unpacks to, and spools sheets to disk; the others read whole files.
 */
export async function* readXlsxRows(source: FileSource, limits: XlsxLimits = XLSX_LIMITS): AsyncGenerator<SheetRow> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(source, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw new BatchFileError(`The file is not a readable XLSX workbook: ${(error as Error).message}.`);
  }
  try {
    const entries = await listEntries(zip, limits);
    const open = async (name: string): Promise<Readable> => {
      const entry = entries.get(name);
      if (!entry) throw new BatchFileError(`The file is not an XLSX workbook: it has no ${name}.`);
      return promisify(
        zip.openReadStream.bind(zip) as (
          entry: yauzl.Entry,
          callback: (error: Error | null, stream: Readable) => void,
        ) => void,
      )(entry);
    };
    const sheetPath = await firstSheetPath(open);
    const shared = entries.has('xl/sharedStrings.xml')
      ? await sharedStrings(await open('xl/sharedStrings.xml'), limits)
      : [];
    yield* sheetRows(await open(sheetPath), shared);
  } catch (error) {
    if (error instanceof BatchFileError) throw error;
    // yauzl's words for a part that inflates to more than the zip's directory says it holds: a hostile file.
    if (/too many bytes in the stream/.test((error as Error).message)) {
      throw new BatchFileError(
        'The XLSX workbook is damaged: a part of it unpacks to more than the workbook says it holds.',
      );
    }
    throw new BatchFileError(`The XLSX workbook cannot be read: ${(error as Error).message}.`);
  } finally {
    zip.close();
  }
}

function listEntries(zip: yauzl.ZipFile, limits: XlsxLimits): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  let total = 0;
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      total += entry.uncompressedSize;
      if (
        entries.size >= limits.maxEntries ||
        entry.uncompressedSize > limits.maxEntryBytes ||
        total > limits.maxTotalBytes
      ) {
        reject(
          new BatchFileError(
            `The XLSX workbook unpacks to more than this server reads (${Math.round(limits.maxTotalBytes / 2 ** 20)} MiB in all, ${Math.round(limits.maxEntryBytes / 2 ** 20)} MiB a part).`,
          ),
        );
        return;
      }
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

/** The first sheet in the workbook's tab order, through its relationship to its part. */
async function firstSheetPath(open: (name: string) => Promise<Readable>): Promise<string> {
  let relation: string | undefined;
  for await (const event of xmlEvents(await open('xl/workbook.xml'))) {
    if (event.kind === 'open' && localName(event.name) === 'sheet') {
      relation = event.attributes['r:id'];
      break;
    }
  }
  if (relation === undefined) throw new BatchFileError('The XLSX workbook has no worksheet.');
  for await (const event of xmlEvents(await open('xl/_rels/workbook.xml.rels'))) {
    if (event.kind === 'open' && localName(event.name) === 'Relationship' && event.attributes.Id === relation) {
      const target = event.attributes.Target ?? '';
      return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
    }
  }
  throw new BatchFileError('The XLSX workbook names a first worksheet it does not hold.');
}

/** The workbook's shared strings: rich text runs joined, phonetic guides left out. */
async function sharedStrings(stream: Readable, limits: XlsxLimits): Promise<string[]> {
  const strings: string[] = [];
  let current: string | undefined;
  let inText = false;
  let phonetic = 0;
  for await (const event of xmlEvents(stream)) {
    if (event.kind === 'text') {
      if (inText && current !== undefined && phonetic === 0) current += event.text;
      continue;
    }
    const name = localName(event.name);
    if (event.kind === 'open') {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic += 1;
      else if (name === 't') inText = true;
    } else if (name === 'si') {
      strings.push(current ?? '');
      current = undefined;
      if (strings.length > limits.maxSharedStrings)
        throw new BatchFileError(`The XLSX workbook holds more than ${limits.maxSharedStrings} strings.`);
    } else if (name === 'rPh') {
      phonetic -= 1;
    } else if (name === 't') {
      inText = false;
    }
  }
  return strings;
}

async function* sheetRows(stream: Readable, shared: string[]): AsyncGenerator<SheetRow> {
  let row: SheetRow | undefined;
  let nextRow = 1;
  let cell: { column: number; type: string | undefined; text: string } | undefined;
  let nextColumn = 0;
  let inValue = false;
  for await (const event of xmlEvents(stream)) {
    if (event.kind === 'text') {
      if (inValue && cell) cell.text += event.text;
      continue;
    }
    const name = localName(event.name);
    if (event.kind === 'open') {
      if (name === 'row') {
        row = { row: rowNumber(event.attributes.r ?? String(nextRow), nextRow - 1), cells: [] };
        nextColumn = 0;
      } else if (name === 'c' && row) {
        const column = event.attributes.r === undefined ? nextColumn : cellColumn(event.attributes.r, row.row);
        if (column < nextColumn)
          throw new MisnumberedError(
            `Row ${row.row} has the cell ${event.attributes.r} twice, or after a cell to its right.`,
          );
        if (column >= SHEET_LIMITS.columns)
          throw new MisnumberedError(`Row ${row.row} has a cell beyond column XFD, the last a sheet may have.`);
        cell = { column, type: event.attributes.t, text: '' };
      } else if ((name === 'v' || name === 't') && cell) {
        inValue = true;
      }
    } else if ((name === 'v' || name === 't') && cell) {
      inValue = false;
    } else if (name === 'c' && cell && row) {
      row.cells[cell.column] = cellText(cell.type, cell.text, shared);
      nextColumn = cell.column + 1;
      cell = undefined;
    } else if (name === 'row' && row) {
      nextRow = row.row + 1;
      if (row.cells.length > 0) yield { row: row.row, cells: Array.from(row.cells, (text) => text ?? '') };
      row = undefined;
    }
  }
}

/** The number a `<row r="...">` gives: a whole number from 1 to the sheet's last row, after the row before it. */
function rowNumber(text: string, previous: number): number {
  const number = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : undefined;
  if (number === undefined || number > SHEET_LIMITS.rows) {
    throw new MisnumberedError(
      `The row after row ${previous} is numbered ${JSON.stringify(text.slice(0, 40))}: rows are numbered 1 to ${SHEET_LIMITS.rows}.`,
    );
  }
  if (number <= previous)
    throw new MisnumberedError(`Row ${number} comes after row ${previous}: each row must come once, in order.`);
  return number;
}

/**
 * The column (from 0) a cell reference such as "C12" names, when it is a cell of row `row` within the sheet's columns.
 */
function cellColumn(reference: string, row: number): number {
  const match = /^([A-Za-z]{1,7})([0-9]{1,8})$/.exec(reference);
  if (!match)
    throw new MisnumberedError(
      `Row ${row} has a cell named ${JSON.stringify(reference.slice(0, 40))}, which is not a cell reference such as "C${row}".`,
    );
  if (Number(match[2]) !== row) throw new MisnumberedError(`Row ${row} holds the cell ${reference}, of another row.`);
  const column = columnNumber(match[1]!);
  if (column > SHEET_LIMITS.columns)
    throw new MisnumberedError(`Row ${row} has the cell ${reference}, beyond column XFD, the last a sheet may have.`);
  return column - 1;
}

function cellText(type: string | undefined, text: string, shared: string[]): string {
  if (type === 's') return shared[Number(text)] ?? '';
  if (type === 'b') return text === '1' ? 'TRUE' : 'FALSE';
  return text;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

type XmlEvent =
  | { kind: 'open'; name: string; attributes: Record<string, string> }
  | { kind: 'close'; name: string }
  | { kind: 'text'; text: string };

/** An XML part as events, parsed as its text arrives (decoded as a stream: no character split between chunks). */
async function* xmlEvents(stream: Readable): AsyncGenerator<XmlEvent> {
  const parser = new SaxesParser();
  let events: XmlEvent[] = [];
  parser.on('opentag', (tag: SaxesTagPlain) =>
    events.push({ kind: 'open', name: tag.name, attributes: tag.attributes as Record<string, string> }),
  );
  parser.on('closetag', (tag: SaxesTagPlain) => events.push({ kind: 'close', name: tag.name }));
  parser.on('text', (text: string) => events.push({ kind: 'text', text }));
  parser.on('cdata', (text: string) => events.push({ kind: 'text', text }));
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    parser.write(chunk);
    const ready = events;
    events = [];
    yield* ready;
  }
  parser.close();
  yield* events;
}
