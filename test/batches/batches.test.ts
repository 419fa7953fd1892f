import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, PaygateError } from '@paygate/client';
import { sql } from 'kysely';
import writeXlsxFile from 'write-excel-file/node';
import { LOAD_JOB, loadBatch } from '../../src/batches/load.js';
import { RUN_JOB, runRows } from '../../src/batches/run.js';
import { merchantContext } from '../../src/context/context.js';
import { toMerchant } from '../../src/platform/tenants.js';
import { CARDS } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { csv, customerWithToken, finished } from './support.js';

// Operation 5 and the batches around it through the HTTP interface (issue 13, "Done when"): files made here, sent
// as the body or fetched, every action on tokens and on card numbers, the replies field by field.

const HEADER = [
  'Action',
  'Reference Number',
  'Original Transaction ID',
  'Customer UUID',
  'Amount',
  'Token ID',
  'Card Number',
  'Expiry Month',
  'Expiry Year',
  'CVC',
  'Remark',
];

let server: TestServer;
let client: PaygateClient;
let other: PaygateClient;

before(async () => {
  server = await startTestServer();
  client = (await server.newMerchant({ name: 'Harbour Gym' })).client;
  other = (await server.newMerchant({ name: 'Other Shop' })).client;
});
after(() => server.close());

const ref = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

