import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, PaygateError } from '@paygate/client';
import { rawRequest, signedHeaders, startTestServer, type TestServer } from '../support/server.js';
import { csv, customerWithToken, type FileServer, finished, parseCsv, startFileServer } from './support.js';

// Where a batch's file comes from (file_url and its failures, the body and its limit), cancellation, the result
// file and the batch's events (issue 13).

/** Small limits, so that "too large" and "too slow" are quick to show. */
const FILE_LIMIT = 8 * 1024;
const FETCH_TIMEOUT_MS = 400;

let server: TestServer;
let client: PaygateClient;
let files: FileServer;
let filesUrl = '';
let customer = '';
let token = '';
/** Files the file server serves, by path. */
let served: FileServer['served'];

before(async () => {
  server = await startTestServer({
    env: { PAYGATE_BATCH_FILE_LIMIT: String(FILE_LIMIT), PAYGATE_BATCH_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) },
  });
  client = (await server.newMerchant()).client;
  ({ customer, token } = await customerWithToken(client));
  files = await startFileServer();
  ({ url: filesUrl, served } = files);
});
after(async () => {
  await files.close();
  await server.close();
});

const payments = (count: number) =>
  csv([
    ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
    ...Array.from({ length: count }, () => ['payment', `SRC-${randomUUID().slice(0, 13)}`, customer, '2.00', token]),
  ]);

const failureOf = async (fileUrl: string) => {
  const created = await client.batches.create({ file_url: fileUrl });
  assert.equal(created.upload_status, 'pending');
  const batch = await finished(client, created.id);
  assert.equal(batch.upload_status, 'failed');
  assert.equal(batch.total_records, 0);
  return batch.failure_reason;
};

describe('file_url', () => {
  test('a CSV fetched from its URL runs; the batch is named after the file', async () => {
    const text = payments(2);
    served.set('/dues/december.csv', (response) => response.writeHead(200, { 'content-type': 'text/csv' }).end(text));
    const created = await client.batches.create({ file_url: `${filesUrl}/dues/december.csv` });
    assert.equal(created.batch_name, 'december.csv');
    const batch = await finished(client, created.id);
    assert.deepEqual([batch.upload_status, batch.successful_records], ['success', 2]);
  });

  test('404, a redirect, too slow, too large and not a spreadsheet each fail the batch with the reason', async () => {
    assert.match(await failureOf(`${filesUrl}/nothing-here.csv`), /answered 404/);
    served.set('/moved.csv', (response) =>
      response.writeHead(302, { location: `${filesUrl}/dues/december.csv` }).end(),
    );
    assert.match(await failureOf(`${filesUrl}/moved.csv`), /redirect/);
    served.set('/slow.csv', (response) => {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.write('Action,Reference Number,Customer UUID,Amount,Token ID\r\n');
    });
    assert.match(await failureOf(`${filesUrl}/slow.csv`), /within 400 ms/);
    served.set('/large.csv', (response) => response.writeHead(200, { 'content-type': 'text/csv' }).end(payments(200)));
    assert.match(await failureOf(`${filesUrl}/large.csv`), /larger than 8192 bytes/);
    served.set('/picture.png', (response) =>
      response
        .writeHead(200, { 'content-type': 'image/png' })
        .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x81])),
    );
    assert.match(await failureOf(`${filesUrl}/picture.png`), /neither an XLSX workbook nor CSV text/);
  });

  test('a scheme other than http or https, or no file at all, is refused in the request', async () => {
    await assert.rejects(
      client.batches.create({ file_url: 'ftp://files.example.com/dues.csv' }),
      (error: PaygateError) => error.errorCode === '100207' && /http or https/.test(error.message),
    );
    await assert.rejects(
      client.batches.create({ file_url: 'not a url' }),
      (error: PaygateError) => error.errorCode === '100207',
    );
    await assert.rejects(
      client.call('POST', '/svc/payment/api/v1/openapi/batch_mit_transactions', {}),
      (error: PaygateError) => error.errorCode === '600103',
    );
  });

  test('a file_url carrying credentials is refused in the request: nothing is stored, nothing is sent (issue 34)', async () => {
    const merchant = await server.newMerchant();
    let asked = 0;
    served.set('/secret/dues.csv', (response) => {
      asked += 1;
      response.writeHead(200, { 'content-type': 'text/csv' }).end(payments(1));
    });
    for (const url of [
      `${filesUrl.replace('//', '//user:pass@')}/secret/dues.csv`,
      `${filesUrl.replace('//', '//user@')}/secret/dues.csv`,
    ]) {
      await assert.rejects(
        merchant.client.batches.create({ file_url: url }),
        (error: PaygateError) =>
          error.status === 400 &&
          error.errorCode === '100207' &&
          /batch\.file_url must not carry credentials/.test(error.message),
      );
    }
    const stored = await server.platform.db
      .selectFrom('batches')
      .select('file_url')
      .where('merchant_id', '=', merchant.merchantId)
      .execute();
    assert.deepEqual(stored, []);
    assert.equal(asked, 0);
  });
});

