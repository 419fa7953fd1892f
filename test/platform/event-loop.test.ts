import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { type Context, merchantContext } from '../../src/context/context.js';
import { downloadReceipt } from '../../src/orders/pages/receipt.js';
import { listMerchantOrders, MAX_LIST_PAGE_ROWS } from '../../src/orders/queries.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { advanceClock } from '../../src/sandbox/clock.js';
import { startTestServer, type TestServer } from '../support/server.js';

// One process serves every merchant: work that could take long lets other requests, timers and I/O run between
// its steps (or runs on a worker thread). On SQLite every query runs on the event loop, so there a step that did
// not yield would hold it; each test counts the turns the loop took while the work ran.

/** How many times a task queued behind waiting I/O got to run while `work` ran. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns += 1;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

const LONG_LABEL = `${'Hand-pulled noodles with braised beef brisket, '.repeat(5)}`.slice(0, 240);
const heavyOrder = (reference: string) => ({
  reference_number: reference,
  currency: 'HKD',
  charge_fee: '500.00',
  line_items: Array.from({ length: 500 }, (_, i) => ({
    purchasable_type: 'Charge',
    price: '1.00',
    quantity: 1,
    label: `${LONG_LABEL} ${i}`,
  })),
});

describe('long work lets others run between its steps', () => {
  let server: TestServer;
  let client: PaygateClient;
  let ctx: Context;

  before(async () => {
    server = await startTestServer({ env: { PAYGATE_LINK_RATE_LIMIT: '0' } });
    const merchant = await server.newMerchant();
    client = merchant.client;
    ctx = merchantContext(
      server.platform,
      (await findMerchant(server.platform.db, merchant.merchantId))!,
      { kind: 'app', appId: merchant.appId },
      'test',
    );
  });
  after(() => server.close());

  test(`a list page of ${MAX_LIST_PAGE_ROWS} line items is read in slices`, async () => {
    const run = randomUUID();
    for (let i = 0; i < MAX_LIST_PAGE_ROWS / 500; i++)
      await client.orders.create(heavyOrder(`EL-${run}-${i}`) as never);
    const query = { 'filter[reference_number][_contains]': run };
    let listed = 0;
    const turns = await turnsDuring(async () => {
      listed = (await listMerchantOrders(ctx, query, { offset: 0, limit: 1000 })).views.reduce(
        (sum, view) => sum + view.items.length,
        0,
      );
    });
    assert.equal(listed, MAX_LIST_PAGE_ROWS);
    assert.ok(turns >= 4, `the loop turned ${turns} times`);
  });

  test('a receipt of 500 long lines is laid out off the event loop', async () => {
    const reference = `EL-${randomUUID()}`;
    await client.orders.create(heavyOrder(reference) as never);
    const { download_link } = await client.orders.receiptLink({ order: { reference_number: reference } });
    const token = download_link.split('/').pop()!;
    // The first receipt also starts the thread; the second is laid out like any other.
    await downloadReceipt(server.platform, token, 'warm-up');
    await client.orders.pay({ reference_number: reference }, { amount: '1.00', alipay: {} } as never);
    let bytes = 0;
    const turns = await turnsDuring(async () => {
      const answer = await downloadReceipt(server.platform, token, 'test');
      bytes = 'file' in answer ? answer.file.length : 0;
    });
    assert.ok(bytes > 10_000, `a PDF of ${bytes} bytes`);
    assert.ok(turns >= 10, `the loop turned ${turns} times`);
  });

  test('a year on the sandbox clock runs what falls due step by step', async () => {
    // Settlement falls due every business day: a year is 366 steps, each only database work.
    const year = 366 * 24 * 60 * 60;
    let offset = 0;
    const turns = await turnsDuring(async () => {
      offset = (await advanceClock(ctx, year)).offset_seconds;
    });
    assert.ok(offset >= year, `the clock moved ${offset} s`);
    assert.ok(turns >= 100, `the loop turned ${turns} times`);
  });
});
