import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type BatchRecord, insertBatch } from '../../src/batches/store.js';
import { PART_BYTES, PartWriter, storedFile, storeFile } from '../../src/batches/stored-file.js';
import { type Context, merchantContext } from '../../src/context/context.js';
import { newSortableId } from '../../src/platform/ids.js';
import { toMerchant } from '../../src/platform/tenants.js';
import { startTestServer, type TestServer } from '../support/server.js';

// A batch's file as the database keeps it (issue 34): sealed part by part, frame by frame, and read back by range,
// whatever sizes it arrived in.

let server: TestServer;
let ctx: Context;

before(async () => {
  server = await startTestServer();
  const { merchantId } = await server.newMerchant();
  const merchant = await server.platform.db
    .selectFrom('merchants')
    .selectAll()
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();
  ctx = merchantContext(server.platform, toMerchant(merchant), { kind: 'system', job: 'test' }, 'test-stored-file');
});
after(() => server.close());

async function newBatch(): Promise<string> {
  const now = Date.now();
  const batch: BatchRecord = {
    id: newSortableId(now),
    merchant_id: ctx.merchant.id,
    batch_name: 'stored',
    upload_status: 'pending',
    file_url: 'http://127.0.0.1:9/f.csv',
    file_kind: null,
    file_bytes: null,
    total_records: 0,
    successful_records: 0,
    failed_records: 0,
    skipped_records: 0,
    failure_reason: null,
    app_id: null,
    created_by: 'operator',
    started_at: null,
    finished_at: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await insertBatch(ctx.db, batch);
  return batch.id;
}

async function read(batchId: string, size: number, start: number, end: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of storedFile(ctx, batchId, size).range(start, end)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('a stored batch file', () => {
  test('arrives in chunks of any size, is kept sealed in parts, and reads back whole and by any range', async () => {
    const file = randomBytes(2 * PART_BYTES + 12_345);
    const batchId = await newBatch();
    const writer = new PartWriter(ctx, batchId);
    for (let at = 0; at < file.length; ) {
      const size = randomInt(1, 200_000);
      await writer.write(file.subarray(at, at + size));
      at += size;
    }
    await writer.end();
    assert.equal(writer.bytes, file.length);
    const parts = await ctx.db
      .selectFrom('batch_file_parts')
      .select(['part', 'content'])
      .where('batch_id', '=', batchId)
      .orderBy('part')
      .execute();
    assert.deepEqual(
      parts.map((row) => row.part),
      [0, 1, 2],
    );
    assert.ok(
      parts.every(
        (row) => row.content.startsWith('s1:') && !row.content.includes(file.subarray(0, 64).toString('base64')),
      ),
    );
    assert.ok((await read(batchId, file.length, 0, file.length)).equals(file));
    for (let n = 0; n < 50; n += 1) {
      const start = randomInt(0, file.length);
      const end = randomInt(start, file.length + 1);
      assert.ok(
        (await read(batchId, file.length, start, end)).equals(file.subarray(start, end)),
        `bytes ${start} to ${end}`,
      );
    }
  });

  test('sent at once, it is cut the same way; and a part stored by an earlier version (plain base64) still reads', async () => {
    const file = randomBytes(PART_BYTES + 1);
    const batchId = await newBatch();
    await storeFile(ctx, batchId, file);
    assert.ok((await read(batchId, file.length, 0, file.length)).equals(file));
    const legacy = await newBatch();
    await ctx.db
      .insertInto('batch_file_parts')
      .values({
        batch_id: legacy,
        part: 0,
        merchant_id: ctx.merchant.id,
        content: file.subarray(0, 1000).toString('base64'),
      })
      .execute();
    assert.ok((await read(legacy, 1000, 10, 900)).equals(file.subarray(10, 900)));
  });

  test('a part opens only as itself: moved to another place or batch, it is refused', async () => {
    const batchId = await newBatch();
    await storeFile(ctx, batchId, randomBytes(2 * PART_BYTES));
    const [first, second] = await ctx.db
      .selectFrom('batch_file_parts')
      .select(['part', 'content'])
      .where('batch_id', '=', batchId)
      .orderBy('part')
      .execute();
    await ctx.db
      .updateTable('batch_file_parts')
      .set({ content: second!.content })
      .where('batch_id', '=', batchId)
      .where('part', '=', 0)
      .execute();
    await assert.rejects(read(batchId, 2 * PART_BYTES, 0, 10));
    const other = await newBatch();
    await ctx.db
      .insertInto('batch_file_parts')
      .values({ batch_id: other, part: 0, merchant_id: ctx.merchant.id, content: first!.content })
      .execute();
    await assert.rejects(read(other, PART_BYTES, 0, 10));
  });
});
