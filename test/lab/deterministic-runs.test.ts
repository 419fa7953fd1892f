import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, ReplyData } from '@paygate/client';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { CARDS, futureExpiry } from '../support/fixtures.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { freePort } from '../support/processes.js';
import { TestReceiver } from '../support/receiver.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Issue 36, point 5: after a deterministic reset, ids, tokens, link tokens, order numbers and every timestamp come
// from the seed and a business clock that stands still until moved, so the same script of calls gives the same bytes:
// reply bodies, webhook bodies and PDF receipts, run after run and across a restart (docs/lab.md).

const DAY_SECONDS = 86_400;
const HOUR_MS = 3_600_000;

type ResetReply = ReplyData<'resetSandbox'>;

/**
 * The one place that asks for a deterministic reset. The client's `labSnapshots.reset()` takes no options yet, so the
 * body goes through the client's generic signed call; once it does:
 * `client.labSnapshots.reset({ deterministic: true, seed })`.
 */
function resetDeterministic(client: PaygateClient, seed: string): Promise<ResetReply> {
  return client.labSnapshots.reset({ deterministic: true, seed });
}

/** One observable thing a run produced, named so that a difference says where it is. */
interface TextItem {
  label: string;
  text: string;
}

interface ReceiptItem {
  label: string;
  bytes: Buffer;
}

/** Everything a run of the script let the merchant observe, in the order it was observed. */
interface RunRecord {
  replies: TextItem[];
  webhooks: TextItem[];
  receipts: ReceiptItem[];
  /** The first objects the run made, to tell one seed's world from another's. */
  made: { customerUuid: string; orderNumbers: string[] };
}

/**
 * A client whose every reply body is kept as the raw text it came as (the label: method, path and query). Polls run
 * inside `unrecorded`: how many of them a run needs depends on timing, not on the world.
 */
function recordingClient(server: TestServer, merchant: Pick<TestMerchant, 'appId' | 'privateKey'>) {
  const replies: TextItem[] = [];
  let recording = true;
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (recording) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const text = await response.clone().text();
      replies.push({
        label: `reply ${replies.length + 1} (${init?.method ?? 'GET'} ${url.pathname}${url.search})`,
        text: `${response.status}\n${text}`,
      });
    }
    return response;
  };
  return {
    client: server.client(merchant, { fetch: recordingFetch, timeoutMs: 120_000 }),
    replies,
    async unrecorded<T>(work: () => Promise<T>): Promise<T> {
      recording = false;
      try {
        return await work();
      } finally {
        recording = true;
      }
    },
  };
}

