import { crc32, deflateRawSync } from 'node:zlib';
import { Rng } from '../support/hostile-input.js';
import { columnLetters } from './sheets.js';

/**
 * A corpus of hostile batch files (issue 34): malformed XLSX workbooks and CSV texts, each built from a seed, byte for
 * byte the same on every machine. `hostileFile(seed, index, world)` is case `index` of the corpus of `seed`.
 *
 * Every case starts from a sheet that could run: token payments of the world's customer and card payments of card
 * numbers drawn from the case's seed (Luhn-valid, '4' then 15 digits, never one of the sandbox's magic numbers, like
 * `uniqueCardNumber()` but replayable). Then one family of damage is done to it, sometimes with a second:
 *
 * - XLSX structure: the zip (truncated, signatures broken, parts missing or twice, declared sizes huge or understated,
 *   deflate garbage, stored or unknown methods, encryption flags, nested and odd paths, zip64 fields), the workbook (a
 *   first sheet missing, no sheet, odd targets), shared strings (missing, indexes out of range or not numbers), the XML
 *   (truncated, malformed, DOCTYPE and entities, CDATA, deep nesting, duplicate and odd attributes, unbound prefixes,
 *   characters XML forbids, lying declarations);
 * - numbers: row and cell `r` attributes (fractions, exponents, negatives, zero, huge, twice, out of order, letters,
 *   empty, lowercase columns, past XFD) and amounts ('1e3', ' 5', '-0', huge, many decimals, full-width digits...);
 * - CSV encodings: UTF-8 with one or two byte order marks, UTF-16 with and without one, Latin-1 bytes, invalid UTF-8,
 *   NUL bytes, CR-only and mixed line ends, stray and unclosed quotes (a card number just before one), truncation;
 * - sizes: many empty rows, rows as wide as a sheet or wider, long cells (around the 64 KiB CSV record limit);
 *   every file stays under a few hundred kilobytes: the point is structure, not volume.
 *
 * Some damage puts one of the case's card numbers where a reader's error message may quote it (a zip entry's name, an
 * XML element or attribute name, a relationship's target): a reason must never hold a card number in clear. A
 * misaligned
 * row never moves a card number under a column paygate keeps as the file gives it (Reference Number, Remark, Customer
 * UUID, Token ID): there it would be the merchant's reference or remark, not a card paygate was given.
 *
 * A case is a function of (seed, index, world): the customer and token are the server's, so the same seed on another
 * server builds the same sheet and the same damage, while a damaged deflate stream's bytes can differ.
 */

/** What the corpus needs from the server: a customer of the merchant and a token bound to it. */
export interface CorpusWorld {
  customer: string;
  token: string;
}

export interface HostileFile {
  /** The case's place in its corpus, and the seed it was built from (caseSeed(seed, index)). */
  index: number;
  seed: number;
  /** The family of damage, such as 'xlsx/zip' or 'csv/encoding'. */
  family: string;
  /** What was done, in order, in words: enough to build the bytes again by hand. */
  steps: string[];
  bytes: Buffer;
  /** What the file's first four bytes make it, as the server decides: a zip is an XLSX workbook, anything else CSV. */
  kind: 'csv' | 'xlsx';
  /** Every card number the file holds (in rows or elsewhere): none may ever be readable at rest. */
  cardNumbers: string[];
}

/** The seed of case `index` of the corpus of `seed`: cases are independent, so any one of them replays alone. */
export function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
export const kindOf = (bytes: Buffer): 'csv' | 'xlsx' => (bytes.subarray(0, 4).equals(ZIP_SIGNATURE) ? 'xlsx' : 'csv');

/** Case `index` of the corpus of `seed`. */
export function hostileFile(seed: number, index: number, world: CorpusWorld): HostileFile {
  const own = caseSeed(seed, index);
  const b = new Builder(own, world);
  const family = b.rng.weighted<string>([
    [3, () => 'xlsx/zip'],
    [2, () => 'xlsx/parts'],
    [3, () => 'xlsx/xml'],
    [3, () => 'xlsx/numbers'],
    [2, () => 'xlsx/cells'],
    [1, () => 'xlsx/sizes'],
    [3, () => 'csv/encoding'],
    [2, () => 'csv/quotes'],
    [2, () => 'csv/numbers'],
    [1, () => 'csv/sizes'],
  ]);
  const bytes = family.startsWith('xlsx/') ? xlsxCase(b, family) : csvCase(b, family);
  return { index, seed: own, family, steps: b.steps, bytes, kind: kindOf(bytes), cardNumbers: [...new Set(b.cards)] };
}

// ---------------------------------------------------------------------------------------------------------
// The sheet every case starts from

class Builder {
  readonly rng: Rng;
  readonly steps: string[] = [];
  readonly cards: string[] = [];
  readonly tag: string;

  constructor(
    readonly seed: number,
    readonly world: CorpusWorld,
  ) {
    this.rng = new Rng(seed);
    this.tag = `HF${seed.toString(36)}`;
  }

  step(text: string): void {
    this.steps.push(text);
  }

  /** A fresh card number of this case: Luhn-valid, never one the sandbox treats specially (4000..., 4242...). */
  card(): string {
    const body = `4${this.rng.int(5, 9)}${Array.from({ length: 13 }, () => this.rng.int(0, 9)).join('')}`;
    const number = `${body}${luhnDigit(body)}`;
    this.cards.push(number);
    return number;
  }

