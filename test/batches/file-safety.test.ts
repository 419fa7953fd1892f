import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import type { PaygateClient, PaygateError } from '@paygate/client';
import { CARDS } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cardNumbersAtRest as atRest, filesUnder, uniqueCardNumber } from './at-rest.js';
import { sheetXml, TOKEN_HEADER, xlsxOf, xlsxWithRows, zip } from './sheets.js';
import { csv, customerWithToken, type FileServer, finished, parseCsv, startFileServer } from './support.js';

// Hostile files (issue 34): misnumbered rows and cells are refused before anything is stored or charged, nothing a
// file holds is ever kept readable (database files, write-ahead log, data folder), and a batch that ends, however
// it ends, leaves nothing of its file behind.

let server: TestServer;
let client: PaygateClient;
let merchantId = '';
let customer = '';
let token = '';
let files: FileServer;
let filesUrl = '';
let served: FileServer['served'];

before(async () => {
  server = await startTestServer();
  const merchant = await server.newMerchant();
  ({ client, merchantId } = merchant);
  ({ customer, token } = await customerWithToken(client));
  files = await startFileServer();
  ({ url: filesUrl, served } = files);
});
after(async () => {
  await files.close();
  await server.close();
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const payment = (r: string) => ['payment', `STRICT-${r}-${randomUUID().slice(0, 8)}`, customer, '1.00', token];
const serve = (path: string, bytes: Buffer) =>
  served.set(path, (response) => response.writeHead(200, { 'content-type': XLSX }).end(bytes));

async function batchesOfMerchant(): Promise<number> {
  return (await server.platform.db.selectFrom('batches').select('id').where('merchant_id', '=', merchantId).execute())
    .length;
}

async function partsOf(batchId: string): Promise<number> {
  return (
    await server.platform.db.selectFrom('batch_file_parts').select('part').where('batch_id', '=', batchId).execute()
  ).length;
}

describe('strict rows through HTTP (findings 2, 3, 5 and 7)', () => {
  const misnumbered: Array<[string, Buffer, RegExp]> = [
    ['a fractional row number', xlsxWithRows(['2.5'], payment), /numbered "2\.5"/],
    ['an exponent row number', xlsxWithRows(['1e20'], payment), /numbered "1e20"/],
    ['a row number that is no number', xlsxWithRows(['abc'], payment), /numbered "abc"/],
    ['the same row twice', xlsxWithRows(['2', '2'], payment), /Row 2 comes after row 2/],
    ['rows -5, 0, 2', xlsxWithRows(['-5', '0', '2'], payment), /numbered "-5"/],
    ['rows 2, 0, -5', xlsxWithRows(['2', '0', '-5'], payment), /The row after row 2 is numbered "0"/],
    ['a cell past XFD', wideCell('XFE2'), /XFE2, beyond column XFD/],
    ['a cell far past XFD', wideCell('ZZZZZZZ2'), /ZZZZZZZ2, beyond column XFD/],
  ];

  test('sent as the body: refused with 400 600104 naming the row; no batch, no file part, no order', async () => {
    const before = await batchesOfMerchant();
    for (const [what, bytes, named] of misnumbered) {
      await assert.rejects(client.batches.upload(bytes, { kind: 'xlsx' }), (error: PaygateError) => {
        assert.equal(error.status, 400, what);
        assert.equal(error.errorCode, '600104', what);
        assert.match(error.message, named, what);
        return true;
      });
    }
    assert.equal(await batchesOfMerchant(), before);
    assert.equal(
      (
        await server.platform.db
          .selectFrom('batch_file_parts')
          .select('part')
          .where('merchant_id', '=', merchantId)
          .execute()
      ).length,
      0,
    );
    assert.equal(
      (await client.orders.list({})).orders.filter((order) => order.reference_number.startsWith('STRICT-')).length,
      0,
    );
  });

  test('fetched from a file_url: the batch fails with the same reason; it reads back (never a 500) and keeps nothing', async () => {
    for (const [what, bytes, named] of misnumbered) {
      const path = `/strict/${randomUUID()}.xlsx`;
      serve(path, bytes);
      const batch = await finished(client, (await client.batches.create({ file_url: `${filesUrl}${path}` })).id);
      assert.equal(batch.upload_status, 'failed', what);
      assert.match(batch.failure_reason, named, what);
      assert.equal(batch.total_records, 0, what);
      const read = await client.batches.get(batch.id);
      assert.deepEqual(read.transactions, [], what);
      assert.deepEqual(
        parseCsv(await client.batches.resultFile(batch.id)).length,
        1,
        `${what}: the result file has its header only`,
      );
      assert.equal(await partsOf(batch.id), 0, `${what}: no part of the file is kept`);
    }
    assert.equal(
      (await client.orders.list({})).orders.filter((order) => order.reference_number.startsWith('STRICT-')).length,
      0,
    );
  });

  test('every row that is charged appears in result.csv, numbered as the sheet numbers it', async () => {
    const bytes = xlsxWithRows(['2', '5', '9', '1048576'], payment);
    const batch = await finished(client, (await client.batches.upload(bytes, { kind: 'xlsx' })).id);
    assert.deepEqual([batch.upload_status, batch.total_records, batch.successful_records], ['success', 4, 4]);
    const rows = parseCsv(await client.batches.resultFile(batch.id)).slice(1);
    assert.deepEqual(
      rows.map((row) => [row[0], row[10]]),
      [
        ['2', 'succeeded'],
        ['5', 'succeeded'],
        ['9', 'succeeded'],
        ['1048576', 'succeeded'],
      ],
    );
    const charged = (await client.batches.get(batch.id, { limit: 100 })).transactions.length;
    assert.equal(charged, rows.length);
  });
});

/** A sheet whose one payment row has, after its five cells, one more at `reference`. */
function wideCell(reference: string): Buffer {
  const cells = payment('2').map((text, i) => ({ ref: `${'ABCDE'[i]}2`, text }));
  return xlsxOf(
    sheetXml([
      { r: '1', cells: TOKEN_HEADER.map((text, i) => ({ ref: `${'ABCDE'[i]}1`, text })) },
      { r: '2', cells: [...cells, { ref: reference, text: 'far' }] },
    ]),
  );
}

// ---- card data at rest ----

const cardNumbersAtRest = (numbers: string[]) => atRest(server, numbers);

const CARD_HEADER = [
  'Action',
  'Reference Number',
  'Customer UUID',
  'Amount',
  'Card Number',
  'Expiry Month',
  'Expiry Year',
  'CVC',
];
const cardRow = (number: string) => [
  'payment',
  `CARD-${randomUUID().slice(0, 8)}`,
  '',
  '2.00',
  number,
  '12',
  '2040',
  String(100 + randomInt(900)),
];

describe('card data encrypted from the first byte (finding 3)', () => {
  test('a CSV of card rows sent as the body: no card number readable anywhere, as stored, while it runs, and after', async () => {
    const numbers = Array.from({ length: 30 }, uniqueCardNumber);
    // The slow card holds its round for three seconds: the rows wait, their cards sealed in them, while we look.
    const text = csv([CARD_HEADER, cardRow(CARDS.slow), ...numbers.map(cardRow)]);
    const created = await client.batches.upload(text, { kind: 'csv' });
    assert.deepEqual(await cardNumbersAtRest(numbers), [], 'as stored, before it is read');
    let looked = 0;
    for (let i = 0; i < 400; i += 1) {
      const { batch_info: info } = await client.batches.get(created.id, { limit: 1 });
      if (info.upload_status !== 'pending' && info.upload_status !== 'processing') break;
      assert.deepEqual(await cardNumbersAtRest(numbers), [], `while it is ${info.upload_status}`);
      looked += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(looked > 0, 'looked at least once while it ran');
    const batch = await finished(client, created.id);
    assert.deepEqual([batch.upload_status, batch.successful_records], ['success', numbers.length + 1]);
    assert.deepEqual(await cardNumbersAtRest(numbers), [], 'after it ran');
    assert.equal(await partsOf(batch.id), 0);
    // The result file shows a card by its first six and last four digits only.
    const shown = parseCsv(await client.batches.resultFile(batch.id))
      .slice(2)
      .map((row) => row[8]);
    assert.deepEqual(
      shown,
      numbers.map((n) => `${n.slice(0, 6)}******${n.slice(-4)}`),
    );
  });

  test('an XLSX of card rows fetched from a file_url: nothing readable, and nothing in the data folder', async () => {
    const numbers = Array.from({ length: 10 }, uniqueCardNumber);
    const bytes = xlsxOf(
      sheetXml([
        { r: '1', cells: CARD_HEADER.map((text) => ({ text })) },
        ...numbers.map((number, i) => ({ r: String(i + 2), cells: cardRow(number).map((text) => ({ text })) })),
      ]),
    );
    const path = `/cards/${randomUUID()}.xlsx`;
    serve(path, bytes);
    const batch = await finished(client, (await client.batches.create({ file_url: `${filesUrl}${path}` })).id);
    assert.deepEqual([batch.upload_status, batch.successful_records], ['success', numbers.length]);
    assert.deepEqual(await cardNumbersAtRest(numbers), []);
    assert.deepEqual(
      filesUnder(server.dataDir).filter((file) => file.includes('batch')),
      [],
      'no file of a batch is spooled to the data folder',
    );
  });

  test('a batch that fails, or is cancelled before it is read, keeps nothing of its file', async () => {
    const numbers = Array.from({ length: 5 }, uniqueCardNumber);
    // Misnumbered, and fetched (so that it is not refused at the door): the load fails it.
    const broken = xlsxOf(
      sheetXml([
        { r: '1', cells: CARD_HEADER.map((text) => ({ text })) },
        ...numbers.map((number) => ({ r: '2', cells: cardRow(number).map((text) => ({ text })) })),
      ]),
    );
    const path = `/broken/${randomUUID()}.xlsx`;
    serve(path, broken);
    const failed = await finished(client, (await client.batches.create({ file_url: `${filesUrl}${path}` })).id);
    assert.equal(failed.upload_status, 'failed');
    assert.equal(await partsOf(failed.id), 0);

    let release = () => {};
    const held = `/held/${randomUUID()}.csv`;
    const text = csv([CARD_HEADER, ...numbers.map(cardRow)]);
    served.set(held, (response) => {
      release = () => response.writeHead(200, { 'content-type': 'text/csv' }).end(text);
    });
    const created = await client.batches.create({ file_url: `${filesUrl}${held}` });
    for (let i = 0; i < 200 && (await client.batches.get(created.id)).batch_info.upload_status === 'pending'; i += 1)
      await new Promise((r) => setTimeout(r, 25));
    assert.equal((await client.batches.cancel(created.id)).upload_status, 'cancelled');
    release();
    // Read once it arrives, to show each row skipped; then its file is gone.
    for (let i = 0; i < 200 && (await client.batches.get(created.id)).batch_info.total_records === 0; i += 1)
      await new Promise((r) => setTimeout(r, 25));
    const cancelled = (await client.batches.get(created.id)).batch_info;
    assert.deepEqual([cancelled.upload_status, cancelled.skipped_records], ['cancelled', numbers.length]);
    assert.equal(await partsOf(created.id), 0);
    const cards = await server.platform.db
      .selectFrom('batch_rows')
      .select('card_sealed')
      .where('batch_id', '=', created.id)
      .execute();
    assert.ok(
      cards.every((row) => row.card_sealed === null),
      'no skipped row keeps its card, even sealed',
    );
    assert.deepEqual(await cardNumbersAtRest(numbers), []);
  });
});

describe('what earlier versions left behind', () => {
  test('a start erases the folder where files were once spooled in clear, and a crash could leave them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-spool-'));
    try {
      mkdirSync(join(dataDir, 'batch-files'));
      writeFileSync(join(dataDir, 'batch-files', 'left-by-a-crash'), 'Card Number\n4242424242424242\n');
      const restarted = await startTestServer({ dataDir });
      await restarted.close();
      assert.equal(existsSync(join(dataDir, 'batch-files')), false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('held when tried, and kept held (issue 34)', () => {
  /** A workbook whose sheet, its headers say, unpacks to `stated` bytes; it holds `inflated` bytes of spaces. */
  function bomb(inflated: number, stated: number): Buffer {
    return zip([
      [
        '[Content_Types].xml',
        Buffer.from(
          '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        ),
      ],
      [
        'xl/workbook.xml',
        Buffer.from(
          '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        ),
      ],
      [
        'xl/_rels/workbook.xml.rels',
        Buffer.from(
          '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="t" Target="worksheets/sheet1.xml"/></Relationships>',
        ),
      ],
      {
        name: 'xl/worksheets/sheet1.xml',
        compressed: deflateRawSync(Buffer.alloc(inflated, 0x20)),
        crc: 0,
        statedSize: stated,
      },
    ]);
  }

  test('a zip bomb, its sizes stated truly or understated, fails its batch with a reason; nothing is kept', async () => {
    // Stated: 1.5 GiB, refused from the zip's directory before anything is inflated.
    const stated = await finished(
      client,
      (await client.batches.upload(bomb(64 * 1024, 1.5 * 2 ** 30), { kind: 'xlsx' })).id,
    );
    assert.equal(stated.upload_status, 'failed');
    assert.match(stated.failure_reason, /unpacks to more than this server reads \(512 MiB in all, 256 MiB a part\)/);
    // Understated: 100 KiB said, 4 MiB held; refused as soon as inflating passes what was said.
    const understated = await finished(
      client,
      (await client.batches.upload(bomb(4 * 2 ** 20, 100 * 1024), { kind: 'xlsx' })).id,
    );
    assert.equal(understated.upload_status, 'failed');
    assert.match(understated.failure_reason, /a part of it unpacks to more than the workbook says it holds/);
    for (const batch of [stated, understated]) assert.equal(await partsOf(batch.id), 0);
  });

  test('a 50 MB upload is answered 413, and nothing is stored', async () => {
    const before = await batchesOfMerchant();
    await assert.rejects(
      client.batches.upload(Buffer.alloc(50 * 10 ** 6, 'payment,R,c,1.00,t\n'), { kind: 'csv' }),
      (error: PaygateError) => error.status === 413 && error.errorCode === '100205',
    );
    assert.equal(await batchesOfMerchant(), before);
  });
});