describe('deterministic runs of a sandbox merchant', () => {
  let receiver: TestReceiver;
  let server: TestServer;
  let merchant: TestMerchant;
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-deterministic-'));
  let schema: Awaited<ReturnType<typeof createTestSchema>> | undefined;
  let port: number;

  // The same address before and after the restart: links in replies and bodies are built from the public base URL.
  const startServer = () =>
    startTestServer({
      dataDir,
      databaseUrl: schema?.url,
      env: { PORT: String(port), PAYGATE_PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    });

  before(async () => {
    receiver = await TestReceiver.start();
    schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    port = await freePort();
    server = await startServer();
    merchant = await server.newMerchant({ name: 'Deterministic', timezone: 'Asia/Hong_Kong' });
    await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/app`);
  });
  after(async () => {
    try {
      await server?.close();
    } finally {
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      await receiver?.close();
    }
  });

  /** Waits until every delivery of the merchant's is done and the receiver has it; returns this run's, sorted. */
  async function settledWebhooks(fromIndex: number): Promise<TextItem[]> {
    for (let polls = 0; ; polls += 1) {
      const deliveries = await server.platform.db
        .selectFrom('webhook_deliveries')
        .select(['state'])
        .where('merchant_id', '=', merchant.merchantId)
        .execute();
      const open = deliveries.filter((delivery) => delivery.state === 'pending' || delivery.state === 'sending');
      const delivered = deliveries.filter((delivery) => delivery.state === 'delivered').length;
      if (open.length === 0 && receiver.received.length - fromIndex >= delivered) break;
      if (polls > 600) throw new Error(`deliveries still open after 30 s: ${open.length} of ${deliveries.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Delivery order may vary: by event id, then body, then where it went.
    const bodies = receiver.received.slice(fromIndex).map((request) => ({
      eventId: String(request.headers['x-event-id']),
      action: String(request.headers['x-action']),
      target: request.target,
      body: request.rawBody.toString('utf8'),
    }));
    bodies.sort(
      (x, y) => x.eventId.localeCompare(y.eventId) || x.body.localeCompare(y.body) || x.target.localeCompare(y.target),
    );
    return bodies.map((hook, index) => ({
      label: `webhook ${index + 1} (${hook.action} to ${hook.target})`,
      text: `X-Event-ID: ${hook.eventId}\nX-Action: ${hook.action}\n\n${hook.body}`,
    }));
  }

  /**
   * The script: the same calls, with the same inputs, every run. Only its own inputs are fixed here; every id, token,
   * number and time it uses afterwards comes from the replies.
   */
  async function runScript(): Promise<RunRecord> {
    const webhooksFrom = receiver.received.length;
    const { client, replies, unrecorded } = recordingClient(server, merchant);
    const receipts: ReceiptItem[] = [];
    const downloadReceipt = async (label: string, reference: string) => {
      const { download_link: link } = await client.orders.receiptLink({ order: { reference_number: reference } });
      const response = await fetch(link);
      assert.equal(response.status, 200, `the receipt of ${reference}`);
      receipts.push({
        label: `receipt ${receipts.length + 1} (${label})`,
        bytes: Buffer.from(await response.arrayBuffer()),
      });
    };

    const start = await client.sandbox.clock();
    const startMs = Date.parse(start.now);
    const expiry = futureExpiry(new Date(startMs));
    const card = (number: string) => ({ number, ...expiry, cvv: '123', holder_name: 'Chan Tai Man' });

    // A customer, and an order paid by card.
    const customer = await client.customers.create({
      reference_number: 'DET-CUSTOMER-1',
      name: 'Chan Tai Man',
      phone: '91234567',
      email: 'chan@example.com',
    });
    const cardOrder = await client.orders.create(
      {
        reference_number: 'DET-ORDER-CARD',
        currency: 'HKD',
        charge_fee: '100.00',
        callback_url: `${receiver.url}/orders`,
      },
      { customerUuid: customer.uuid },
    );
    const cardPayment = await client.orders.pay(
      { number: cardOrder.number },
      { credit_card: { ...card(CARDS.visa), consume_mode: 'sales' } },
    );
    assert.ok(cardPayment.transaction.success, 'the card payment went through');
    await client.orders.paymentLink({ order: { reference_number: 'DET-ORDER-CARD' } });

    // A card bound through 3-D Secure (passed as the cardholder would), checked, made the default, and charged.
    const pending = await client.customers.bindCard(customer.uuid, {
      ...card(CARDS.visa),
      billing_currency: 'HKD',
    });
    assert.equal(pending.state, 'pending');
    await client.sandbox.settleToken(pending.token, 'succeed');
    const bound = await client.customers.checkToken(pending.token, {
      customerUuid: customer.uuid,
      verifyUuid: pending.verify_uuid ?? undefined,
    });
    assert.equal(bound.state, 'success');
    await client.customers.update(customer.uuid, {
      name: customer.name,
      phone: customer.phone,
      default_payment_token: bound.token,
    });
    await client.customers.tokens(customer.uuid);
    const tokenOrder = await client.orders.create(
      { reference_number: 'DET-ORDER-TOKEN', currency: 'HKD', charge_fee: '30.00' },
      { customerUuid: customer.uuid },
    );
    const tokenPayment = await client.orders.pay(
      { number: tokenOrder.number },
      { payment_token: { token: bound.token, consume_mode: 'sales', entry_type: 'mit' } },
    );
    assert.ok(tokenPayment.transaction.success, 'the token payment went through');
    await client.customers.walletLink(customer.uuid);

    // A monthly plan whose first billing is a day ahead.
    const item = await client.recurring.createItem({
      reference_id: 'DET-ITEM',
      label: 'Gold',
      price: '88.00',
      currency: 'HKD',
    });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const plan = await client.recurring.createPlan({
      name: 'Gold',
      reference_number: 'DET-PLAN',
      customer_uuid: customer.uuid,
      cycles: [
        {
          recurring_items: [{ id: item.id }],
          recurring_billing_config: config.id,
          estimated_start_date: new Date(startMs + DAY_SECONDS * 1000).toISOString(),
          interval_counts: 3,
        },
      ],
    });

    // A payout an hour ahead, funded by a top-up.
    await client.sandbox.topUp({ currency: 'HKD', amount: '1000.00' });
    const payee = await client.payees.create({
      type: 'Company',
      nickname: 'Kowloon Stationery',
      email: 'accounts@kowloon-stationery.example',
      phone_country_code: '852',
      phone_number: '21234567',
      payout_account: {
        country: 'HK',
        currency: 'HKD',
        transfer_method: 'HK FPS - Account Number',
        hk_fps: {
          bank_account: { bank_code: '004', account_name: 'Kowloon Stationery Ltd', account_number: '123456789' },
        },
      },
    });
    const payout = await client.payouts.create({
      payee_id: payee.id,
      currency: 'HKD',
      amount: '250.00',
      callback_url: `${receiver.url}/payouts`,
      remark: 'Invoice DET-1',
      reference_id: 'DET-PAYOUT-1',
      schedule_at: new Date(Math.floor(startMs / 1000) * 1000 + HOUR_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });

    // Two days on: the sales settle, the plan bills, the payout runs and the bank pays it.
    await client.sandbox.advanceClock(2 * DAY_SECONDS);
    await client.recurring.getPlan(plan.id);
    const billed = await client.recurring.listOrders({ filters: { 'filter[plan.id][_eq]': plan.id } });
    assert.equal(billed.length, 1, 'the plan billed once');
    assert.equal((await client.payouts.get(payout.id)).transfer_status, 'Settled');

    // A partial refund of the settled card sale.
    await client.transactions.refund(cardPayment.transaction.uuid, { amount: '40.00', reason: 'One item sent back' });

    // A batch of merchant-initiated payments: one on the token, one on a card.
    const expiryYy = expiry.exp_year.slice(2);
    const batchFile = [
      'Action,Reference Number,Customer UUID,Amount,Currency,Token ID,Card Number,Expiry Month,Expiry Year,CVC,Remark',
      `payment,DET-BATCH-1,${customer.uuid},15.00,HKD,${bound.token},,,,,dues on the token`,
      `payment,DET-BATCH-2,${customer.uuid},12.50,HKD,,${CARDS.mastercard},12,${expiryYy},123,dues on a card`,
      '',
    ].join('\r\n');
    const batch = await client.batches.upload(batchFile, { kind: 'csv', batchName: 'DET dues' });
    const ran = await unrecorded(async () => {
      for (let polls = 0; ; polls += 1) {
        const { batch_info: info } = await client.batches.get(batch.id, { limit: 1 });
        if (['success', 'failed', 'cancelled'].includes(info.upload_status)) return info;
        if (polls > 600) throw new Error(`batch still ${info.upload_status} after 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    assert.deepEqual([ran.upload_status, ran.successful_records], ['success', 2]);
    await client.batches.get(batch.id);
    await client.batches.errors(batch.id);
    await client.batches.resultFile(batch.id);

    // Receipts, and the world as it reads at the end.
    await downloadReceipt('the card order, partly refunded', 'DET-ORDER-CARD');
    await downloadReceipt('the token order', 'DET-ORDER-TOKEN');
    await client.orders.list({ limit: 100 });
    await client.balances.get();
    await client.balances.transactions({ limit: 100 });
    await client.payees.list();
    await client.payouts.list();
    await client.batches.list();
    await client.customers.get(customer.uuid);
    await client.sandbox.clock();

    const webhooks = await settledWebhooks(webhooksFrom);
    return {
      replies,
      webhooks,
      receipts,
      made: { customerUuid: customer.uuid, orderNumbers: [cardOrder.number, tokenOrder.number] },
    };
  }

  test('one seed, one script: the same bytes again after a restart; another seed: other ids', async () => {
    await resetDeterministic(merchant.client, 'ci-seed-1');
    const first = await runScript();
    assert.ok(first.webhooks.length > 10, `webhooks collected: ${first.webhooks.length}`);

    await server.close();
    server = await startServer();
    merchant = { ...merchant, client: server.client(merchant) };
    await resetDeterministic(merchant.client, 'ci-seed-1');
    const again = await runScript();
    assertSameRun(first, again);

    await resetDeterministic(merchant.client, 'ci-seed-2');
    const otherSeed = await runScript();
    assert.notEqual(otherSeed.made.customerUuid, first.made.customerUuid, 'another seed, another customer uuid');
    for (const [index, number] of otherSeed.made.orderNumbers.entries())
      assert.notEqual(number, first.made.orderNumbers[index], `another seed, another number for order ${index + 1}`);
  });

  test("a deterministic merchant's business clock stands still at the reset's instant until moved", async () => {
    const reset = await resetDeterministic(merchant.client, 'ci-clock');
    const first = await merchant.client.sandbox.clock();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const second = await merchant.client.sandbox.clock();
    assert.equal(second.now, first.now, 'a second of wall time later, the same business time');
    assert.equal(first.now, reset.now, "the business time is the reset's");
  });
});

/** Fails with the first differing items of two runs, each said where and how it differs. */
function assertSameRun(expected: RunRecord, actual: RunRecord): void {
  const differences = [
    ...textDifferences('replies', expected.replies, actual.replies),
    ...textDifferences('webhooks', expected.webhooks, actual.webhooks),
    ...receiptDifferences(expected.receipts, actual.receipts),
  ];
  if (differences.length > 0)
    assert.fail(
      `the second run differs from the first in ${differences.length} item(s); the first ones:\n\n` +
        differences.slice(0, 12).join('\n\n'),
    );
  assert.deepEqual(actual.made, expected.made);
}

function textDifferences(what: string, expected: TextItem[], actual: TextItem[]): string[] {
  const differences: string[] = [];
  if (expected.length !== actual.length)
    differences.push(`${what}: ${expected.length} in the first run, ${actual.length} in the second`);
  for (let index = 0; index < Math.min(expected.length, actual.length); index += 1) {
    const [was, is] = [expected[index]!, actual[index]!];
    if (was.label === is.label && was.text === is.text) continue;
    const label = was.label === is.label ? was.label : `${was.label}, now ${is.label}`;
    differences.push(`${label} differs:\n${describeTextDifference(was.text, is.text)}`);
  }
  return differences;
}

function receiptDifferences(expected: ReceiptItem[], actual: ReceiptItem[]): string[] {
  const differences: string[] = [];
  if (expected.length !== actual.length)
    differences.push(`receipts: ${expected.length} in the first run, ${actual.length} in the second`);
  for (let index = 0; index < Math.min(expected.length, actual.length); index += 1) {
    const [was, is] = [expected[index]!, actual[index]!];
    if (was.bytes.equals(is.bytes)) continue;
    let offset = 0;
    while (offset < was.bytes.length && was.bytes[offset] === is.bytes[offset]) offset += 1;
    const around = (bytes: Buffer) =>
      JSON.stringify(bytes.subarray(Math.max(0, offset - 40), offset + 40).toString('latin1'));
    differences.push(
      `${was.label} differs (${was.bytes.length} bytes, now ${is.bytes.length}) from byte ${offset}:\n` +
        `  was ${around(was.bytes)}\n  now ${around(is.bytes)}`,
    );
  }
  return differences;
}

/** The JSON paths whose values differ (for a JSON body), else the first differing characters. */
function describeTextDifference(was: string, is: string): string {
  const [wasHead, wasBody] = splitHead(was);
  const [isHead, isBody] = splitHead(is);
  const wasJson = parseJson(wasBody);
  const isJson = parseJson(isBody);
  if (wasHead === isHead && wasJson !== undefined && isJson !== undefined) {
    const paths = jsonDifferences(wasJson, isJson, '');
    if (paths.length > 0)
      return paths
        .slice(0, 15)
        .map((line) => `  ${line}`)
        .join('\n');
  }
  let at = 0;
  while (at < was.length && was[at] === is[at]) at += 1;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 60), at + 60));
  return `  from character ${at}:\n  was ${around(was)}\n  now ${around(is)}`;
}

/** A recorded text: a head (a reply's status, a webhook's event headers), then the body. */
function splitHead(text: string): [string, string] {
  const blank = text.indexOf('\n\n');
  const cut = blank >= 0 ? blank + 2 : text.indexOf('\n') + 1;
  return [text.slice(0, cut), text.slice(cut)];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonDifferences(was: unknown, is: unknown, path: string): string[] {
  if (was !== null && is !== null && typeof was === 'object' && typeof is === 'object') {
    if (Array.isArray(was) !== Array.isArray(is)) return [`${path || '.'}: ${brief(was)} → ${brief(is)}`];
    const keys = [...new Set([...Object.keys(was), ...Object.keys(is)])];
    return keys.flatMap((key) =>
      jsonDifferences(
        (was as Record<string, unknown>)[key],
        (is as Record<string, unknown>)[key],
        Array.isArray(was) ? `${path}[${key}]` : `${path}.${key}`,
      ),
    );
  }
  return Object.is(was, is) ? [] : [`${path || '.'}: ${brief(was)} → ${brief(is)}`];
}

function brief(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