  /** One of the case's card numbers (a new one when it has none yet). */
  someCard(): string {
    return this.cards.length > 0 ? this.rng.pick(this.cards) : this.card();
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = this.rng.int(0, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

export function luhnDigit(body: string): number {
  const sum = [...body].reverse().reduce((total, digit, i) => {
    const d = Number(digit) * (i % 2 === 0 ? 2 : 1);
    return total + (d > 9 ? d - 9 : d);
  }, 0);
  return (10 - (sum % 10)) % 10;
}

/** A sheet as rows of cell texts; row 0 is the header. */
interface Table {
  header: string[];
  rows: string[][];
}

const COLUMNS = [
  'Action',
  'Reference Number',
  'Customer UUID',
  'Amount',
  'Remark',
  'Token ID',
  'Card Number',
  'Expiry Month',
  'Expiry Year',
  'CVC',
  'Currency',
  'Notes',
] as const;
type Column = (typeof COLUMNS)[number];

/** Amounts a row may be given: odd ones the row rules must refuse (or read exactly), and a few good ones. */
export const HOSTILE_AMOUNTS = [
  '1e3',
  '1E3',
  '1e-2',
  ' 5',
  '5 ',
  '-0',
  '-0.00',
  '0',
  '0.00',
  '-1',
  '99999999999999999999',
  '9007199254740993',
  '92233720368547758.07',
  '1.0000000001',
  '12.345',
  '0.001',
  '.5',
  '5.',
  '+5',
  '1,000',
  '１２',
  '١٢',
  '0x10',
  'Infinity',
  'NaN',
  '1_000',
  '00012',
  '1.',
  '12.50',
  '0.1',
  '1/2',
  '$5',
  '5HKD',
  '\t5',
  '5\u00a0',
  '1e400',
  '-1e3',
  '٫5',
];

const ACTIONS = ['payment', 'payment', 'authorize', 'PAYMENT', ' Payment '];

/**
 * The header and rows a case starts from: one or two token payments, one to three card payments (each its own card
 * number), sometimes a refused row, in columns that are sometimes shuffled or renamed as the header rules allow.
 */
function baseTable(b: Builder): Table {
  const { rng } = b;
  let columns: Column[] = ['Action', 'Reference Number', 'Customer UUID', 'Amount'];
  if (rng.chance(0.3)) columns.push('Remark');
  columns.push('Token ID', 'Card Number', 'Expiry Month', 'Expiry Year');
  if (rng.chance(0.7)) columns.push('CVC');
  if (rng.chance(0.3)) columns.push('Currency');
  if (rng.chance(0.4)) columns.push('Notes');
  // Shuffled columns may put a card number, shifted by a misaligned row, under Remark: a shuffled sheet has none.
  if (rng.chance(0.15)) columns = b.shuffle(columns.filter((c) => c !== 'Remark'));
  const header = columns.map((name) =>
    rng.weighted<string>([
      [8, () => name],
      [1, () => name.toUpperCase()],
      [1, () => `  ${name.toLowerCase().replace(' ', '   ')} `],
    ]),
  );
  let reference = 0;
  const ref = () => `${b.tag}-${++reference}`;
  const row = (values: Partial<Record<Column, string>>) => columns.map((column) => values[column] ?? '');
  const rows: string[][] = [];
  const tokens = rng.int(1, 2);
  for (let i = 0; i < tokens; i += 1) {
    rows.push(
      row({
        Action: rng.pick(ACTIONS),
        'Reference Number': ref(),
        'Customer UUID': b.world.customer,
        Amount: rng.pick(['1.00', '2.5', '10']),
        'Token ID': b.world.token,
        Remark: 'dues',
        Currency: rng.pick(['HKD', '', 'hkd']),
      }),
    );
  }
  const cards = rng.int(1, 3);
  for (let i = 0; i < cards; i += 1) {
    const number = b.card();
    rows.push(
      row({
        Action: rng.pick(ACTIONS),
        'Reference Number': ref(),
        'Customer UUID': rng.chance(0.5) ? b.world.customer : '',
        Amount: '2.00',
        'Card Number': rng.chance(0.1)
          ? `${number.slice(0, 4)} ${number.slice(4, 8)} ${number.slice(8, 12)} ${number.slice(12)}`
          : number,
        'Expiry Month': rng.pick(['12', '1', '06']),
        'Expiry Year': rng.pick(['2040', '40', '2041']),
        CVC: String(rng.int(100, 999)),
        Remark: 'card',
        // An unknown column is ignored: a card number there must not be kept either.
        Notes: rng.chance(0.3) ? number : 'note',
      }),
    );
  }
  if (rng.chance(0.3))
    rows.splice(
      rng.int(0, rows.length),
      0,
      row({
        Action: rng.pick(['charge', '', 'void', 'refund']),
        'Reference Number': ref(),
        'Customer UUID': b.world.customer,
        Amount: '1.00',
        'Token ID': b.world.token,
      }),
    );
  b.step(
    `sheet: header [${header.join('|')}], ${tokens} token payment(s), ${cards} card payment(s), ${rows.length} rows`,
  );
  return { header, rows };
}

const columnOf = (table: Table, name: Column) =>
  table.header.findIndex((h) => h.trim().replace(/\s+/g, ' ').toLowerCase() === name.toLowerCase());

/** Puts hostile amounts in some rows. */
function hostileAmounts(b: Builder, table: Table): void {
  const at = columnOf(table, 'Amount');
  if (at < 0) return;
  const count = b.rng.int(1, Math.max(1, table.rows.length));
  for (let i = 0; i < count; i += 1) {
    const row = b.rng.int(0, table.rows.length - 1);
    const amount = b.rng.pick(HOSTILE_AMOUNTS);
    table.rows[row]![at] = amount;
    b.step(`row ${row + 2}: Amount ${JSON.stringify(amount)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// XLSX

interface XCell {
  ref: string | undefined;
  text: string;
  /** How the cell holds its text. */
  form: 'inline' | 'shared' | 'number' | 'formula' | 'cdata' | 'rich' | 'charrefs' | 'boolean' | 'raw';
  /** For 'raw': the whole `<c>` element as written. */
  raw?: string;
  /** Attributes written after r, as text (odd ones included). */
  attrs?: string;
}

interface XRow {
  r: string | undefined;
  cells: XCell[];
  attrs?: string;
  /** The whole `<row>` element as written, instead of the above. */
  raw?: string;
}

interface Workbook {
  header: string[];
  rows: XRow[];
  shared: string[];
  /** Whether the workbook has an xl/sharedStrings.xml part, and how its text is written. */
  sharedPart: 'normal' | 'none' | 'rich' | 'phonetic';
  /** The sheet's element prefix (''), or one bound to the namespace ('x:'). */
  prefix: string;
  sheetTarget: string;
  sheetPath: string;
  workbookXml?: string;
  relsXml?: string;
  /** Text put between the `<sheetData>` rows (comments, processing instructions, deep nesting). */
  between: string[];
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function workbookOf(b: Builder, table: Table): Workbook {
  const rows: XRow[] = [];
  const all = [table.header, ...table.rows];
  all.forEach((texts, i) => {
    const r = String(i + 1);
    const cells: XCell[] = [];
    texts.forEach((text, column) => {
      // A spreadsheet program writes no cell for an empty one (sometimes it does).
      if (text === '' && b.rng.chance(0.8)) return;
      cells.push({ ref: `${columnLetters(column + 1)}${r}`, text, form: cellForm(b, text) });
    });
    rows.push({ r, cells });
  });
  return {
    header: table.header,
    rows,
    shared: [],
    sharedPart: 'normal',
    prefix: '',
    sheetTarget: 'worksheets/sheet1.xml',
    sheetPath: 'xl/worksheets/sheet1.xml',
    between: [],
  };
}

function cellForm(b: Builder, text: string): XCell['form'] {
  if (/^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(text) && b.rng.chance(0.5)) return 'number';
  return b.rng.weighted<XCell['form']>([
    [6, () => 'shared'],
    [4, () => 'inline'],
    [1, () => 'formula'],
    [1, () => 'cdata'],
    [1, () => 'rich'],
    [1, () => 'charrefs'],
  ]);
}

function cellXml(cell: XCell, shared: string[]): string {
  if (cell.form === 'raw') return cell.raw ?? '';
  const r = cell.ref === undefined ? '' : ` r="${escapeXml(cell.ref)}"`;
  const attrs = cell.attrs ?? '';
  const text = escapeXml(cell.text);
  switch (cell.form) {
    case 'shared': {
      let index = shared.indexOf(cell.text);
      if (index < 0) index = shared.push(cell.text) - 1;
      return `<c${r} t="s"${attrs}><v>${index}</v></c>`;
    }
    case 'number':
      return `<c${r}${attrs}><v>${text}</v></c>`;
    case 'boolean':
      return `<c${r} t="b"${attrs}><v>${text}</v></c>`;
    case 'formula':
      return `<c${r} t="str"${attrs}><f>CONCATENATE("${text.replace(/"/g, '""')}")</f><v>${text}</v></c>`;
    case 'cdata':
      return `<c${r} t="inlineStr"${attrs}><is><t><![CDATA[${cell.text.replace(/]]>/g, ']]]]><![CDATA[>')}]]></t></is></c>`;
    case 'rich': {
      const cut = Math.floor(cell.text.length / 2);
      return `<c${r} t="inlineStr"${attrs}><is><r><t xml:space="preserve">${escapeXml(cell.text.slice(0, cut))}</t></r><r><rPr><b/></rPr><t xml:space="preserve">${escapeXml(cell.text.slice(cut))}</t></r></is></c>`;
    }
    case 'charrefs':
      return `<c${r} t="inlineStr"${attrs}><is><t>${[...cell.text].map((ch) => `&#${ch.codePointAt(0)};`).join('')}</t></is></c>`;
    case 'inline':
      return `<c${r} t="inlineStr"${attrs}><is><t xml:space="preserve">${text}</t></is></c>`;
  }
}

function sheetXmlOf(w: Workbook): string {
  const p = w.prefix;
  const rows = w.rows
    .map((row, i) => {
      const between = w.between[i] ?? '';
      if (row.raw !== undefined) return between + row.raw;
      const r = row.r === undefined ? '' : ` r="${escapeXml(row.r)}"`;
      return `${between}<${p}row${r}${row.attrs ?? ''}>${row.cells.map((cell) => cellXml(cell, w.shared).replace(/<(\/?)(c|v|is|t|r|rPr|b|f)([ >/])/g, `<$1${p}$2$3`)).join('')}</${p}row>`;
    })
    .join('');
  const xmlns = p === '' ? `xmlns="${NS}"` : `xmlns:${p.slice(0, -1)}="${NS}"`;
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${p}worksheet ${xmlns}><${p}dimension ref="A1:L${w.rows.length}"/><${p}sheetData>${rows}${w.between[w.rows.length] ?? ''}</${p}sheetData></${p}worksheet>`;
}

function sharedXmlOf(w: Workbook): string {
  const item = (text: string) => {
    if (w.sharedPart === 'rich' && text.length > 1) {
      const cut = Math.ceil(text.length / 3);
      return `<si><r><t xml:space="preserve">${escapeXml(text.slice(0, cut))}</t></r><r><rPr><i/></rPr><t xml:space="preserve">${escapeXml(text.slice(cut))}</t></r></si>`;
    }
    if (w.sharedPart === 'phonetic')
      return `<si><t xml:space="preserve">${escapeXml(text)}</t><rPh sb="0" eb="1"><t>ふりがな</t></rPh><phoneticPr fontId="1"/></si>`;
    return `<si><t xml:space="preserve">${escapeXml(text)}</t></si>`;
  };
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="${NS}" count="${w.shared.length}" uniqueCount="${w.shared.length}">${w.shared.map(item).join('')}</sst>`;
}

const contentTypesXml = () =>
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>';
const workbookXml = (sheets = '<sheet name="Payments" sheetId="1" r:id="rId1"/>') =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${NS}" xmlns:r="${REL_NS}"><sheets>${sheets}</sheets></workbook>`;
const relsXml = (relations: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relations}</Relationships>`;
const sheetRelation = (id: string, target: string) =>
  `<Relationship Id="${escapeXml(id)}" Type="${REL_NS}/worksheet" Target="${escapeXml(target)}"/>`;

/** The parts of a workbook, named, in the order the zip holds them. */
function partsOf(w: Workbook): Array<[string, Buffer]> {
  const sheet = sheetXmlOf(w);
  const parts: Array<[string, Buffer]> = [
    ['[Content_Types].xml', Buffer.from(contentTypesXml())],
    [
      '_rels/.rels',
      Buffer.from(relsXml(`<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/>`)),
    ],
    ['xl/workbook.xml', Buffer.from(w.workbookXml ?? workbookXml())],
    ['xl/_rels/workbook.xml.rels', Buffer.from(w.relsXml ?? relsXml(sheetRelation('rId1', w.sheetTarget)))],
    [w.sheetPath, Buffer.from(sheet)],
  ];
  if (w.sharedPart !== 'none' && w.shared.length > 0) parts.push(['xl/sharedStrings.xml', Buffer.from(sharedXmlOf(w))]);
  return parts;
}

function xlsxCase(b: Builder, family: string): Buffer {
  const table = baseTable(b);
  if (family === 'xlsx/cells' || b.rng.chance(0.3)) hostileAmounts(b, table);
  const w = workbookOf(b, table);
  if (b.rng.chance(0.2)) {
    w.prefix = 'x:';
    b.step('sheet elements prefixed x: (bound to the namespace)');
  }
  const main = b.rng.chance(0.75) ? 1 : 2;
  const mutations: Array<() => void> = [];
  const add = (count: number, pick: () => () => void) => {
    for (let i = 0; i < count; i += 1) mutations.push(pick());
  };
  // The families below act on the model (rows, cells, shared strings), on the parts' text, or on the zip's bytes.
  const xmlText: Array<(parts: Array<[string, Buffer]>) => void> = [];
  const zipLevel: Array<(entries: ZipEntry[]) => ZipEntry[]> = [];
  const byteLevel: Array<(bytes: Buffer) => Buffer> = [];
  const family2 = b.rng.chance(0.2)
    ? b.rng.pick(
        ['xlsx/zip', 'xlsx/parts', 'xlsx/xml', 'xlsx/numbers', 'xlsx/cells', 'xlsx/sizes'].filter((f) => f !== family),
      )
    : undefined;
  for (const [i, f] of [family, family2].entries()) {
    if (f === undefined) continue;
    const count = i === 0 ? main : 1;
    if (f === 'xlsx/numbers') add(count, () => b.rng.pick(numberingMutations(b, w)));
    if (f === 'xlsx/cells') add(count, () => b.rng.pick(cellMutations(b, w)));
    if (f === 'xlsx/sizes') add(count, () => b.rng.pick(sizeMutations(b, w)));
    if (f === 'xlsx/parts') add(count, () => b.rng.pick(workbookMutations(b, w)));
    if (f === 'xlsx/xml') for (let i = 0; i < count; i += 1) xmlText.push(xmlMutation(b, w));
    if (f === 'xlsx/zip') {
      for (let i = 0; i < count; i += 1) {
        if (b.rng.chance(0.65)) zipLevel.push(entryMutation(b, w));
        else byteLevel.push(byteMutation(b));
      }
    }
  }
  for (const mutate of mutations) mutate();
  const parts = partsOf(w);
  for (const mutate of xmlText) mutate(parts);
  let entries: ZipEntry[] = parts.map(([name, data]) => ({ name: Buffer.from(name), data }));
  if (b.rng.chance(0.15)) {
    b.shuffle(entries);
    b.step('zip entries in shuffled order');
  }
  for (const mutate of zipLevel) entries = mutate(entries);
  let bytes: Buffer = writeZip(entries, { declaredCount: declaredCounts.get(entries) });
  for (const mutate of byteLevel) bytes = mutate(bytes);
  return bytes;
}

const ROW_NUMBERS = [
  '2.5',
  '2.0',
  '1e1',
  '1E1',
  '-1',
  '-5',
  '0',
  '00',
  '02',
  ' 2',
  '2 ',
  '+2',
  '0x2',
  '２',
  '1048576',
  '1048577',
  '99999999999',
  '9'.repeat(400),
  '',
  'abc',
  'NaN',
  'Infinity',
  '2\u00a0',
  '１',
  '٢',
  '3.',
  '.3',
  '4e0',
  '1048575.9',
  '2147483648',
  '1,2',
];
const CELL_REFS = (row: string) => [
  `a${row}`,
  `b${row}`,
  `XFD${row}`,
  `XFE${row}`,
  `ZZZZZZZ${row}`,
  `ZZZZZZZZ${row}`,
  `AAAA${row}`,
  'A',
  row,
  `A0${row}`,
  `A${row}.0`,
  `A${Number(row) + 1}`,
  `A-${row}`,
  `A ${row}`,
  `A${row} `,
  `Ａ${row}`,
  '',
  `$A$${row}`,
  `A${row}:B${row}`,
  `R${row}C1`,
  `A1e1`,
  `xfd${row}`,
  `A${'0'.repeat(20)}${row}`,
  `${'A'.repeat(200)}${row}`,
];

function numberingMutations(b: Builder, w: Workbook): Array<() => void> {
  const { rng } = b;
  const someRow = () => w.rows[rng.int(0, w.rows.length - 1)]!;
  const dataRow = () => w.rows[rng.int(1, w.rows.length - 1)] ?? someRow();
  return [
    () => {
      const row = dataRow();
      const r = rng.pick(ROW_NUMBERS);
      b.step(
        `row ${row.r} renumbered r=${JSON.stringify(r.length > 30 ? `${r.slice(0, 10)}…(${r.length})` : r)} (its cells keep their refs)`,
      );
      row.r = r;
    },
    () => {
      const row = dataRow();
      const r = rng.pick(ROW_NUMBERS);
      b.step(
        `row ${row.r} renumbered r=${JSON.stringify(r.length > 30 ? `${r.slice(0, 10)}…(${r.length})` : r)}, its cells' refs following`,
      );
      for (const cell of row.cells) if (cell.ref !== undefined) cell.ref = cell.ref.replace(/[0-9]+$/, r);
      row.r = r;
    },
    () => {
      const i = rng.int(1, w.rows.length - 1);
      const copy = structuredClone(w.rows[i]!);
      w.rows.splice(i + 1, 0, copy);
      b.step(`row ${copy.r} given twice`);
    },
    () => {
      if (w.rows.length < 3) return;
      const i = rng.int(1, w.rows.length - 2);
      [w.rows[i], w.rows[i + 1]] = [w.rows[i + 1]!, w.rows[i]!];
      b.step(`rows ${w.rows[i + 1]!.r} and ${w.rows[i]!.r} swapped (out of order)`);
    },
    () => {
      // Cells without r take the next column: the empty cells a spreadsheet program leaves out are written, so that
      // every cell keeps its column (a misaligned row is a case of its own, in cellMutations).
      const which = rng.pick(['rows', 'cells', 'both']);
      for (const row of w.rows) {
        if (which !== 'cells') row.r = undefined;
        if (which !== 'rows') row.cells = withoutRefs(row.cells);
      }
      b.step(
        `no r attribute on ${which === 'both' ? 'rows or cells' : which}${which === 'rows' ? '' : ' (empty cells written, each keeping its column)'}`,
      );
    },
    () => {
      const row = dataRow();
      const cell = row.cells.length > 0 ? row.cells[rng.int(0, row.cells.length - 1)]! : undefined;
      if (!cell) return;
      const ref = rng.pick(CELL_REFS(row.r ?? '2'));
      b.step(
        `row ${row.r}: cell ${cell.ref} named ${JSON.stringify(ref.length > 30 ? `${ref.slice(0, 10)}…(${ref.length})` : ref)}`,
      );
      cell.ref = ref;
    },
    () => {
      const row = dataRow();
      if (row.cells.length < 2) return;
      const i = rng.int(0, row.cells.length - 2);
      [row.cells[i], row.cells[i + 1]] = [row.cells[i + 1]!, row.cells[i]!];
      b.step(`row ${row.r}: cells ${row.cells[i + 1]!.ref} and ${row.cells[i]!.ref} swapped`);
    },
    () => {
      const row = dataRow();
      if (row.cells.length < 1) return;
      const i = rng.int(0, row.cells.length - 1);
      row.cells.splice(i + 1, 0, { ...row.cells[i]!, text: 'again' });
      b.step(`row ${row.r}: cell ${row.cells[i]!.ref} given twice`);
    },
    () => {
      const row = dataRow();
      for (const cell of row.cells) if (cell.ref !== undefined) cell.ref = cell.ref.toLowerCase();
      b.step(`row ${row.r}: lowercase cell refs`);
    },
    () => {
      // The last row a sheet may have, with a valid payment in it.
      const row = w.rows.at(-1)!;
      const r = rng.pick(['1048576', '1048577', '1000000']);
      b.step(`last row renumbered ${r}, its cells following`);
      for (const cell of row.cells) if (cell.ref !== undefined) cell.ref = cell.ref.replace(/[0-9]+$/, r);
      row.r = r;
    },
  ];
}