describe('the file as the body', () => {
  test('a body over the configured limit is refused with 413, before anything is written', async () => {
    const before = await server.platform.db.selectFrom('batches').select('id').execute();
    await assert.rejects(
      client.batches.upload(payments(200), { kind: 'csv' }),
      (error: PaygateError) => error.status === 413,
    );
    assert.equal((await server.platform.db.selectFrom('batches').select('id').execute()).length, before.length);
  });

  test('the signature covers the bytes: a file changed after signing is refused', async () => {
    const merchant = await server.newMerchant();
    const path = '/svc/payment/api/v1/openapi/batch_mit_transactions';
    const body = payments(1);
    const headers = signedHeaders(merchant, { method: 'POST', target: path, body, contentType: false });
    const reply = await rawRequest(server.url, {
      method: 'POST',
      target: path,
      headers: { ...headers, 'content-type': 'text/csv' },
      body: body.replace('2.00', '9.00'),
    });
    assert.equal(reply.status, 401);
  });

  test('another media type is refused (415)', async () => {
    await assert.rejects(
      client.call('POST', '/svc/payment/api/v1/openapi/batch_mit_transactions', undefined, {
        rawBody: payments(1),
        contentType: 'application/pdf',
      }),
      (error: PaygateError) => error.status === 415,
    );
  });
});

