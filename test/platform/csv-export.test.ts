import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvWriter, spreadsheetSafe } from '../../src/platform/csv-export.js';

describe('CSV exports (OWASP, CSV injection)', () => {
  test('a cell that would start a formula gets a leading apostrophe; numbers and other text are left alone', () => {
    const cases: Array<[string, string]> = [
      ['=1+1', "'=1+1"],
      ['+1+1', "'+1+1"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tcmd', "'\tcmd"],
      ['\rcmd', "'\rcmd"],
      ['-', "'-"],
      ['+5', "'+5"],
      ['-5.00', '-5.00'],
      ['12.50', '12.50'],
      ['0', '0'],
      ['', ''],
      ['plain', 'plain'],
      [' =1', ' =1'],
      ["'=1", "'=1"],
      ['a=1', 'a=1'],
    ];
    for (const [cell, safe] of cases) assert.equal(spreadsheetSafe(cell), safe, JSON.stringify(cell));
  });

  test('the writer quotes what it must, ends lines with CRLF and neutralises every text cell', async () => {
    const writer = csvWriter();
    const chunks: string[] = [];
    writer.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const done = new Promise((resolve) => writer.on('end', resolve));
    writer.write(['Row', 'Remark']);
    writer.write(['2', '=HYPERLINK("http://evil.example","x")']);
    writer.write(['3', 'a, "b"\r\n=c']);
    writer.end();
    await done;
    assert.equal(
      chunks.join(''),
      'Row,Remark\r\n2,"\'=HYPERLINK(""http://evil.example"",""x"")"\r\n3,"a, ""b""\r\n=c"\r\n',
    );
  });
});