function cellMutations(b: Builder, w: Workbook): Array<() => void> {
  const { rng } = b;
  const dataRow = () => w.rows[rng.int(1, w.rows.length - 1)] ?? w.rows[0]!;
  const someCell = () => {
    const row = dataRow();
    return row.cells.length > 0 ? { row, cell: row.cells[rng.int(0, row.cells.length - 1)]! } : undefined;
  };
  return [
    () => {
      const found = someCell();
      if (!found) return;
      const v = rng.pick([
        '999999',
        '-1',
        '1.5',
        '1e2',
        'NaN',
        '',
        ' 0',
        '0x0',
        '__proto__',
        'constructor',
        'length',
        '4294967296',
        '1'.repeat(40),
      ]);
      found.cell.form = 'raw';
      found.cell.raw = `<c${found.cell.ref === undefined ? '' : ` r="${found.cell.ref}"`} t="s"><v>${v}</v></c>`;
      b.step(`row ${found.row.r}: cell ${found.cell.ref} a shared string at index ${JSON.stringify(v)}`);
    },
    () => {
      w.sharedPart = 'none';
      b.step('no xl/sharedStrings.xml, the cells still naming shared strings');
    },
    () => {
      w.sharedPart = rng.pick(['rich', 'phonetic']);
      b.step(`shared strings written as ${w.sharedPart} text`);
    },
    () => {
      const found = someCell();
      if (!found) return;
      const t = rng.pick([
        '__proto__',
        'constructor',
        'e',
        'd',
        'n',
        'b',
        'str',
        'inlineStr',
        'S',
        '',
        'x'.repeat(5000),
        's s',
        'hasOwnProperty',
      ]);
      found.cell.attrs = ` t="${escapeXml(t)}"`;
      found.cell.form = 'number';
      b.step(
        `row ${found.row.r}: cell ${found.cell.ref} of type t=${JSON.stringify(t.slice(0, 20))} holding <v>${found.cell.text.slice(0, 20)}</v>`,
      );
    },
    () => {
      const found = someCell();
      if (!found) return;
      const attrs = rng.pick([
        ' s="999999"',
        ' s="-1"',
        ' cm="1" vm="4294967296"',
        ` foo="${'&#x41;'.repeat(200)}"`,
        ' r2="A2"',
        ' xml:space="preserve"',
        ' t=""',
      ]);
      found.cell.attrs = `${found.cell.attrs ?? ''}${attrs}`;
      b.step(`row ${found.row.r}: cell ${found.cell.ref} with attributes${attrs.slice(0, 40)}`);
    },
    () => {
      const found = someCell();
      if (!found) return;
      found.cell.form = 'cdata';
      b.step(`row ${found.row.r}: cell ${found.cell.ref} as CDATA`);
    },
    () => {
      const found = someCell();
      if (!found) return;
      found.cell.form = 'boolean';
      b.step(`row ${found.row.r}: cell ${found.cell.ref} a boolean of ${JSON.stringify(found.cell.text.slice(0, 20))}`);
    },
    () => {
      // A formula whose cached value is not there, or is an error.
      const found = someCell();
      if (!found) return;
      const raw = rng.pick([`<f>1+1</f>`, `<f>1/0</f><v>#DIV/0!</v>`, `<f t="shared" si="0"/>`, `<v></v><v>2</v>`]);
      found.cell.form = 'raw';
      found.cell.raw = `<c${found.cell.ref === undefined ? '' : ` r="${found.cell.ref}"`}${raw.includes('#DIV') ? ' t="e"' : ''}>${raw}</c>`;
      b.step(`row ${found.row.r}: cell ${found.cell.ref} written ${raw}`);
    },
    () => {
      const row = dataRow();
      row.attrs = rng.pick([' spans="1:99999999"', ' hidden="1"', ' ht="1e400"', ` customFormat="1" s="-1"`, ' r="2"']);
      b.step(`row ${row.r} with attributes${row.attrs}`);
    },
    () => {
      // A misaligned row: its cells without r, one of them left out, so the cells after it move one column left
      // (a card number may land in another column, and that column's rules must not keep it in clear).
      const row = w.rows.find((r) => r !== w.rows[0] && r.cells.some((c) => /^[0-9]{16}$/.test(c.text))) ?? dataRow();
      const cells = withoutRefs(row.cells);
      const at = misalignAt(
        b,
        w.header,
        cells.map((cell) => cell.text),
        -1,
      );
      const gone = cells.splice(at, 1)[0];
      row.cells = cells;
      b.step(
        `row ${row.r} misaligned: its cells without r, cell ${at + 1} (${JSON.stringify(gone?.text.slice(0, 20) ?? '')}) left out`,
      );
    },
    () => {
      // Whitespace and a card number's digits spread over a rich string.
      const row = w.rows.find((r) => r.cells.some((c) => /^[0-9 ]{16,19}$/.test(c.text)));
      const cell = row?.cells.find((c) => /^[0-9 ]{16,19}$/.test(c.text));
      if (!row || !cell) return;
      cell.form = 'rich';
      b.step(`row ${row.r}: the card number in cell ${cell.ref} split over two rich-text runs`);
    },
  ];
}

