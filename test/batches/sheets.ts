import { createDeflateRaw, deflateRawSync } from 'node:zlib';

// Spreadsheets written by hand, byte by byte: what a hostile upload can be, beyond what a spreadsheet program writes.

/** A part of a zip already deflated, with what its headers say of it (which may be a lie). */
export interface DeflatedEntry {
  name: string;
  compressed: Buffer;
  crc: number;
  /** The size the headers state the part inflates to. */
  statedSize: number;
}

/** A zip of the given files (deflated), written by hand: what a hostile upload can be. */
export function zip(entries: Array<[string, Buffer] | DeflatedEntry>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { name, compressed, crc, statedSize } = Array.isArray(entry)
      ? { name: entry[0], compressed: deflateRawSync(entry[1]), crc: crc32(entry[1]), statedSize: entry[1].length }
      : entry;
    const content = { length: statedSize };
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(content.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A workbook whose sheet inflates to `inflatedBytes` of spaces from a few megabytes, its headers stating
 * `statedBytes` (the truth, or far less: a reader that trusts them is fooled). Deflated as a stream: never held whole.
 */
export async function zipBomb(inflatedBytes: number, statedBytes = inflatedBytes): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const block = Buffer.alloc(16 * 2 ** 20, 0x20);
  for (let written = 0; written < inflatedBytes; written += block.length) {
    const piece = block.subarray(0, Math.min(block.length, inflatedBytes - written));
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const workbook = xlsxParts();
  return zip([
    ...workbook,
    { name: 'xl/worksheets/sheet1.xml', compressed: Buffer.concat(chunks), crc: 0, statedSize: statedBytes },
  ]);
}

/** The header of every sheet below: the columns a token payment needs. */
export const TOKEN_HEADER = ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'];

/** A cell as a sheet holds it: `<c>` with its reference (when given) and its text inline. */
export interface HandCell {
  ref?: string;
  text: string;
}

/** A row as a sheet holds it: `<row>` with its `r` attribute as given (any text, or none), and its cells. */
export interface HandRow {
  r?: string;
  cells: HandCell[];
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Column letters of a column number from 1 ("A"), as far as "ZZZZZZZ" and beyond any sheet's limit. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Cells of a row numbered `row`, referenced A, B, C... as a spreadsheet program writes them. */
export function cellsOf(row: number, texts: string[]): HandCell[] {
  return texts.map((text, i) => ({ ref: `${columnLetters(i + 1)}${row}`, text }));
}

/** The XML of a worksheet holding these rows, every cell an inline string. */
export function sheetXml(rows: HandRow[]): string {
  const cell = (c: HandCell) =>
    `<c${c.ref === undefined ? '' : ` r="${escapeXml(c.ref)}"`} t="inlineStr"><is><t>${escapeXml(c.text)}</t></is></c>`;
  const row = (r: HandRow) =>
    `<row${r.r === undefined ? '' : ` r="${escapeXml(r.r)}"`}>${r.cells.map(cell).join('')}</row>`;
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.map(row).join('')}</sheetData></worksheet>`;
}

/** An XLSX workbook of one sheet with this XML: the parts a reader needs, and nothing else. */
export function xlsxOf(sheet: string): Buffer {
  return zip([...xlsxParts(), ['xl/worksheets/sheet1.xml', Buffer.from(sheet)]]);
}

/** A workbook's parts but its sheet. */
function xlsxParts(): Array<[string, Buffer]> {
  return [
    [
      '[Content_Types].xml',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
      ),
    ],
    [
      'xl/workbook.xml',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Payments" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ),
    ],
    [
      'xl/_rels/workbook.xml.rels',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
      ),
    ],
  ];
}

/** A workbook whose rows carry these `r` attributes, in this order, each a token payment (the header is row "1"). */
export function xlsxWithRows(numbers: string[], payment: (number: string) => string[]): Buffer {
  return xlsxOf(
    sheetXml([
      { r: '1', cells: cellsOf(1, TOKEN_HEADER) },
      ...numbers.map((r) => ({ r, cells: payment(r).map((text) => ({ text })) })),
    ]),
  );
}
