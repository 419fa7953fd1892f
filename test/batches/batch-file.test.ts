import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import writeXlsxFile from 'write-excel-file/node';
import { type BatchRow, findMisnumbering, readBatchFile } from '../../src/batches/batch-file.js';
import { bufferSource } from '../../src/batches/file-source.js';
import { readCsvRows } from '../../src/batches/read-csv.js';
import { readXlsxRows } from '../../src/batches/read-xlsx.js';
import { checkRow } from '../../src/batches/row-rules.js';
import { BatchFileError, MisnumberedError, type SheetRow } from '../../src/batches/sheet-row.js';
import { cellsOf, columnLetters, sheetXml, TOKEN_HEADER, xlsxOf, xlsxWithRows, zip } from './sheets.js';

// Reading batch files (issue 13, point 2): CSV and XLSX, streamed, headers matched loosely, rows numbered as a
// spreadsheet shows them, and a file that cannot be used refused as a whole with the reason.

const folder = mkdtempSync(join(tmpdir(), 'paygate-batch-files-'));
after(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

function file(content: string | Buffer): string {
  const path = join(folder, `file-${++files}`);
  writeFileSync(path, content);
  return path;
}

async function rowsOf(path: string): Promise<BatchRow[]> {
  const rows: BatchRow[] = [];
  for await (const row of readBatchFile(bufferSource(readFileSync(path)))) rows.push(row);
  return rows;
}

async function refusal(path: string): Promise<string> {
  const error = await rowsOf(path).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof BatchFileError, `expected the file to be refused, got ${String(error)}`);
  return error.message;
}