function sizeMutations(b: Builder, w: Workbook): Array<() => void> {
  const { rng } = b;
  return [
    () => {
      // Many empty rows before the rows that pay.
      const count = rng.int(1_000, 20_000);
      const rows: XRow[] = Array.from({ length: count }, (_, i) => ({
        r: String(i + 2),
        cells: rng.chance(0.5) ? [] : [{ ref: `A${i + 2}`, text: '', form: 'inline' }],
      }));
      const moved = w.rows.slice(1).map((row, i) => renumber(row, count + 2 + i));
      w.rows = [w.rows[0]!, ...rows, ...moved];
      b.step(`${count} empty rows (rows 2 to ${count + 1}), the sheet's rows after them`);
    },
    () => {
      const row = w.rows[rng.int(1, w.rows.length - 1)] ?? w.rows[0]!;
      const width = rng.pick([16_383, 16_384, 16_385, 20_000]);
      const start = row.cells.length;
      const named = rng.chance(0.5);
      for (let column = start; column < width; column += 1)
        row.cells.push({ ref: named ? `${columnLetters(column + 1)}${row.r}` : undefined, text: '', form: 'number' });
      b.step(`row ${row.r} widened to ${width} cells (${named ? 'named' : 'without r'})`);
    },
    () => {
      const row = w.rows[rng.int(1, w.rows.length - 1)] ?? w.rows[0]!;
      const cell = row.cells[rng.int(0, row.cells.length - 1)];
      if (!cell) return;
      const length = rng.pick([256, 32_767, 32_768, 70_000, 300_000]);
      cell.text = rng.chance(0.5) ? 'x'.repeat(length) : '😀'.repeat(Math.floor(length / 2));
      b.step(`row ${row.r}: cell ${cell.ref} ${length} characters long`);
    },
    () => {
      // Many refused rows (an unknown action): they make no payment, but each is a record.
      const count = rng.int(200, 1_200);
      const template = w.rows.at(-1)!;
      const last = Number(template.r ?? w.rows.length);
      for (let i = 1; i <= count; i += 1) {
        const r = last + i;
        w.rows.push({
          r: String(r),
          cells: [
            { ref: `A${r}`, text: 'charge', form: 'inline' },
            { ref: `B${r}`, text: `${b.tag}-x${i}`, form: 'inline' },
          ],
        });
      }
      b.step(`${count} more rows, each an unknown action`);
    },
  ];
}