describe('cancellation, the result file and events', () => {
  test('cancelled while its file is fetched: no row runs, every row is skipped, counted and shown', async () => {
    let release: () => void = () => {};
    const text = payments(5);
    served.set('/held.csv', (response) => {
      release = () => response.writeHead(200, { 'content-type': 'text/csv' }).end(text);
    });
    const slowServer = await startTestServer({ env: { PAYGATE_BATCH_FETCH_TIMEOUT_MS: '20000' } });
    try {
      const slow = (await slowServer.newMerchant()).client;
      const mine = await customerWithToken(slow);
      const own = text.replaceAll(customer, mine.customer).replaceAll(token, mine.token);
      served.set('/held.csv', (response) => {
        release = () => {
          if (!response.headersSent) response.writeHead(200, { 'content-type': 'text/csv' }).end(own);
        };
      });
      const created = await slow.batches.create({ file_url: `${filesUrl}/held.csv`, batch_name: 'held' });
      for (let i = 0; i < 200 && (await slow.batches.get(created.id)).batch_info.upload_status !== 'processing'; i += 1)
        await new Promise((r) => setTimeout(r, 25));
      const cancelled = await slow.batches.cancel(created.id);
      assert.equal(cancelled.upload_status, 'cancelled');
      assert.notEqual(cancelled.deleted_at, '');
      release();
      for (let i = 0; i < 200 && (await slow.batches.get(created.id)).batch_info.total_records === 0; i += 1)
        await new Promise((r) => setTimeout(r, 25));
      const batch = (await slow.batches.get(created.id)).batch_info;
      assert.deepEqual(
        [batch.upload_status, batch.total_records, batch.successful_records, batch.skipped_records],
        ['cancelled', 5, 0, 5],
      );
      const result = await slow.batches.resultFile(created.id);
      assert.equal(result.split('\r\n').filter((line) => line.includes(',skipped,')).length, 5);
      assert.equal((await slow.orders.list({})).orders.length, 0);
      await assert.rejects(slow.batches.cancel(created.id), (error: PaygateError) => error.errorCode === '600102');
      const events = await slowServer.platform.db
        .selectFrom('events')
        .select('action')
        .where('subject_id', '=', created.id)
        .execute();
      assert.deepEqual(
        events.map((event) => event.action),
        ['batch.cancelled'],
      );
    } finally {
      release();
      await slowServer.close();
    }
  });

  test('result.csv: a header, then every row with its status, transaction, column and outcome', async () => {
    const text = csv([
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID', 'Remark'],
      ['payment', `RES-${randomUUID().slice(0, 8)}`, customer, '3.00', token, 'first, "quoted"'],
      ['payment', `RES-${randomUUID().slice(0, 8)}`, customer, '3.001', token, ''],
    ]);
    const batch = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    const [header, first, second, end] = (await client.batches.resultFile(batch.id)).split('\r\n');
    assert.equal(
      header,
      'Row,Action,Reference Number,Original Transaction ID,Customer UUID,Amount,Currency,Token ID,Card Number,Remark,Status,Transaction ID,Column,Outcome',
    );
    const transaction = (await client.batches.get(batch.id)).transactions[0]!.uuid;
    assert.match(
      first!,
      new RegExp(
        `^2,payment,RES-\\w+,,${customer},3.00,HKD,${token},,"first, ""quoted""",succeeded,${transaction},,Paid$`,
      ),
    );
    assert.match(second!, /^3,,,,,,,,,,failed,,Amount,/);
    assert.equal(end, '');
  });

  test('result.csv neutralises every cell a spreadsheet would read as a formula; numbers and plain text stay as they are (issue 34)', async () => {
    // A file's cells are trimmed as they are read (docs/batches.md), so " =1" is stored, and exported, as "=1".
    const formulas = [
      '=HYPERLINK("http://evil.example","x")',
      '+1+1',
      '-2+3',
      '@SUM(A1:A2)',
      ' =1',
      '-5.00',
      'a plain remark',
    ];
    const stored = formulas.map((formula) => formula.trim());
    const references = stored.map((text, i) => `${text}${i}-${randomUUID().slice(0, 8)}`);
    const text = csv([
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID', 'Remark'],
      ...formulas.map((formula, i) => ['payment', references[i]!, customer, '1.00', token, formula]),
    ]);
    const batch = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    assert.equal(batch.successful_records, formulas.length);
    const rows = parseCsv(await client.batches.resultFile(batch.id));
    const column = (name: string) => rows[0]!.indexOf(name);
    const exported = [
      '\'=HYPERLINK("http://evil.example","x")',
      "'+1+1",
      "'-2+3",
      "'@SUM(A1:A2)",
      "'=1",
      '-5.00',
      'a plain remark',
    ];
    stored.forEach((remark, i) => {
      const row = rows[i + 1]!;
      assert.equal(row[column('Remark')], exported[i], `remark ${JSON.stringify(remark)}`);
      // A reference that starts as a formula does too; one that is a number with a suffix is no number.
      const reference = references[i]!;
      assert.equal(row[column('Reference Number')], /^[=+\-@]/.test(reference) ? `'${reference}` : reference);
      assert.equal(row[column('Amount')], '1.00');
      assert.equal(row[column('Status')], 'succeeded');
    });
    // Stored as given (trimmed as every cell is), never neutralised in the database.
    const kept = await server.platform.db
      .selectFrom('batch_rows')
      .select('remark')
      .where('batch_id', '=', batch.id)
      .orderBy('row_number')
      .execute();
    assert.deepEqual(
      kept.map((row) => row.remark),
      stored,
    );
  });

  test('batch.completed and batch.failed are written for the merchant, with batch_info', async () => {
    const done = await finished(client, (await client.batches.upload(payments(1), { kind: 'csv' })).id);
    const failed = await finished(
      client,
      (await client.batches.upload('Action,Amount\r\npayment,1.00\r\n', { kind: 'csv' })).id,
    );
    const events = await server.platform.db
      .selectFrom('events')
      .select(['action', 'subject_id', 'payload'])
      .where('action', 'like', 'batch.%')
      .execute();
    const of = (id: string) => events.filter((event) => event.subject_id === id).map((event) => event.action);
    assert.deepEqual(of(done.id), ['batch.completed']);
    assert.deepEqual(of(failed.id), ['batch.failed']);
    const completed = JSON.parse(events.find((event) => event.subject_id === done.id)!.payload) as {
      data: { batch_info: { upload_status: string; successful_records: number } };
    };
    assert.deepEqual(
      [completed.data.batch_info.upload_status, completed.data.batch_info.successful_records],
      ['success', 1],
    );
  });

  test('the list filters with the query language, newest first', async () => {
    const page = await client.batches.list({ filters: { 'filter[upload_status][_eq]': 'failed' }, limit: 100 });
    assert.ok(page.batches.length >= 1 && page.batches.every((batch) => batch.upload_status === 'failed'));
    assert.ok(page.batches.every((batch, i) => i === 0 || batch.created_at <= page.batches[i - 1]!.created_at));
  });
});