describe('batch files', () => {
  test('CSV: a byte order mark, CRLF, quoted commas, quotes and line breaks, empty lines, extra columns, headers in any case', async () => {
    const csv =
      '\uFEFF  action ,REFERENCE NUMBER,Customer UUID,amount,Notes for us,Token ID,Remark\r\n' +
      'payment,"INV-1, March",c-1,12.50,ignored,tok-1,"She said ""hi""\r\nand left"\r\n' +
      '\r\n' +
      'refund,INV-2,c-2,3,,tok-2,\r\n' +
      ',,,,,,\r\n' +
      'capture,  INV-3  ,c-3,1,,tok-3,last line without a line break';
    assert.deepEqual(await rowsOf(file(csv)), [
      {
        row: 2,
        fields: {
          action: 'payment',
          reference: 'INV-1, March',
          customer: 'c-1',
          amount: '12.50',
          token: 'tok-1',
          remark: 'She said "hi"\r\nand left',
        },
      },
      { row: 4, fields: { action: 'refund', reference: 'INV-2', customer: 'c-2', amount: '3', token: 'tok-2' } },
      {
        row: 6,
        fields: {
          action: 'capture',
          reference: 'INV-3',
          customer: 'c-3',
          amount: '1',
          token: 'tok-3',
          remark: 'last line without a line break',
        },
      },
    ]);
  });

  test('CSV: UTF-8 text of any script is kept, however the stream is cut between characters', async () => {
    const label = 'Zürich café 日本語 ✓';
    const lines = ['Action,Reference Number,Customer UUID,Amount,Token ID,Remark'];
    for (let i = 0; i < 5_000; i += 1) lines.push(`payment,R-${i},c,1.00,t,${label} ${i}`);
    const bytes = Buffer.from(lines.join('\n'));
    // Seven bytes at a time: characters of two, three and four bytes are cut everywhere.
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    const rows: SheetRow[] = [];
    for await (const row of readCsvRows(Readable.from(chunks))) rows.push(row);
    assert.equal(rows.length, 5_001);
    assert.ok(rows.slice(1).every((row, i) => row.row === i + 2 && row.cells[5] === `${label} ${i}`));
  });

  test('XLSX: thousands of rows of text in several scripts come out whole', async () => {
    const label = 'Zürich café 日本語 ✓';
    const path = join(folder, 'many.xlsx');
    const data = [
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID', 'Remark'].map((value) => ({ value })),
    ];
    for (let i = 0; i < 3_000; i += 1)
      data.push([
        { value: 'payment' },
        { value: `R-${i}` },
        { value: 'c' },
        { value: '1.00' },
        { value: 't' },
        { value: `${label} ${i}` },
      ]);
    await writeXlsxFile(data).toFile(path);
    const rows = await rowsOf(path);
    assert.equal(rows.length, 3_000);
    assert.ok(
      rows.every(
        (row, i) => row.row === i + 2 && row.fields.remark === `${label} ${i}` && row.fields.reference === `R-${i}`,
      ),
    );
  });

  test('XLSX: the first sheet, numbers as written, text kept as text, blank rows keep their numbers', async () => {
    const path = join(folder, 'payments.xlsx');
    await writeXlsxFile([
      {
        sheet: 'Payments',
        data: [
          [
            { value: 'Action' },
            { value: 'reference number' },
            { value: 'Customer UUID' },
            { value: 'AMOUNT' },
            { value: 'Card Number' },
            { value: 'Expiry Month' },
            { value: 'Expiry Year' },
            { value: 'Remark' },
          ],
          [
            { value: 'payment' },
            { value: 'R-1' },
            { value: 'c-1' },
            { value: 12.5 },
            { value: '4000000000003055' },
            { value: 3 },
            { value: 29 },
            { value: 'Zürich 日本' },
          ],
          [null, null, null, null, null, null, null, null],
          [
            { value: 'authorize' },
            { value: '0012', type: String },
            { value: 'c-2' },
            { value: '12.50', type: String },
            { value: '4000000000003055' },
            { value: 12 },
            { value: 30 },
            null,
          ],
        ],
      },
      { sheet: 'Notes', data: [[{ value: 'Action' }], [{ value: 'not this sheet' }]] },
    ]).toFile(path);
    assert.deepEqual(await rowsOf(path), [
      {
        row: 2,
        fields: {
          action: 'payment',
          reference: 'R-1',
          customer: 'c-1',
          amount: '12.5',
          cardNumber: '4000000000003055',
          expiryMonth: '3',
          expiryYear: '29',
          remark: 'Zürich 日本',
        },
      },
      {
        row: 4,
        fields: {
          action: 'authorize',
          reference: '0012',
          customer: 'c-2',
          amount: '12.50',
          cardNumber: '4000000000003055',
          expiryMonth: '12',
          expiryYear: '30',
        },
      },
    ]);
  });

  test('a header without a required column, with one twice, or with a card but no expiry, refuses the file naming the column', async () => {
    assert.match(
      await refusal(file('Action,Reference Number,Customer UUID,Token ID\npayment,R,c,t\n')),
      /no "Amount" column/,
    );
    assert.match(
      await refusal(file('Action,Reference Number,Customer UUID,Amount\npayment,R,c,1\n')),
      /neither a "Token ID" nor a "Card Number" column/,
    );
    assert.match(
      await refusal(file('Action,Reference Number,Customer UUID,Amount,Card Number,Expiry Month\n')),
      /no "Expiry Year" column/,
    );
    assert.match(
      await refusal(file('Action,Reference Number,Customer UUID,Amount,Token ID, amount \n')),
      /"Amount" twice \(columns 4 and 6\)/,
    );
    assert.match(
      await refusal(file('\nAction,Reference Number,Customer UUID,Amount,Token ID\n')),
      /Row 1 of the file is empty/,
    );
    assert.match(await refusal(file('')), /The file is empty/);
  });

  test('not a spreadsheet, a quote left open, or a zip that is not a workbook, refuses the file with a reason', async () => {
    assert.match(
      await refusal(file(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x81]))),
      /neither an XLSX workbook nor CSV text in UTF-8/,
    );
    assert.match(
      await refusal(file('Action,Reference Number,Customer UUID,Amount,Token ID\npayment,"R-1,c,1,t\n')),
      /cannot be read near row/,
    );
    // The parser's own message quotes the field at fault: never passed on, since it may be a card number.
    const stray = await refusal(
      file(
        'Action,Reference Number,Customer UUID,Amount,Card Number,Expiry Month,Expiry Year\npayment,R,c,1.00,4911044444444440",12,2040\n',
      ),
    );
    assert.match(stray, /cannot be read near row 2: a quote/);
    assert.doesNotMatch(stray, /4911044444444440/);
    // Nor what the zip or XML readers say of the part at fault (its name, a tag): a card number there is masked too.
    const named = await refusal(file(zip([['/4911044444444440', Buffer.from('x')]])));
    assert.doesNotMatch(named, /4911044444444440/);
    assert.match(named, /491104\*{6}4440/);
    // A NUL is UTF-8, but no spreadsheet's text (and PostgreSQL's text cannot hold one): the file is refused.
    assert.match(
      await refusal(
        file('Action,Reference Number,Customer UUID,Amount,Token ID,Remark\npayment,R,c,1.00,t,a\u0000b\n'),
      ),
      /holds a NUL character/,
    );
    assert.match(
      await refusal(file(zip([['hello.txt', Buffer.from('hi')]]))),
      /not an XLSX workbook: it has no xl\/workbook.xml/,
    );
    assert.match(
      await refusal(file(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]))),
      /not a readable XLSX workbook/,
    );
  });

  test('an XLSX that unpacks to more than the limits is refused before it is read', async () => {
    // 40 MiB of one repeated byte deflates to about 40 KiB.
    const path = file(zip([['xl/workbook.xml', Buffer.alloc(40 * 2 ** 20, 0x20)]]));
    const limits = { maxEntries: 10, maxEntryBytes: 16 * 2 ** 20, maxTotalBytes: 32 * 2 ** 20, maxSharedStrings: 10 };
    const error = await (async () => {
      for await (const row of readXlsxRows(bufferSource(readFileSync(path)), limits)) void row;
    })().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof BatchFileError);
    assert.match(error.message, /unpacks to more than this server reads/);
  });
});