/** The cells without their r attributes, an empty cell written wherever one was left out, so each keeps its column. */
function withoutRefs(cells: XCell[]): XCell[] {
  const out: XCell[] = [];
  for (const cell of cells) {
    const letters = /^([A-Z]+)[0-9]+$/.exec(cell.ref ?? '')?.[1];
    if (letters !== undefined) {
      const column = [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
      while (out.length < column) out.push({ ref: undefined, text: '', form: 'inline' });
    }
    out.push({ ...cell, ref: undefined });
  }
  return out;
}

/**
 * Columns whose text paygate keeps as the file gives it (an order's reference, a remark, the ids a row names): a card
 * number the file itself puts there is a reference or a remark to paygate, kept by design, so a misaligned row is never
 * made to move one there.
 */
const KEPT_AS_GIVEN = ['reference number', 'remark', 'customer uuid', 'token id', 'original transaction id'];

/**
 * Where a misaligned row loses a cell (`shift` -1) or gains one (+1), so that no card number in it moves under a column
 * kept as given: the card numbers of the case stay where paygate must never keep them readable.
 */
function misalignAt(b: Builder, header: string[], cells: string[], shift: -1 | 1): number {
  const numbers = cells.flatMap((cell, i) => (/^[0-9 ]{16,19}$/.test(cell) ? [i] : []));
  const landing = (at: number, k: number) =>
    shift === -1 ? (at < k ? k - 1 : at === k ? -1 : k) : at <= k ? k + 1 : k;
  const kept = (column: number) =>
    column >= 0 && KEPT_AS_GIVEN.includes((header[column] ?? '').trim().replace(/\s+/g, ' ').toLowerCase());
  const places = Array.from({ length: cells.length + (shift === 1 ? 1 : 0) }, (_, at) => at).filter((at) =>
    numbers.every((k) => !kept(landing(at, k))),
  );
  return places.length > 0 ? b.rng.pick(places) : cells.length - (shift === -1 ? 1 : 0);
}

function renumber(row: XRow, r: number): XRow {
  return {
    ...row,
    r: String(r),
    cells: row.cells.map((cell) => ({ ...cell, ref: cell.ref?.replace(/[0-9]+$/, String(r)) })),
  };
}

function workbookMutations(b: Builder, w: Workbook): Array<() => void> {
  const { rng } = b;
  return [
    () => {
      const target = rng.pick([
        'worksheets/sheet2.xml',
        '/xl/worksheets/sheet9.xml',
        '',
        'worksheets/../worksheets/sheet1.xml',
        './worksheets/sheet1.xml',
        'worksheets\\sheet1.xml',
        'WORKSHEETS/SHEET1.XML',
        `worksheets/${b.someCard()}.xml`,
        'http://127.0.0.1:1/sheet.xml',
        '../../../etc/passwd',
      ]);
      w.sheetTarget = target;
      b.step(`the first sheet's relationship targets ${JSON.stringify(target)} (the sheet stays at ${w.sheetPath})`);
    },
    () => {
      w.sheetTarget = '/xl/worksheets/sheet1.xml';
      b.step("the first sheet's target is absolute: /xl/worksheets/sheet1.xml");
    },
    () => {
      w.workbookXml = workbookXml(
        rng.pick([
          '',
          '<sheet name="Payments" sheetId="1"/>',
          '<sheet name="Payments" sheetId="1" id="rId1"/>',
          '<sheet name="Missing" sheetId="2" r:id="rId9"/><sheet name="Payments" sheetId="1" r:id="rId1"/>',
          `<sheet name="Payments" sheetId="1" r:id="${b.someCard()}"/>`,
        ]),
      );
      b.step(
        `workbook.xml sheets: ${w.workbookXml.slice(w.workbookXml.indexOf('<sheets>'), w.workbookXml.indexOf('</sheets>') + 9)}`,
      );
    },
    () => {
      w.relsXml = relsXml(
        rng.pick([
          '',
          sheetRelation('rId2', w.sheetTarget),
          `${sheetRelation('rId1', 'worksheets/missing.xml')}${sheetRelation('rId1', w.sheetTarget)}`,
          `<Relationship Id="rId1" Target="worksheets/sheet1.xml"/>`,
        ]),
      );
      b.step(`workbook.xml.rels: ${w.relsXml.slice(w.relsXml.indexOf('<Relationships'))}`);
    },
    () => {
      // The first sheet is another part of the workbook.
      const target = rng.pick([
        'workbook.xml',
        'sharedStrings.xml',
        '_rels/workbook.xml.rels',
        '/[Content_Types].xml',
        '/_rels/.rels',
      ]);
      w.sheetTarget = target;
      b.step(`the first sheet's relationship targets another part, ${target}`);
    },
    () => {
      w.sheetPath = rng.pick([
        'xl/worksheets/deep/er/still/sheet1.xml',
        'xl/worksheets/sheet1.XML',
        'xl/worksheets/sheet 1.xml',
        'xl/worksheets/ŝheet1.xml',
        `xl/worksheets/${'d/'.repeat(100)}sheet1.xml`,
      ]);
      w.sheetTarget = w.sheetPath.slice(3);
      b.step(`the sheet lives at ${w.sheetPath}, its relationship following`);
    },
  ];
}

/** A change to one part's XML text. */
function xmlMutation(b: Builder, w: Workbook): (parts: Array<[string, Buffer]>) => void {
  const { rng } = b;
  const sheetOnly = (change: (xml: string) => string, what: string) => (parts: Array<[string, Buffer]>) => {
    const entry = parts.find(([name]) => name === w.sheetPath);
    if (!entry) return;
    entry[1] = Buffer.from(change(entry[1].toString('utf8')));
    b.step(what);
  };
  const anyPart = (change: (xml: string) => string, what: string) => (parts: Array<[string, Buffer]>) => {
    const entry = rng.pick(parts.filter(([name]) => name !== '[Content_Types].xml' && name !== '_rels/.rels'));
    entry[1] = Buffer.from(change(entry[1].toString('utf8')));
    b.step(`${entry[0]}: ${what}`);
  };
  const firstRowEnd = (xml: string) => {
    const at = xml.indexOf('row>', xml.indexOf('<sheetData>') >= 0 ? xml.indexOf('sheetData>') : 0);
    return at < 0 ? xml.length : at + 4;
  };
  const echoName = () => {
    // A card number of the case in an XML name: the parser quotes the name of a tag left open, or of an attribute
    // given twice (not of a mismatched tag, an undefined entity or an unbound prefix).
    const card = b.someCard();
    const how = rng.pick([
      'left open, the sheet ending there',
      'an attribute twice',
      'a mismatched tag',
      'an undefined entity',
      'an unbound prefix',
    ]);
    return sheetOnly((xml) => {
      const at = firstRowEnd(xml);
      if (how === 'left open, the sheet ending there') return `${xml.slice(0, at)}<n${card}>`;
      if (how === 'an attribute twice') return `${xml.slice(0, at)}<x n${card}="1" n${card}="2"/>${xml.slice(at)}`;
      if (how === 'a mismatched tag') return `${xml.slice(0, at)}<n${card}></m${card}>${xml.slice(at)}`;
      if (how === 'an undefined entity') return xml.replace('</t>', `&e${card};</t>`);
      return `${xml.slice(0, at)}<p${card}:x/>${xml.slice(at)}`;
    }, `after the first row, a card number of the case in an XML name: ${how} (n${card})`);
  };
  const choices: Array<() => (parts: Array<[string, Buffer]>) => void> = [
    () => {
      const fraction = rng.int(1, 99) / 100;
      return anyPart(
        (xml) => xml.slice(0, Math.floor(xml.length * fraction)),
        `truncated at ${Math.round(fraction * 100)}% of its text`,
      );
    },
    () => {
      const depth = rng.pick([100, 1_000, 10_000, 30_000]);
      const where = rng.pick(['in a cell', 'between rows']);
      return sheetOnly((xml) => {
        const deep = `${'<x>'.repeat(depth)}deep${'</x>'.repeat(depth)}`;
        if (where === 'between rows') return xml.replace('</row>', `</row>${deep}`);
        return xml.replace('</t>', `</t>${deep}`).replace('</v>', `</v>${deep}`);
      }, `elements nested ${depth} deep ${where}`);
    },
    () => {
      const doctype = rng.pick([
        '<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
        '<!DOCTYPE worksheet SYSTEM "file:///etc/passwd">',
        '<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/x">]>',
        '<!DOCTYPE worksheet [<!ELEMENT worksheet ANY><!ATTLIST c r CDATA "A2">]>',
      ]);
      const use = rng.pick([
        '&c;',
        '&xxe;',
        '&a;',
        '',
        '&lt;&gt;&amp;&apos;&quot;',
        '&#x1F600;',
        '&#0;',
        '&#xD800;',
        '&unknown;',
      ]);
      return sheetOnly(
        (xml) => xml.replace('?>', `?>${doctype}`).replace('</t>', `${use}</t>`),
        `DOCTYPE ${doctype.slice(0, 60)}…, a cell holding ${use || 'no entity'}`,
      );
    },
    () => {
      const tag = rng.pick(['row', 'c', 'sheetData', 'worksheet']);
      return sheetOnly((xml) => xml.replace(`</${tag}>`, `</${tag}x>`), `the first </${tag}> misspelt </${tag}x>`);
    },
    echoName,
    () =>
      sheetOnly((xml) => xml.replace(/<c r="([A-Z]+[0-9]+)"/, '<c r="$1" r="$1"'), 'a cell with its r attribute twice'),
    () => {
      const bad = rng.pick(['\u0001', '\u0000', '\uFFFE', '&', '<', '&#1;', '&#xFFFF;', ']]>', '\u001b[31m']);
      return sheetOnly((xml) => xml.replace('</t>', `${bad}</t>`), `a text holding ${JSON.stringify(bad)}`);
    },
    () => {
      const declaration = rng.pick([
        '<?xml version="1.1" encoding="UTF-8"?>',
        '<?xml version="1.0" encoding="UTF-16"?>',
        '<?xml version="1.0" encoding="ISO-8859-1"?>',
        ' <?xml version="1.0"?>',
        '\uFEFF<?xml version="1.0"?>',
        '<?xml version="2.0"?>',
        '',
        '<?xml?>',
      ]);
      return anyPart(
        (xml) => xml.replace(/^<\?xml[^>]*\?>/, declaration),
        `declaration ${JSON.stringify(declaration)}`,
      );
    },
    () => {
      const encoding = rng.pick(['utf16le', 'latin1']);
      return (parts) => {
        const entry = parts.find(([name]) => name === w.sheetPath);
        if (!entry) return;
        const text = entry[1].toString('utf8').replace('</t>', 'é</t>');
        entry[1] =
          encoding === 'utf16le'
            ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
            : Buffer.from(text, 'latin1');
        b.step(`the sheet's XML in ${encoding}`);
      };
    },
    () =>
      sheetOnly(
        (xml) =>
          xml
            .replace('<sheetData>', '<sheetData><!-- a comment --><?pi data?>')
            .replace(
              /<sheetData>([\s\S]*)<\/sheetData>/,
              '<sheetData>$1</sheetData><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Action</t></is></c></row></sheetData>',
            ),
        'a comment, a processing instruction, and a second sheetData',
      ),
    () =>
      sheetOnly((xml) => xml.replace(/<row /, '<row><row ').replace('</row>', '</row></row>'), 'rows nested in a row'),
    () => {
      const huge = 'A'.repeat(rng.pick([10_000, 100_000]));
      return sheetOnly(
        (xml) => xml.replace('<row ', `<row x="${huge}" `),
        `a row attribute ${huge.length} characters long`,
      );
    },
    () =>
      sheetOnly((xml) => xml.replace(/ r="([0-9]+)"/, ' r="&#5$1;"'), 'a row number written as a character reference'),
    () => anyPart((xml) => `${xml}<trailing/>`, 'a second root element after the first'),
    () => anyPart((xml) => xml.replace(/xmlns="[^"]*"/, 'xmlns="urn:other"'), 'another default namespace'),
    () => anyPart(() => rng.bytes(rng.int(1, 400)).toString('latin1'), 'replaced by random bytes'),
  ];
  // The card number in a name is how a file's text reaches a reason: tried three times as often as the others.
  return rng.pick([...choices, echoName, echoName])();
}

// ---------------------------------------------------------------------------------------------------------
// The zip

export interface ZipEntry {
  /** The name's bytes as the headers hold them. */
  name: Buffer;
  data: Buffer;
  /** 8 (deflate, the default) or 0 (stored); another number is claimed, while the data is deflated. */
  method?: number;
  /** The bytes written as the entry's data instead of the deflated (or stored) data. */
  payload?: Buffer;
  crc?: number;
  /** The uncompressed size both headers claim (the true one otherwise). */
  size?: number;
  /** The compressed size both headers claim. */
  compressedSize?: number;
  flags?: number;
  extra?: Buffer;
}

/** A zip of these entries, written by hand so that every field can lie. */
export function writeZip(entries: ZipEntry[], options: { declaredCount?: number; comment?: Buffer } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const method = entry.method ?? 8;
    const payload = entry.payload ?? (method === 0 ? entry.data : deflateRawSync(entry.data));
    const crc = entry.crc ?? crc32(entry.data);
    const size = entry.size ?? entry.data.length;
    const compressed = entry.compressedSize ?? payload.length;
    const extra = entry.extra ?? Buffer.alloc(0);
    const flags = entry.flags ?? 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed >>> 0, 18);
    local.writeUInt32LE(size >>> 0, 22);
    local.writeUInt16LE(entry.name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed >>> 0, 20);
    central.writeUInt32LE(size >>> 0, 24);
    central.writeUInt16LE(entry.name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(offset, 42);
    locals.push(local, entry.name, extra, payload);
    centrals.push(central, entry.name, extra);
    offset += local.length + entry.name.length + extra.length + payload.length;
  }
  const directory = Buffer.concat(centrals);
  const comment = options.comment ?? Buffer.alloc(0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.declaredCount ?? entries.length, 8);
  end.writeUInt16LE(options.declaredCount ?? entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...locals, directory, end, comment]);
}