describe('a CSV file of token payments, sent as the body', () => {
  test('quoted fields, CRLF, a byte order mark, empty lines, extra columns and header case: every row paid once, counters, op 5 field by field', async () => {
    const { customer, token } = await customerWithToken(client);
    const [r1, r2, r3] = [ref('DUES'), ref('DUES'), ref('DUES')];
    const text = csv(
      [
        ['  ACTION ', 'reference number', 'Customer UUID', 'amount', 'TOKEN ID', 'Remark', 'Branch (ignored)'],
        ['payment', r1, customer, '388.00', token, 'December dues, "gold"', 'Central'],
        [],
        ['Payment', r2, customer, '12.5', token, 'two\r\nlines', 'Central'],
        ['payment', r3, customer, '1', token, '', ''],
      ],
      { bom: true },
    );
    const created = await client.batches.upload(text, { kind: 'csv', batchName: 'December dues' });
    assert.equal(created.upload_status, 'pending');
    assert.equal(created.batch_name, 'December dues');
    assert.equal(created.total_records, 0);

    const batch = await finished(client, created.id);
    assert.deepEqual(
      [batch.upload_status, batch.total_records, batch.successful_records, batch.failed_records, batch.skipped_records],
      ['success', 3, 3, 0, 0],
    );
    const { batch_info: info, transactions } = await client.batches.get(created.id);
    // batch_info: every field, in the seed's types.
    assert.deepEqual(Object.keys(info).sort(), [
      'batch_name',
      'created_at',
      'created_by',
      'deleted_at',
      'failed_records',
      'failure_reason',
      'id',
      'skipped_records',
      'store_id',
      'successful_records',
      'total_records',
      'updated_at',
      'upload_status',
    ]);
    assert.equal(info.store_id, 1);
    assert.equal(info.deleted_at, '');
    assert.match(info.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(typeof info.created_by, 'string');
    assert.notEqual(info.created_by, '');

    assert.equal(transactions.length, 3);
    const [first, second] = transactions;
    assert.deepEqual(
      transactions.map((t) => t.extra),
      [
        { row: 2, remark: 'December dues, "gold"' },
        { row: 4, remark: 'two\r\nlines' },
        { row: 5, remark: null },
      ],
    );
    assert.equal(first!.type, 1);
    assert.equal(first!.source, 'batch');
    assert.equal(first!.success, true);
    assert.equal(first!.amount, 388);
    assert.equal(second!.amount, 12.5);
    assert.equal(first!.payment_method, 'payment_token');
    assert.equal(first!.currency, 'HKD');
    assert.equal(first!.reference_id, r1);
    assert.equal(first!.original_transaction_reference_id, '');
    assert.equal(first!.original_transaction_uuid, null);
    assert.deepEqual(first!['3ds'], { enrolled: 'N', redirect_url: '' });
    assert.equal(typeof first!.acquirer_response_body, 'string');
    assert.equal(first!.order.reference_number, r1);
    assert.equal(first!.order.correspondence_state, 'paid');
    assert.equal(first!.order.initial_total, 388);
    assert.deepEqual(first!.order.business.business_name, 'Harbour Gym');
    assert.deepEqual(first!.order.payment_method_option, { online: {} });
    assert.equal(first!.order.line_items, null);
    assert.equal(first!.order.transactions, null);
    assert.ok(Object.values(first!.order.customer).every((value) => value === null));

    // The orders exist as any order does, paid once, as merchant-initiated token charges.
    const order = await client.orders.check({ order: { reference_number: r1 } });
    assert.equal(order.correspondence_state, 'paid');
    assert.equal(order.transactions!.length, 1);
  });

  test('the same file uploaded twice charges nothing twice: its rows find their orders paid', async () => {
    const { customer, token } = await customerWithToken(client);
    const reference = ref('TWICE');
    const text = csv([
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
      ['payment', reference, customer, '20.00', token],
    ]);
    const one = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    const two = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    assert.deepEqual([one.successful_records, two.successful_records], [1, 1]);
    const order = await client.orders.check({ order: { reference_number: reference } });
    assert.equal(order.transactions!.filter((t) => t.type === 'Sales').length, 1);
    const result = await client.batches.resultFile(two.id);
    assert.match(result, /was paid already/);
  });
});

describe('every action, on tokens and on card numbers', () => {
  test('payment and authorize by token and by card (XLSX), then capture, void, cancellation and refund (CSV)', async () => {
    const { customer, token } = await customerWithToken(client);
    const [sale, auth, cardSale, cardAuth, auth2] = [ref('S'), ref('A'), ref('CS'), ref('CA'), ref('A2')];
    const cell = (value: string | number | null) => (value === null ? null : { value });
    const rows: Array<Array<string | number | null>> = [
      HEADER,
      ['payment', sale, null, customer, '100.00', token, null, null, null, null, 'token sale'],
      ['authorize', auth, null, customer, '50.00', token, null, null, null, null, 'token auth'],
      ['payment', cardSale, null, null, 30.5, null, CARDS.visa, '12', '40', '123', 'card sale'],
      ['AUTHORIZE', cardAuth, null, null, '40', null, CARDS.mastercard, 12, 2040, null, 'card auth'],
      ['authorize', auth2, null, customer, '60.00', token, null, null, null, null, 'to cancel'],
    ];
    const xlsx = await writeXlsxFile(rows.map((row) => row.map(cell))).toBuffer();
    const first = await finished(client, (await client.batches.upload(xlsx, { kind: 'xlsx', batchName: 'mixed' })).id);
    assert.deepEqual(
      [first.upload_status, first.total_records, first.successful_records, first.failed_records],
      ['success', 5, 5, 0],
    );
    const made = (await client.batches.get(first.id)).transactions;
    assert.deepEqual(
      made.map((t) => [t.extra?.row, t.type, t.payment_method, t.amount, t.success]),
      [
        [2, 1, 'payment_token', 100, true],
        [3, 2, 'payment_token', 50, true],
        [4, 1, 'credit_card', 30.5, true],
        [5, 2, 'credit_card', 40, true],
        [6, 2, 'payment_token', 60, true],
      ],
    );
    // A card row's card is never kept: the transaction shows its first six and last four digits only.
    assert.equal(made[2]!.payment_data.first_6_digits, CARDS.visa.slice(0, 6));
    const stored = await server.platform.db
      .selectFrom('batch_rows')
      .select(['card_sealed', 'card_masked'])
      .where('batch_id', '=', first.id)
      .execute();
    assert.ok(stored.every((row) => row.card_sealed === null));
    assert.deepEqual(stored.map((row) => row.card_masked).filter(Boolean), ['424242******4242', '555555******4444']);

    // The day's transactions settle at the merchant's settlement hour: then the sale can be refunded.
    await client.sandbox.advanceClock(86_400);
    const byRow = (row: number) => made.find((t) => t.extra?.row === row)!.uuid;
    const followUp = csv([
      HEADER,
      ['capture', '', byRow(3), '', '20.00', '', '', '', '', '', 'part of the token auth'],
      ['capture', cardAuth, byRow(5), '', '', '', '', '', '', '', 'all of the card auth'],
      ['cancellation', '', byRow(6), '', '', '', '', '', '', '', ''],
      ['refund', sale, byRow(2), '', '25.00', '', '', '', '', '', 'part'],
      ['refund', '', byRow(4), '', '', '', '', '', '', '', 'what remains'],
    ]);
    const second = await finished(client, (await client.batches.upload(followUp, { kind: 'csv' })).id);
    const errors = await client.batches.errors(second.id);
    assert.deepEqual(errors.errors, []);
    assert.deepEqual([second.successful_records, second.failed_records], [5, 0]);
    const done = (await client.batches.get(second.id)).transactions;
    assert.deepEqual(
      done.map((t) => [t.extra?.row, t.type, t.amount]),
      [
        [2, 3, 20],
        [3, 3, 40],
        [4, 2, 60],
        [5, 4, 25],
        [6, 4, 30.5],
      ],
    );
    assert.equal(done[2]!.voided, true);
    assert.equal(done[3]!.original_transaction_uuid, byRow(2));
    assert.equal(done[3]!.original_transaction_reference_id, sale);
    assert.equal((await client.orders.check({ order: { reference_number: auth2 } })).transactions![0]!.voided, true);

    // Run again, the same follow-up file does nothing twice: each row's key finds what it did, or it is refused.
    const again = await finished(client, (await client.batches.upload(followUp, { kind: 'csv' })).id);
    assert.equal(again.successful_records + again.failed_records, 5);
    const refunds = (await client.orders.check({ order: { reference_number: sale } })).transactions!.filter(
      (t) => t.type === 'Refund',
    );
    assert.ok(refunds.length <= 2);
  });

  test('a declined card and a token that binds then declines are failed records with their reasons', async () => {
    const { customer, token } = await customerWithToken(client, CARDS.bindsThenDeclines);
    const text = csv([
      HEADER,
      ['payment', ref('D1'), '', customer, '10.00', token, '', '', '', '', ''],
      ['payment', ref('D2'), '', '', '10.00', '', CARDS.doNotHonour, '12', '40', '', ''],
    ]);
    const batch = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    assert.deepEqual([batch.upload_status, batch.successful_records, batch.failed_records], ['success', 0, 2]);
    const { errors } = await client.batches.errors(batch.id);
    assert.deepEqual(
      errors.map((e) => [e.row, e.column, /^Declined/.test(e.reason), e.transaction_id !== '']),
      [
        [2, '', true, true],
        [3, '', true, true],
      ],
    );
    // A declined payment made a transaction: operation 5 shows it, failed.
    const { transactions } = await client.batches.get(batch.id);
    assert.deepEqual(
      transactions.map((t) => t.success),
      [false, false],
    );
  });
});

describe('rows refused, each with its row, column and reason; the batch goes on', () => {
  test('every refusal of a row', async () => {
    const { customer, token } = await customerWithToken(client);
    const stranger = await customerWithToken(client);
    const taken = ref('TAKEN');
    await finished(
      client,
      (
        await client.batches.upload(
          csv([HEADER, ['payment', taken, '', customer, '5.00', token, '', '', '', '', '']]),
          { kind: 'csv' },
        )
      ).id,
    );
    const text = csv([
      HEADER,
      ['refund it', ref('X'), '', customer, '1.00', token, '', '', '', '', ''],
      ['payment', ref('X'), '', customer, '12.345', token, '', '', '', '', ''],
      ['payment', ref('X'), '', customer, '-1', token, '', '', '', '', ''],
      ['payment', ref('X'), '', customer, '1.00', token, CARDS.visa, '12', '40', '', ''],
      ['payment', ref('X'), '', customer, '1.00', '', '', '', '', '', ''],
      ['payment', ref('X'), '', '', '1.00', '', '4242424242424241', '12', '40', '', ''],
      ['payment', ref('X'), '', '', '1.00', '', CARDS.visa, '13', '40', '', ''],
      ['payment', ref('X'), '', '', '1.00', '', CARDS.visa, '01', '20', '', ''],
      ['capture', '', '', '', '', '', '', '', '', '', ''],
      ['payment', ref('X'), '', randomUUID(), '1.00', token, '', '', '', '', ''],
      ['payment', ref('X'), '', stranger.customer, '1.00', token, '', '', '', '', ''],
      ['payment', taken, '', customer, '6.00', token, '', '', '', '', ''],
      ['refund', '', randomUUID(), '', '1.00', '', '', '', '', '', ''],
      ['payment', '', '', customer, '1.00', token, '', '', '', '', ''],
    ]);
    const batch = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    assert.deepEqual(
      [batch.upload_status, batch.total_records, batch.successful_records, batch.failed_records],
      ['success', 14, 0, 14],
    );
    const { errors, total } = await client.batches.errors(batch.id, { limit: 100 });
    assert.equal(total, 14);
    assert.deepEqual(
      errors.map((e) => [e.row, e.column]),
      [
        [2, 'Action'],
        [3, 'Amount'],
        [4, 'Amount'],
        [5, 'Token ID'],
        [6, 'Token ID'],
        [7, 'Card Number'],
        [8, 'Expiry Month'],
        [9, 'Expiry Year'],
        [10, 'Original Transaction ID'],
        [11, 'Customer UUID'],
        [12, 'Token ID'],
        [13, 'Reference Number'],
        [14, 'Original Transaction ID'],
        [15, 'Reference Number'],
      ],
    );
    assert.ok(
      errors.every((e) => e.reason.length > 10),
      'each refusal says why',
    );
    assert.match(errors[1]!.reason, /12\.345/);
    assert.match(errors[11]!.reason, /one reference names one order/);
    // No order was made for a refused row.
    assert.equal((await client.orders.list({ filters: { 'filter[reference_number][_eq]': taken } })).orders.length, 1);
  });

  test('a file missing a required column fails as a whole, naming it; nothing runs', async () => {
    const text = csv([
      ['Action', 'Reference Number', 'Amount', 'Token ID'],
      ['payment', ref('M'), '1.00', 'tok'],
    ]);
    const batch = await finished(client, (await client.batches.upload(text, { kind: 'csv' })).id);
    assert.equal(batch.upload_status, 'failed');
    assert.match(batch.failure_reason, /Customer UUID/);
    assert.equal(batch.total_records, 0);
  });
});

describe('operation 5: defaults and paging', () => {
  test('limit 20 and offset 0 by default, up to 1000; pages in row order', async () => {
    const { customer, token } = await customerWithToken(client);
    const rows = Array.from({ length: 25 }, (_, i) => ['payment', ref(`P${i}`), customer, '1.00', token]);
    const batch = await finished(
      client,
      (
        await client.batches.upload(
          csv([['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'], ...rows]),
          { kind: 'csv' },
        )
      ).id,
    );
    const page = await client.batches.get(batch.id);
    assert.equal(page.transactions.length, 20);
    assert.deepEqual(
      page.transactions.map((t) => t.extra?.row),
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const rest = await client.batches.get(batch.id, { offset: 20, limit: 10 });
    assert.deepEqual(
      rest.transactions.map((t) => t.extra?.row),
      [22, 23, 24, 25, 26],
    );
    await assert.rejects(
      client.batches.get(batch.id, { limit: 1001 }),
      (error: PaygateError) => error.errorCode === '100207',
    );
    await assert.rejects(client.batches.get(randomUUID()), (error: PaygateError) => error.errorCode === '600101');
    // An id that is no UUID names no batch, whatever it holds (U+0000 cannot even reach PostgreSQL).
    for (const id of [`${batch.id}\u0000`, 'a\u0000b', 'DROP TABLE batches']) {
      await assert.rejects(
        client.batches.get(id),
        (error: PaygateError) => error.errorCode === '600101',
        JSON.stringify(id),
      );
      await assert.rejects(
        client.batches.cancel(id),
        (error: PaygateError) => error.errorCode === '600101',
        JSON.stringify(id),
      );
    }
  });
});

describe('a row found running', () => {
  test('its process died after its payment was recorded: the row finishes from that payment, without its card, once', async () => {
    const reference = ref('RESUME');
    const created = await client.batches.upload(
      csv([HEADER, ['payment', reference, '', '', '7.00', '', CARDS.visa, '12', '40', '321', '']]),
      { kind: 'csv' },
    );
    await finished(client, created.id);
    const { db } = server.platform;
    // As a SIGKILL between the payment's two phases leaves it: the row running, its card erased, not yet counted.
    await db
      .updateTable('batch_rows')
      .set({ state: 'running', outcome: null })
      .where('batch_id', '=', created.id)
      .execute();
    await db
      .updateTable('batches')
      .set({ upload_status: 'processing', successful_records: 0 })
      .where('id', '=', created.id)
      .execute();
    const { merchant_id: merchantId } = await db
      .selectFrom('batches')
      .select('merchant_id')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const merchant = await db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', merchantId)
      .executeTakeFirstOrThrow();
    const ctx = merchantContext(server.platform, toMerchant(merchant), { kind: 'system', job: RUN_JOB }, 'test-resume');
    await runRows(ctx, { batchId: created.id, first: 2, last: 2, look: 0 });
    const batch = (await client.batches.get(created.id)).batch_info;
    assert.deepEqual([batch.upload_status, batch.successful_records, batch.failed_records], ['success', 1, 0]);
    const order = await client.orders.check({ order: { reference_number: reference } });
    assert.equal(order.transactions!.length, 1);
  });
});

describe('the load job run again after its hand-over', () => {
  test('a crash between the hand-over and the end of the job: the second run leaves the rows, the counters and the status', async () => {
    const rows = [0, 1, 2].map((i) => [
      'payment',
      ref(`RELOAD-${i}`),
      '',
      '',
      '4.00',
      '',
      CARDS.visa,
      '12',
      '40',
      '321',
      '',
    ]);
    const created = await client.batches.upload(csv([HEADER, ...rows]), { kind: 'csv' });
    await finished(client, created.id);
    const { db } = server.platform;
    // As the crash leaves it: the file read and its parts dropped, its rows handed over (here run), the load job not
    // yet marked done.
    await db.updateTable('batches').set({ upload_status: 'processing' }).where('id', '=', created.id).execute();
    const { merchant_id: merchantId } = await db
      .selectFrom('batches')
      .select('merchant_id')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const merchant = await db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', merchantId)
      .executeTakeFirstOrThrow();
    await loadBatch(
      merchantContext(server.platform, toMerchant(merchant), { kind: 'system', job: LOAD_JOB }, 'test-reload'),
      { batchId: created.id },
    );
    const batch = (await client.batches.get(created.id)).batch_info;
    assert.deepEqual(
      [batch.upload_status, batch.total_records, batch.successful_records, batch.failure_reason],
      ['processing', 3, 3, ''],
    );
    const states = await db.selectFrom('batch_rows').select('state').where('batch_id', '=', created.id).execute();
    assert.deepEqual(
      states.map((row) => row.state),
      ['succeeded', 'succeeded', 'succeeded'],
    );
  });
});

describe('cancelling a batch while its rows run', () => {
  test('rows not yet run are skipped; rows already sent finish; every row is counted once', async () => {
    const { customer, token } = await customerWithToken(client);
    const rows = Array.from({ length: 3000 }, (_, i) => ['payment', ref(`CX${i}`), customer, '1.00', token]);
    const created = await client.batches.upload(
      csv([['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'], ...rows]),
      { kind: 'csv' },
    );
    for (let i = 0; i < 400; i += 1) {
      const { batch_info: info } = await client.batches.get(created.id, { limit: 1 });
      if (info.successful_records > 0 || (info.upload_status !== 'pending' && info.upload_status !== 'processing'))
        break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cancelled = await client.batches.cancel(created.id);
    assert.equal(cancelled.upload_status, 'cancelled');
    // Rows already begun finish on their own: wait until none is running.
    for (let i = 0; i < 400; i += 1) {
      const running = await server.platform.db
        .selectFrom('batch_rows')
        .select('row_number')
        .where('batch_id', '=', created.id)
        .where('state', 'in', ['waiting', 'running'])
        .execute();
      if (running.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const batch = (await client.batches.get(created.id, { limit: 1 })).batch_info;
    assert.equal(batch.upload_status, 'cancelled');
    assert.equal(batch.successful_records + batch.failed_records + batch.skipped_records, 3000);
    assert.ok(batch.skipped_records > 0, 'some rows were skipped');
    const byState = await server.platform.db
      .selectFrom('batch_rows')
      .select(['state'])
      .where('batch_id', '=', created.id)
      .execute();
    assert.equal(byState.filter((row) => row.state === 'skipped').length, batch.skipped_records);
    assert.equal(byState.filter((row) => row.state === 'succeeded').length, batch.successful_records);
    const paid = await server.platform.db
      .selectFrom('transactions')
      .select('id')
      .where('payment_uuid', 'like', `batch:${created.id}:%`)
      .execute();
    assert.equal(paid.length, batch.successful_records + batch.failed_records);
  });
});

describe('a cancel beside a round of the runner', () => {
  // The runner's round ends its rows and then counts them on the batch; a cancel that took the batch first and
  // then waited for those rows deadlocked with it on PostgreSQL (one of the two was refused). Played by hand here:
  // a round's second transaction ends row 3 (the file's second row: the header is row 1), the cancel arrives, then
  // the round counts the row and commits.
  test('the round ends a row and counts it while the cancel waits: both go through, and every row is counted once', async () => {
    const { customer, token } = await customerWithToken(client);
    const rows = [1, 2, 3].map((i) => ['payment', ref(`ROUND-${i}`), customer, '2.00', token]);
    const created = await client.batches.upload(
      csv([['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'], ...rows]),
      { kind: 'csv' },
    );
    await finished(client, created.id);
    const { db } = server.platform;
    // As a batch stands mid-run, its rows not yet run (no runner job is left to take them).
    await db
      .updateTable('batch_rows')
      .set({ state: 'waiting', outcome: null })
      .where('batch_id', '=', created.id)
      .execute();
    await db
      .updateTable('batches')
      .set({ upload_status: 'processing', successful_records: 0, failed_records: 0, finished_at: null })
      .where('id', '=', created.id)
      .execute();
    let cancelling: Promise<unknown> | undefined;
    await db.transaction().execute(async (round) => {
      await round
        .updateTable('batch_rows')
        .set({ state: 'failed', outcome: 'Declined' })
        .where('batch_id', '=', created.id)
        .where('row_number', '=', 3)
        .execute();
      cancelling = client.batches.cancel(created.id).then(
        (info) => info,
        (error: unknown) => error,
      );
      await untilCancelWaits();
      await round
        .updateTable('batches')
        .set((eb) => ({ failed_records: eb('failed_records', '+', 1) }))
        .where('id', '=', created.id)
        .execute();
    });
    const cancelled = await cancelling;
    assert.ok(!(cancelled instanceof Error), `the cancel was refused: ${String(cancelled)}`);
    const batch = (await client.batches.get(created.id, { limit: 1 })).batch_info;
    assert.deepEqual(
      [batch.upload_status, batch.failed_records, batch.skipped_records, batch.successful_records],
      ['cancelled', 1, 2, 0],
    );
    const states = await db
      .selectFrom('batch_rows')
      .select(['row_number', 'state'])
      .where('batch_id', '=', created.id)
      .orderBy('row_number')
      .execute();
    assert.deepEqual(
      states.map((row) => [row.row_number, row.state]),
      [
        [2, 'skipped'],
        [3, 'failed'],
        [4, 'skipped'],
      ],
    );
  });
});

/** Until the cancel's statement waits for a lock (PostgreSQL); on SQLite the cancel waits for the writer's lock. */
async function untilCancelWaits(): Promise<void> {
  if (!process.env.DATABASE_URL) return void (await new Promise((resolve) => setTimeout(resolve, 200)));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%batch%'`.execute(
      server.platform.db,
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('the cancel never waited for the round');
}

describe('another merchant', () => {
  test("cannot read a batch, nor name the first merchant's customers, tokens or transactions in its rows", async () => {
    const { customer, token } = await customerWithToken(client);
    const mine = await finished(
      client,
      (
        await client.batches.upload(
          csv([
            ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
            ['payment', ref('MINE'), customer, '3.00', token],
          ]),
          { kind: 'csv' },
        )
      ).id,
    );
    const transaction = (await client.batches.get(mine.id)).transactions[0]!.uuid;
    for (const call of [
      () => other.batches.get(mine.id),
      () => other.batches.errors(mine.id),
      () => other.batches.resultFile(mine.id),
      () => other.batches.cancel(mine.id),
    ]) {
      await assert.rejects(call(), (error: PaygateError) => error.errorCode === '600101');
    }
    assert.ok((await other.batches.list()).batches.every((b) => b.id !== mine.id));
    const theirs = await finished(
      other,
      (
        await other.batches.upload(
          csv([
            HEADER,
            ['payment', ref('T'), '', customer, '1.00', token, '', '', '', '', ''],
            ['refund', '', transaction, '', '1.00', '', '', '', '', '', ''],
            ['void', '', transaction, '', '', '', '', '', '', '', ''],
          ]),
          { kind: 'csv' },
        )
      ).id,
    );
    assert.deepEqual([theirs.successful_records, theirs.failed_records], [0, 3]);
    const { errors } = await other.batches.errors(theirs.id);
    assert.deepEqual(
      errors.map((e) => e.column),
      ['Customer UUID', 'Original Transaction ID', 'Original Transaction ID'],
    );
    const original = await server.platform.db
      .selectFrom('transactions')
      .select(['voided', 'void_is_pending'])
      .where('id', '=', transaction)
      .executeTakeFirstOrThrow();
    assert.deepEqual([original.voided, original.void_is_pending], [0, 0]);
    const refunds = await server.platform.db
      .selectFrom('transactions')
      .select('id')
      .where('original_transaction_id', '=', transaction)
      .execute();
    assert.deepEqual(refunds, []);
  });
});