describe('strict rows (issue 34): numbered once each, in order, within a sheet; cells in their row, from A to XFD', () => {
  const payment = (r: string) => ['payment', `R-${r}`, 'c', '1.00', 't'];
  async function misnumbered(bytes: Buffer): Promise<string> {
    const error = await rowsOf(file(bytes)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof MisnumberedError, `expected a misnumbered file, got ${String(error)}`);
    // The request reads an XLSX for the same fault, and finds it.
    const found = await findMisnumbering(bufferSource(bytes));
    assert.equal(found?.message, error.message);
    return error.message;
  }

  test('a row number that is not a whole number from 1 to 1048576 refuses the file, naming it', async () => {
    for (const [r, named] of [
      ['2.5', '"2.5"'],
      ['1e20', '"1e20"'],
      ['abc', '"abc"'],
      ['-5', '"-5"'],
      ['0', '"0"'],
      ['', '""'],
      ['02', '"02"'],
      [' 2', '" 2"'],
      ['1048577', '"1048577"'],
    ]) {
      assert.match(
        await misnumbered(xlsxWithRows([r!], payment)),
        new RegExp(`The row after row 1 is numbered ${named!.replace(/[.]/g, '\\.')}: rows are numbered 1 to 1048576`),
        `r=${JSON.stringify(r)}`,
      );
    }
  });

  test('rows out of order or twice refuse the file; -5, 0, 2 and 2, 0, -5 alike', async () => {
    assert.match(
      await misnumbered(xlsxWithRows(['3', '2'], payment)),
      /Row 2 comes after row 3: each row must come once, in order/,
    );
    assert.match(await misnumbered(xlsxWithRows(['2', '2'], payment)), /Row 2 comes after row 2/);
    assert.match(await misnumbered(xlsxWithRows(['-5', '0', '2'], payment)), /numbered "-5"/);
    assert.match(await misnumbered(xlsxWithRows(['2', '0', '-5'], payment)), /The row after row 2 is numbered "0"/);
  });

  test('a cell beyond XFD, of another row, named twice or out of order refuses the file', async () => {
    const withCells = (refs: string[]) =>
      xlsxOf(
        sheetXml([
          { r: '1', cells: cellsOf(1, TOKEN_HEADER) },
          { r: '2', cells: refs.map((ref, i) => ({ ref, text: payment('2')[i] ?? 'x' })) },
        ]),
      );
    assert.match(
      await misnumbered(withCells(['A2', 'B2', 'C2', 'D2', 'XFE2'])),
      /Row 2 has the cell XFE2, beyond column XFD/,
    );
    assert.match(
      await misnumbered(withCells(['A2', 'B2', 'C2', 'D2', 'ZZZZZZZ2'])),
      /Row 2 has the cell ZZZZZZZ2, beyond column XFD/,
    );
    assert.match(await misnumbered(withCells(['A2', 'B3'])), /Row 2 holds the cell B3, of another row/);
    assert.match(
      await misnumbered(withCells(['A2', 'A2'])),
      /Row 2 has the cell A2 twice, or after a cell to its right/,
    );
    assert.match(await misnumbered(withCells(['B2', 'A2'])), /Row 2 has the cell A2 twice/);
    assert.match(
      await misnumbered(withCells(['A2', '2B'])),
      /Row 2 has a cell named "2B", which is not a cell reference/,
    );
    // Up to XFD, lower-case letters too, and rows up to the last a sheet has: read.
    const wide = xlsxOf(
      sheetXml([
        { r: '1', cells: cellsOf(1, TOKEN_HEADER) },
        { r: '1048576', cells: [...cellsOf(1048576, payment('x')), { ref: 'xfd1048576', text: 'far' }] },
      ]),
    );
    assert.deepEqual(
      (await rowsOf(file(wide))).map((row) => row.row),
      [1048576],
    );
    assert.equal(await findMisnumbering(bufferSource(wide)), undefined);
    assert.equal(columnLetters(16384), 'XFD');
  });

  test('rows and cells without numbers are numbered by their place, within the same limits', async () => {
    const unnumbered = xlsxOf(
      sheetXml([
        { cells: TOKEN_HEADER.map((text) => ({ text })) },
        { cells: payment('2').map((text) => ({ text })) },
        { r: '5', cells: payment('5').map((text) => ({ text })) },
        { cells: payment('6').map((text) => ({ text })) },
      ]),
    );
    assert.deepEqual(
      (await rowsOf(file(unnumbered))).map((row) => [row.row, row.fields.reference]),
      [
        [2, 'R-2'],
        [5, 'R-5'],
        [6, 'R-6'],
      ],
    );
    const past = xlsxOf(
      sheetXml([
        { r: '1', cells: cellsOf(1, TOKEN_HEADER) },
        { r: '1048576', cells: cellsOf(1048576, payment('a')) },
        { cells: payment('b').map((text) => ({ text })) },
      ]),
    );
    assert.match(await misnumbered(past), /The row after row 1048576 is numbered "1048577"/);
  });

  test('CSV: a row past row 1048576 or wider than XFD refuses the file; a CSV is never read in the request', async () => {
    const header = `${TOKEN_HEADER.join(',')}\n`;
    const far = Buffer.from(`${header}${'\n'.repeat(1_048_574)}payment,R,c,1.00,t\n`);
    assert.deepEqual(
      (await rowsOf(file(far))).map((row) => row.row),
      [1_048_576],
    );
    const past = Buffer.from(`${header}${'\n'.repeat(1_048_575)}payment,R,c,1.00,t\n`);
    assert.match(await refusal(file(past)), /The row after row 1 is numbered 1048577: rows are numbered 1 to 1048576/);
    assert.equal(await findMisnumbering(bufferSource(past)), undefined);
    const wide = Buffer.from(`${header}payment,R,c,1.00,t${','.repeat(16_380)}\n`);
    assert.match(await refusal(file(wide)), /Row 2 has 16385 cells: a sheet has at most 16384 columns/);
  });

  test('the request leaves every other fault of an XLSX to the load: a zip that is no workbook is not misnumbered', async () => {
    assert.equal(await findMisnumbering(bufferSource(zip([['hello.txt', Buffer.from('hi')]]))), undefined);
    assert.equal(
      await findMisnumbering(bufferSource(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]))),
      undefined,
    );
  });
});

describe('the samples of docs/batches.md', () => {
  test('docs/examples/batch-sample.csv and .xlsx read alike: one row of each action, each valid on its own', async () => {
    const root = new URL('../../../', import.meta.url).pathname;
    const csvRows = await rowsOf(join(root, 'docs/examples/batch-sample.csv'));
    const xlsxRows = await rowsOf(join(root, 'docs/examples/batch-sample.xlsx'));
    assert.deepEqual(xlsxRows, csvRows);
    assert.deepEqual(
      csvRows.map((row) => row.fields.action),
      ['payment', 'authorize', 'capture', 'void', 'cancellation', 'refund'],
    );
    const context = { today: { year: 2026, month: 12 }, currency: 'HKD' };
    assert.ok(csvRows.every((row) => !('reason' in checkRow(row, context))));
  });
});