function zip64Extra(size: bigint, compressed?: bigint): Buffer {
  const data = Buffer.alloc(compressed === undefined ? 8 : 16);
  data.writeBigUInt64LE(size, 0);
  if (compressed !== undefined) data.writeBigUInt64LE(compressed, 8);
  const header = Buffer.alloc(4);
  header.writeUInt16LE(0x0001, 0);
  header.writeUInt16LE(data.length, 2);
  return Buffer.concat([header, data]);
}

/** A change to the zip's entries. */
function entryMutation(b: Builder, w: Workbook): (entries: ZipEntry[]) => ZipEntry[] {
  const { rng } = b;
  const named = (entries: ZipEntry[], name: string) => entries.find((e) => e.name.toString() === name);
  const someEntry = (entries: ZipEntry[]) =>
    named(entries, w.sheetPath) && rng.chance(0.6) ? named(entries, w.sheetPath)! : rng.pick(entries);
  const echoPath = () => (entries: ZipEntry[]) => {
    // A card number of the case in an odd path: a reader that refuses the path may quote it.
    const card = b.someCard();
    const odd = rng.pick([`xl\\${card}.xml`, `../${card}.xml`, `/${card}.xml`, `C:/${card}.xml`, `xl/../${card}`]);
    entries.push({ name: Buffer.from(odd), data: Buffer.from('<x/>') });
    b.step(`zip: one more entry named ${JSON.stringify(odd)} (a card number of the case)`);
    return entries;
  };
  const choices: Array<() => (entries: ZipEntry[]) => ZipEntry[]> = [
    () => (entries) => {
      const gone = rng.pick(entries);
      b.step(`zip: entry ${gone.name.toString()} left out`);
      return entries.filter((e) => e !== gone);
    },
    () => (entries) => {
      const twice = someEntry(entries);
      const other = rng.chance(0.5)
        ? Buffer.from(
            `<?xml version="1.0"?><worksheet xmlns="${NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Nothing</t></is></c></row></sheetData></worksheet>`,
          )
        : twice.data;
      b.step(
        `zip: entry ${twice.name.toString()} twice (the second ${other === twice.data ? 'the same' : 'a sheet without the columns'})`,
      );
      return rng.chance(0.5) ? [...entries, { ...twice, data: other }] : [{ ...twice, data: other }, ...entries];
    },
    () => (entries) => {
      const entry = someEntry(entries);
      const size = rng.pick([0xffffffff - 1, 300 * 2 ** 20, 257 * 2 ** 20, 2 ** 31]);
      entry.size = size;
      b.step(`zip: entry ${entry.name.toString()} declares ${size} bytes unpacked`);
      return entries;
    },
    () => (entries) => {
      // Three parts of 200 MiB each: more than 512 MiB in all.
      for (const entry of entries.slice(0, 3)) entry.size = 200 * 2 ** 20;
      b.step('zip: the first three entries each declare 200 MiB unpacked');
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      entry.size = 0xffffffff;
      const size = rng.pick([2n ** 40n, 2n ** 53n + 1n, 2n ** 64n - 1n, 10n]);
      entry.extra = zip64Extra(size);
      b.step(`zip: entry ${entry.name.toString()} declares its size in a zip64 field: ${size}`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      const size = Math.max(0, entry.data.length - rng.int(1, Math.max(1, Math.floor(entry.data.length / 2))));
      entry.size = rng.chance(0.2) ? 0 : size;
      b.step(`zip: entry ${entry.name.toString()} understates its size: ${entry.size} of ${entry.data.length}`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      entry.size = entry.data.length + rng.int(1, 10_000);
      b.step(`zip: entry ${entry.name.toString()} overstates its size: ${entry.size} of ${entry.data.length}`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      const how = rng.pick([
        'random bytes',
        'flipped bytes',
        'cut short',
        'a stored block',
        'a dynamic block that never ends',
      ]);
      const deflated = deflateRawSync(entry.data);
      if (how === 'random bytes') entry.payload = rng.bytes(rng.int(1, 2_000));
      else if (how === 'flipped bytes') {
        entry.payload = Buffer.from(deflated);
        const flips = rng.int(1, 6);
        for (let i = 0; i < flips; i += 1) {
          const at = rng.int(0, entry.payload.length - 1);
          entry.payload[at] = entry.payload[at]! ^ (1 << rng.int(0, 7));
        }
      } else if (how === 'cut short') entry.payload = deflated.subarray(0, rng.int(0, deflated.length - 1));
      else if (how === 'a stored block')
        entry.payload = Buffer.concat([Buffer.from([0x00, 0xff, 0xff, 0x00, 0x00]), entry.data.subarray(0, 100)]);
      else entry.payload = Buffer.from([0x04, 0xc0, 0x81, 0x08, 0x00, 0x00]);
      b.step(`zip: entry ${entry.name.toString()}'s deflate data is ${how}`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      const method = rng.pick([0, 0, 1, 9, 12, 14, 93, 99, 65535]);
      entry.method = method;
      if (method === 0 && rng.chance(0.3)) entry.size = entry.data.length + 1;
      b.step(
        `zip: entry ${entry.name.toString()} with compression method ${method}${method === 0 ? ' (stored)' : ''}${entry.size !== undefined ? ', its size one more than the data' : ''}`,
      );
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      entry.flags = rng.pick([0x0001, 0x0040, 0x0041, 0x0008, 0x0800, 0xffff]);
      b.step(`zip: entry ${entry.name.toString()} with general purpose flags 0x${entry.flags.toString(16)}`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      entry.crc = (entry.crc ?? crc32(entry.data)) ^ 0x5a5a5a5a;
      b.step(`zip: entry ${entry.name.toString()} with a wrong CRC-32`);
      return entries;
    },
    () => (entries) => {
      const entry = someEntry(entries);
      const was = entry.name.toString();
      const odd = rng.pick([
        `../${was}`,
        `/${was}`,
        `C:/${was}`,
        was.replace(/\//g, '\\'),
        `${was}/`,
        `./${was}`,
        `xl//${was.slice(3)}`,
        `${was}\u0000.txt`,
        `${'a/'.repeat(300)}${was}`,
        `xl/../${was}`,
      ]);
      entry.name = Buffer.from(odd);
      b.step(
        `zip: entry ${was} renamed ${JSON.stringify(odd.length > 60 ? `${odd.slice(0, 30)}…${odd.slice(-20)}` : odd)}`,
      );
      return entries;
    },
    echoPath,
    () => (entries) => {
      const entry = someEntry(entries);
      entry.name = rng.pick([
        Buffer.from([0x78, 0x6c, 0x2f, 0xff, 0xfe, 0x2e, 0x78, 0x6d, 0x6c]),
        Buffer.alloc(0),
        Buffer.from('xl/\u00e9.xml', 'latin1'),
      ]);
      entry.flags = (entry.flags ?? 0) | (rng.chance(0.5) ? 0x0800 : 0);
      b.step(
        `zip: entry renamed with the bytes ${entry.name.toString('hex')} (flags 0x${(entry.flags ?? 0).toString(16)})`,
      );
      return entries;
    },
    () => (entries) => {
      const extra = rng.pick([
        Buffer.from([0x01, 0x00, 0xff, 0xff]),
        Buffer.from([0x75, 0x70, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]),
        rng.bytes(rng.int(1, 60)),
      ]);
      const entry = someEntry(entries);
      entry.extra = extra;
      b.step(`zip: entry ${entry.name.toString()} with the extra field ${extra.toString('hex')}`);
      return entries;
    },
    () => (entries) => {
      const count = rng.int(2_001, 2_100);
      for (let i = 0; i < count; i += 1)
        entries.push({ name: Buffer.from(`xl/media/e${i}.bin`), data: Buffer.alloc(0), method: 0 });
      b.step(`zip: ${count} more empty entries (over 2,000 parts)`);
      return entries;
    },
    () => (entries) => {
      const count = rng.pick([0, 1, entries.length + 1, 65535]);
      b.step(`zip: the end record declares ${count} entries`);
      return [...entries, { name: Buffer.from(`\u0000declared:${count}`), data: Buffer.alloc(0) }];
    },
  ];
  // A card number in a path is how a zip's names reach a reason: tried twice as often as the others.
  const chosen = rng.pick([...choices, echoPath])();
  return (entries) => {
    const result = chosen(entries);
    // The entry whose name starts with NUL above is a marker: the count it names is written in the end record.
    const marker = result.find((e) => e.name.toString().startsWith('\u0000declared:'));
    if (marker) {
      declaredCounts.set(result, Number(marker.name.toString().slice('\u0000declared:'.length)));
      result.splice(result.indexOf(marker), 1);
    }
    return result;
  };
}

const declaredCounts = new WeakMap<ZipEntry[], number>();

/** A change to the zip's bytes as written. */
function byteMutation(b: Builder): (bytes: Buffer) => Buffer {
  const { rng } = b;
  const signatures = [0x04034b50, 0x02014b50, 0x06054b50];
  const choices: Array<() => (bytes: Buffer) => Buffer> = [
    () => (bytes) => {
      const at = rng.weighted<number>([
        [1, () => rng.int(0, 8)],
        [2, () => rng.int(0, bytes.length - 1)],
        [2, () => bytes.length - rng.int(1, 60)],
      ]);
      b.step(`bytes: truncated to ${Math.max(0, at)} of ${bytes.length}`);
      return bytes.subarray(0, Math.max(0, at));
    },
    () => (bytes) => {
      const signature = rng.pick(signatures);
      const places: number[] = [];
      for (let i = 0; i + 4 <= bytes.length; i += 1) if (bytes.readUInt32LE(i) === signature) places.push(i);
      if (places.length === 0) return bytes;
      const at = rng.pick(places);
      const copy = Buffer.from(bytes);
      const byte = at + rng.int(0, 3);
      copy[byte] = copy[byte]! ^ 0x20;
      b.step(
        `bytes: the ${signature.toString(16)} signature at ${at} broken${at === 0 ? ' (the file no longer starts as a zip)' : ''}`,
      );
      return copy;
    },
    () => (bytes) => {
      const copy = Buffer.from(bytes);
      const count = rng.int(1, 16);
      for (let i = 0; i < count; i += 1) copy[rng.int(4, Math.max(4, copy.length - 1))] = rng.int(0, 255);
      b.step(`bytes: ${count} bytes after the first four overwritten at random`);
      return copy;
    },
    () => (bytes) => {
      const garbage = rng.bytes(rng.int(1, 300));
      b.step(`bytes: ${garbage.length} random bytes appended`);
      return Buffer.concat([bytes, garbage]);
    },
    () => (bytes) => {
      // A zip that starts as one, then holds another: the first local header of a second copy.
      const cut = rng.int(30, Math.max(30, bytes.length - 1));
      b.step(`bytes: the first ${cut} bytes, then the whole zip again`);
      return Buffer.concat([bytes.subarray(0, cut), bytes]);
    },
  ];
  return rng.pick(choices)();
}

// ---------------------------------------------------------------------------------------------------------
// CSV

function csvCase(b: Builder, family: string): Buffer {
  const { rng } = b;
  const table = baseTable(b);
  if (family === 'csv/numbers' || rng.chance(0.3)) hostileAmounts(b, table);
  const layout = { eol: '\r\n', bom: false, finalEol: true, quoteAll: false };
  const textSteps: Array<(rows: string[][]) => void> = [];
  const byteSteps: Array<(bytes: Buffer) => Buffer> = [];
  const layoutEncoding: { value: 'utf8' | 'utf16le' | 'utf16be' | 'latin1' } = { value: 'utf8' };
  const families = [family];
  if (rng.chance(0.2))
    families.push(rng.pick(['csv/encoding', 'csv/quotes', 'csv/numbers', 'csv/sizes'].filter((f) => f !== family)));
  for (const [i, f] of families.entries()) {
    const count = i === 0 && rng.chance(0.25) ? 2 : 1;
    for (let n = 0; n < count; n += 1) {
      if (f === 'csv/encoding') {
        rng.weighted<void>([
          [
            2,
            () => {
              layout.bom = true;
              b.step('UTF-8 byte order mark');
            },
          ],
          [
            1,
            () =>
              byteSteps.push((bytes) => {
                b.step('two UTF-8 byte order marks');
                return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), bytes]);
              }),
          ],
          [
            2,
            () => {
              layoutEncoding.value = rng.pick(['utf16le', 'utf16be'] as const);
              layout.bom = rng.chance(0.6);
              b.step(
                `encoded ${layoutEncoding.value}${layout.bom ? ' with a byte order mark' : ' without a byte order mark'}`,
              );
            },
          ],
          [
            2,
            () => {
              layoutEncoding.value = 'latin1';
              textSteps.push((rows) => {
                const row = rows[filledRow(rng, rows, 0)]!;
                const at = rng.int(0, row.length - 1);
                row[at] = `${row[at]}é`;
                b.step(`Latin-1 bytes: é after cell ${at + 1} of row ${rows.indexOf(row) + 1}`);
              });
            },
          ],
          [
            3,
            () =>
              byteSteps.push((bytes) => {
                const bad = rng.pick([
                  [0xff],
                  [0xfe],
                  [0x80],
                  [0xc3],
                  [0xc0, 0xaf],
                  [0xe0, 0x80, 0xaf],
                  [0xed, 0xa0, 0x80],
                  [0xf4, 0x90, 0x80, 0x80],
                  [0xe2, 0x82],
                  [0xf0, 0x9f, 0x98],
                ]);
                const at = rng.chance(0.3) ? bytes.length : rng.int(0, bytes.length);
                b.step(`invalid UTF-8 ${Buffer.from(bad).toString('hex')} at byte ${at} of ${bytes.length}`);
                return Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
              }),
          ],
          [
            4,
            () =>
              textSteps.push((rows) => {
                // Mostly in a row's cells (in the header, it only renames a column).
                const r = filledRow(rng, rows, rng.chance(0.8) ? 1 : 0);
                const row = rows[r]!;
                const at = rng.int(0, row.length - 1);
                const where = rng.pick(['end', 'start', 'middle']);
                const cell = row[at]!;
                row[at] =
                  where === 'end'
                    ? `${cell}\u0000`
                    : where === 'start'
                      ? `\u0000${cell}`
                      : `${cell.slice(0, 1)}\u0000${cell.slice(1)}`;
                b.step(
                  `a NUL byte at the ${where} of cell ${at + 1} ("${(table.header[at] ?? '').replaceAll('\u0000', '\\0')}") of row ${r + 1}`,
                );
              }),
          ],
          [
            1,
            () =>
              byteSteps.push((bytes) => {
                const at = rng.int(0, bytes.length);
                b.step(`a NUL byte between bytes at ${at} of ${bytes.length}`);
                return Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)]);
              }),
          ],
          [
            2,
            () => {
              layout.eol = '\r';
              b.step('CR-only line ends');
            },
          ],
          [
            1,
            () => {
              layout.eol = rng.pick(['\n', '\n\r', '\r\r\n', '\u2028', '\u0085']);
              b.step(`line ends ${JSON.stringify(layout.eol)}`);
            },
          ],
          [
            1,
            () =>
              byteSteps.push((bytes) => {
                let i = 0;
                const text = bytes.toString('latin1').replace(/\r\n/g, () => (++i % 2 === 0 ? '\n' : '\r'));
                b.step('mixed line ends: CR and LF by turns');
                return Buffer.from(text, 'latin1');
              }),
          ],
        ]);
      }
      if (f === 'csv/quotes') {
        rng.weighted<void>([
          [
            3,
            () =>
              textSteps.push((rows) => {
                // The commit before this one: a card number just before a stray quote reached failure_reason.
                const r = rows.findIndex((row) => row.some((cell) => /^[0-9]{16}$/.test(cell)));
                if (r < 0) return;
                const at = rows[r]!.findIndex((cell) => /^[0-9]{16}$/.test(cell));
                const how = rng.pick(['x"', '"', '" ', '""', '"x"']);
                rows[r]![at] = `${rows[r]![at]}${RAW}${how}`;
                b.step(`row ${r + 1}: the card number followed by ${JSON.stringify(how)} unquoted`);
              }),
          ],
          [
            2,
            () =>
              textSteps.push((rows) => {
                const r = filledRow(rng, rows, 0);
                const at = rng.int(0, rows[r]!.length - 1);
                const how = rng.pick([
                  `${RAW}"abc"x`,
                  `${RAW}a"b`,
                  `${RAW}"abc`,
                  `${RAW}"`,
                  `${RAW}""`,
                  `${RAW}"a""b"`,
                  `${RAW}" "`,
                  `${RAW}"a\r\nb"`,
                  `${RAW}"a\rb"`,
                ]);
                rows[r]![at] = how;
                b.step(`row ${r + 1}, cell ${at + 1}: ${JSON.stringify(how.slice(RAW.length))} unquoted`);
              }),
          ],
          [
            2,
            () =>
              byteSteps.push((bytes) => {
                const at = rng.int(0, bytes.length);
                b.step(`a quote inserted at byte ${at} of ${bytes.length}`);
                return Buffer.concat([bytes.subarray(0, at), Buffer.from('"'), bytes.subarray(at)]);
              }),
          ],
          [
            1,
            () => {
              layout.quoteAll = true;
              b.step('every cell quoted');
            },
          ],
          [
            1,
            () =>
              textSteps.push((rows) => {
                // A misaligned row: a cell left out or one too many, shifting the card number to another column.
                const r = rows.findIndex((row) => row.some((cell) => /^[0-9]{16}$/.test(cell)));
                if (r < 0) return;
                const shift = rng.chance(0.5) ? -1 : 1;
                const at = misalignAt(b, table.header, rows[r]!, shift);
                if (shift === -1) rows[r]!.splice(at, 1);
                else rows[r]!.splice(at, 0, rng.pick(['', 'x', '12']));
                b.step(
                  `row ${r + 1}: misaligned at cell ${at + 1} (a cell ${rows[r]!.length < table.header.length ? 'left out' : 'too many'})`,
                );
              }),
          ],
          [
            1,
            () =>
              byteSteps.push((bytes) => {
                const at = rng.int(1, bytes.length - 1);
                b.step(`truncated to ${at} of ${bytes.length} bytes`);
                return bytes.subarray(0, at);
              }),
          ],
          [
            1,
            () => {
              layout.finalEol = false;
              b.step('no line end after the last row');
            },
          ],
          [
            1,
            () =>
              textSteps.push((rows) => {
                const sep = rng.pick(['\t', ';', '|']);
                for (let i = 0; i < rows.length; i += 1) rows[i] = [rows[i]!.join(sep)];
                b.step(`cells separated by ${JSON.stringify(sep)}, not commas`);
              }),
          ],
        ]);
      }
      if (f === 'csv/numbers') {
        textSteps.push((rows) => {
          const at = columnOf(table, rng.pick(['Expiry Month', 'Expiry Year', 'CVC', 'Currency', 'Amount']));
          if (at < 0) return;
          const r = filledRow(rng, rows, 1);
          const value = rng.pick([
            '1e1',
            '-1',
            '0',
            '13',
            '2.5',
            '99',
            '1e3',
            ' 12',
            '12 ',
            '٠٦',
            '2040.0',
            '+40',
            '0x0C',
            '',
            'HKD ',
            'XXX',
            'hkd',
            '12345678901234567890',
          ]);
          b.step(`row ${r + 1}: "${table.header[at]}" ${JSON.stringify(value)}`);
          rows[r]![at] = value;
        });
      }
      if (f === 'csv/sizes') {
        rng.weighted<void>([
          [
            2,
            () =>
              textSteps.push((rows) => {
                // Each blank record costs the reader tens of microseconds: 10,000 keep a case well under a second.
                const count = rng.int(1_000, 10_000);
                const blank = Array.from({ length: count }, () =>
                  rng.chance(0.7) ? [] : table.header.map(() => rng.pick(['', ' '])),
                );
                const after = rows.splice(1);
                for (const row of blank) rows.push(row);
                for (const row of after) rows.push(row);
                b.step(`${count} empty or blank rows after the header`);
              }),
          ],
          [
            1,
            () =>
              textSteps.push((rows) => {
                const width = rng.pick([16_383, 16_384, 16_385, 30_000]);
                const r = filledRow(rng, rows, 1);
                while (rows[r]!.length < width) rows[r]!.push('');
                b.step(`row ${r + 1} widened to ${width} cells`);
              }),
          ],
          [
            2,
            () =>
              textSteps.push((rows) => {
                const r = filledRow(rng, rows, 0);
                const at = rng.int(0, rows[r]!.length - 1);
                const length = rng.pick([256, 65_000, 65_536, 70_000, 200_000]);
                rows[r]![at] = rng.chance(0.7) ? 'x'.repeat(length) : '😀'.repeat(Math.ceil(length / 4));
                b.step(`row ${r + 1}, cell ${at + 1} ("${table.header[at] ?? ''}") ${length} bytes long`);
              }),
          ],
          [
            1,
            () =>
              textSteps.push((rows) => {
                const count = rng.int(200, 2_000);
                for (let i = 0; i < count; i += 1) rows.push(['charge', `${b.tag}-x${i}`]);
                b.step(`${count} more rows, each an unknown action`);
              }),
          ],
        ]);
      }
    }
  }
  const rows = [table.header, ...table.rows.map((row) => [...row])];
  for (const step of textSteps) step(rows);
  const cell = (text: string) => {
    if (text.startsWith(RAW)) return text.slice(RAW.length);
    const raw = text.indexOf(RAW);
    if (raw >= 0) return text.slice(0, raw) + text.slice(raw + RAW.length);
    return layout.quoteAll || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  let text = rows.map((row) => row.map(cell).join(',')).join(layout.eol) + (layout.finalEol ? layout.eol : '');
  if (layout.bom) text = `\uFEFF${text}`;
  const encoding = layoutEncoding.value;
  let bytes: Buffer = encoding === 'utf16be' ? Buffer.from(text, 'utf16le').swap16() : Buffer.from(text, encoding);
  for (const step of byteSteps) bytes = step(bytes);
  return bytes;
}

/** A row with cells (blank rows put in by another step have none), from `first` on when there is one. */
function filledRow(rng: Rng, rows: string[][], first: number): number {
  const filled = rows.flatMap((row, i) => (i >= first && row.length > 0 && !row[0]!.startsWith(RAW) ? [i] : []));
  return filled.length > 0 ? rng.pick(filled) : 0;
}

/** Marks text written into a CSV cell as is, unquoted (a stray quote must stay stray). */
const RAW = '\uE000RAW\uE000';
