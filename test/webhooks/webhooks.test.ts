import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, createVerify, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Order, type PaygateClient, verifyWebhook } from '@paygate/client';
import { inTransaction, merchantContext } from '../../src/context/context.js';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { createOrder } from '../../src/orders/create-order.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { PROJECT_ROOT } from '../../src/platform/version.js';
import { CARDS, card } from '../support/fixtures.js';
import { freePort } from '../support/processes.js';
import { type ReceivedWebhook, TestReceiver } from '../support/receiver.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Order webhooks (docs/webhooks.md): which events are sent, where, with which headers, state and body, and that
// they verify both with the client's check and with the algorithm of compatibility.md section 2 written out here.

const VISA = card(CARDS.visa);
const DECLINED = card(CARDS.doNotHonour);
const DAY = 24 * 60 * 60;

/**
 * compatibility.md section 2, step by step, independent of paygate's code: k1 = HMAC(nonce, request time),
 * k2 = HMAC(k1, "Wonder-RSA-SHA256"), message = hex HMAC(k2, "POST\n" + path?query + "\n" + body), and the
 * signature is RSA-SHA256 over that message.
 */
function independentlyVerified(request: ReceivedWebhook, publicKeyPem: string, appId: string): boolean {
  const credential = String(request.headers.credential);
  const nonce = String(request.headers.nonce);
  const [credentialApp, requestTime, algorithm, ...rest] = credential.split('/');
  assert.equal(rest.length, 0);
  assert.equal(credentialApp, appId);
  assert.equal(algorithm, 'Wonder-RSA-SHA256');
  assert.match(requestTime ?? '', /^\d{14}$/);
  assert.match(nonce, /^[0-9A-Za-z]{16}$/);
  const k1 = createHmac('sha256', Buffer.from(nonce, 'utf8')).update(requestTime!).digest();
  const k2 = createHmac('sha256', k1).update('Wonder-RSA-SHA256').digest();
  const preSign = Buffer.concat([Buffer.from(`POST\n${request.target}\n`), request.rawBody]);
  const message = createHmac('sha256', k2).update(preSign).digest('hex');
  return createVerify('RSA-SHA256').update(message).verify(publicKeyPem, String(request.headers.signature), 'base64');
}

describe('order webhooks', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  let receiver: TestReceiver;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    client = merchant.client;
    receiver = await TestReceiver.start();
  });
  after(async () => {
    // A failing close (a route that broke its contract) must not leave the receiver holding the process open.
    try {
      await server.close();
    } finally {
      await receiver.close();
    }
  });

  /** An order whose notify_url is a unique path on the receiver. */
  async function orderNotifyingReceiver(total = '20.00'): Promise<{ reference: string; path: string; order: Order }> {
    const reference = `WH-${randomUUID()}`;
    const path = `/hooks/${reference}?shop=1&lang=en`;
    const order = await client.orders.create({
      reference_number: reference,
      currency: 'HKD',
      charge_fee: total,
      callback_url: `${receiver.url}${path}`,
    });
    return { reference, path: path.split('?')[0]!, order };
  }

  function assertGenuine(request: ReceivedWebhook): { action: string; eventId: string; order: Order } {
    assert.equal(request.headers['content-type'], 'application/json');
    const verified = verifyWebhook(
      request.headers,
      request.rawBody,
      merchant.webhookPublicKey,
      `${receiver.url}${request.target}`,
    );
    assert.equal(verified.appId, merchant.appId);
    assert.ok(
      independentlyVerified(request, merchant.webhookPublicKey, merchant.appId),
      'verifies by compatibility.md section 2',
    );
    const body = JSON.parse(request.rawBody.toString('utf8')) as {
      code: number;
      message: string;
      data: { order: Order };
    };
    assert.equal(body.code, 200);
    assert.equal(typeof body.message, 'string');
    const order = body.data.order;
    for (const field of [
      'number',
      'reference_number',
      'state',
      'correspondence_state',
      'paid_total',
      'unpaid_total',
      'initial_total',
      'currency',
      'transactions',
    ] as const) {
      assert.ok(field in order, `the order in the body has ${field}`);
    }
    return { action: String(request.headers['x-action']), eventId: String(request.headers['x-event-id']), order };
  }

  async function next(path: string, action: string): Promise<{ eventId: string; order: Order }> {
    const [request] = await receiver.waitFor({ path, action });
    const { eventId, order } = assertGenuine(request!);
    return { eventId, order };
  }

  const states = (order: Order) => [order.state, order.correspondence_state];

  test('order.created, then order.paid (part, then all) with the states of compatibility.md section 4', async () => {
    const { reference, path, order } = await orderNotifyingReceiver('20.00');
    const created = await next(path, 'order.created');
    assert.deepEqual(states(created.order), ['invoiced', 'unpaid']);
    assert.equal(created.order.number, order.number);

    await client.orders.pay({ reference_number: reference }, { amount: '5.00', credit_card: VISA });
    const part = await next(path, 'order.paid');
    assert.deepEqual(states(part.order), ['in_completed', 'partial_paid']);
    assert.equal(part.order.paid_total, '5.00');

    await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
    await receiver.waitFor({ path, action: 'order.paid' }, 2);
    const all = assertGenuine(receiver.matching({ path, action: 'order.paid' })[1]!);
    assert.deepEqual(states(all.order), ['completed', 'paid']);
    assert.equal(all.order.transactions.length, 2);
    assert.notEqual(all.eventId, part.eventId, 'each event has its own id');
    assert.equal(receiver.matching({ path }).length, 3, 'nothing else was sent');
  });

  test('order.payment_failure for a declined card', async () => {
    const { reference, path } = await orderNotifyingReceiver();
    await client.orders.pay({ reference_number: reference }, { credit_card: DECLINED });
    const failure = await next(path, 'order.payment_failure');
    assert.deepEqual(states(failure.order), ['invoiced', 'unpaid']);
    assert.equal(failure.order.transactions[0]!.success, false);
  });

  test('order.authorized for a pre-authorisation, order.paid for its capture', async () => {
    const { reference, path } = await orderNotifyingReceiver('20.00');
    await client.orders.pay(
      { reference_number: reference },
      { credit_card: { ...VISA, consume_mode: 'pre_authorize' } },
    );
    const authorized = await next(path, 'order.authorized');
    assert.equal(authorized.order.correspondence_state, 'authorized');
    const auth = authorized.order.transactions[0]!;
    await client.transactions.capture(auth.uuid, '20.00');
    const paid = await next(path, 'order.paid');
    assert.deepEqual(states(paid.order), ['completed', 'paid']);
  });

  test('order.voided for an unpaid order voided as a whole', async () => {
    const { reference, path } = await orderNotifyingReceiver();
    await client.orders.void({ reference_number: reference });
    const voided = await next(path, 'order.voided');
    assert.deepEqual(states(voided.order), ['voided', 'unpaid']);
  });

  test('transaction.voided (part, then all) for voided sales', async () => {
    const { reference, path } = await orderNotifyingReceiver('20.00');
    const first = await client.orders.pay({ reference_number: reference }, { amount: '5.00', credit_card: VISA });
    const second = await client.orders.pay({ reference_number: reference }, { amount: '15.00', credit_card: VISA });
    await client.transactions.void(first.transaction.uuid);
    const part = await next(path, 'transaction.voided');
    assert.deepEqual(states(part.order), ['in_completed', 'partial_paid']);
    await client.transactions.void(second.transaction.uuid);
    await receiver.waitFor({ path, action: 'transaction.voided' }, 2);
    const all = assertGenuine(receiver.matching({ path, action: 'transaction.voided' })[1]!);
    assert.deepEqual(states(all.order), ['completed', 'voided']);
  });

  test('order.refunded (part, then all) after settlement', async () => {
    const { reference, path } = await orderNotifyingReceiver('20.00');
    const sale = await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
    await client.sandbox.advanceClock(DAY);
    await client.transactions.refund(sale.transaction.uuid, { amount: '5.00' });
    const part = await next(path, 'order.refunded');
    assert.deepEqual(states(part.order), ['in_completed', 'partial_paid']);
    await client.transactions.refund(sale.transaction.uuid, { amount: '15.00' });
    await receiver.waitFor({ path, action: 'order.refunded' }, 2);
    const all = assertGenuine(receiver.matching({ path, action: 'order.refunded' })[1]!);
    assert.deepEqual(states(all.order), ['completed', 'refunded']);
  });

  test('the business clock sends its own events: a due-date void, an expired authorisation, an abandoned wallet payment', async () => {
    const own = await server.newMerchant();
    const path = `/clock/${randomUUID()}`;
    const create = (reference: string, extra: Record<string, string> = {}) =>
      own.client.orders.create({
        reference_number: reference,
        currency: 'HKD',
        charge_fee: '9.00',
        callback_url: `${receiver.url}${path}/${reference}`,
        ...extra,
      });
    const overdue = `OVERDUE-${randomUUID()}`;
    const clock = await own.client.sandbox.clock();
    await create(overdue, { due_date: clock.business_date });
    const authorised = `AUTH-${randomUUID()}`;
    await create(authorised);
    await own.client.orders.pay(
      { reference_number: authorised },
      { credit_card: { ...VISA, consume_mode: 'pre_authorize' } },
    );
    const wallet = `WALLET-${randomUUID()}`;
    await create(wallet);
    await own.client.orders.pay({ reference_number: wallet }, { alipay: {} });

    await own.client.sandbox.advanceClock(8 * DAY);
    const signed = (reference: string, action: string) => {
      const requests = receiver.matching({ path: `${path}/${reference}`, action });
      assert.equal(requests.length, 1, `${action} for ${reference}`);
      const request = requests[0]!;
      assert.ok(independentlyVerified(request, own.webhookPublicKey, own.appId));
      return (JSON.parse(request.rawBody.toString('utf8')) as { data: { order: Order } }).data.order;
    };
    assert.deepEqual(states(signed(overdue, 'order.voided')), ['voided', 'unpaid']);
    const expired = signed(authorised, 'transaction.voided');
    assert.equal(expired.transactions[0]!.voided, true);
    const abandoned = signed(wallet, 'order.payment_failure');
    assert.deepEqual(
      [abandoned.transactions[0]!.payment_method, abandoned.transactions[0]!.success],
      ['alipay', false],
    );
  });

  test('the body is the order as it was at the event, not at delivery', async () => {
    const { reference, path } = await orderNotifyingReceiver('20.00');
    receiver.answer = (r) => (r.target.startsWith(path) ? 503 : 200);
    try {
      await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
      await receiver.waitFor({ path, action: 'order.created' });
    } finally {
      receiver.answer = () => 200;
    }
    const [event] = await client.orders.events({ order: { reference_number: reference } });
    assert.equal(event!.action, 'order.created');
    await client.webhooks.redeliver(event!.event_id);
    const redelivered = await receiver.waitFor({ path, eventId: event!.event_id }, 2);
    const latest = assertGenuine(redelivered.at(-1)!);
    assert.deepEqual(states(latest.order), ['invoiced', 'unpaid'], 'rendered when the order was created');
    assert.equal(latest.order.transactions.length, 0);
  });

  test("an app's webhook endpoint gets every event of its merchant, signed with that app's key", async () => {
    const other = await server.newMerchant();
    const appPath = `/app-endpoint/${randomUUID()}`;
    await setAppWebhookUrl(server.platform, other.appId, `${receiver.url}${appPath}`);
    const reference = `WH-APP-${randomUUID()}`;
    await other.client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '3.00' });
    const [request] = await receiver.waitFor({ path: appPath, action: 'order.created' });
    const verified = verifyWebhook(
      request!.headers,
      request!.rawBody,
      other.webhookPublicKey,
      `${receiver.url}${request!.target}`,
    );
    assert.equal(verified.appId, other.appId);
    assert.throws(
      () =>
        verifyWebhook(
          request!.headers,
          request!.rawBody,
          merchant.webhookPublicKey,
          `${receiver.url}${request!.target}`,
        ),
      "another app's key does not verify it",
    );
    assert.equal((verified.body as { data: { order: Order } }).data.order.reference_number, reference);
  });

  test("an app's endpoint set in the middle of a transaction gets the events written after it, not those before", async () => {
    // Events of one transaction share one read of the merchant's apps (a batch round writes hundreds): a change to
    // the apps in that same transaction must still be seen by the events that follow it.
    const other = await server.newMerchant();
    const appPath = `/app-endpoint/${randomUUID()}`;
    const ctx = merchantContext(
      server.platform,
      (await findMerchant(server.platform.db, other.merchantId))!,
      { kind: 'operator' },
      randomUUID(),
    );
    const [before, after] = [`WH-TX-BEFORE-${randomUUID()}`, `WH-TX-AFTER-${randomUUID()}`];
    await inTransaction(ctx, async (tx) => {
      await createOrder(tx, { order: { reference_number: before, currency: 'HKD', charge_fee: '1.00' } });
      await setAppWebhookUrl(tx, other.appId, `${receiver.url}${appPath}`);
      await createOrder(tx, { order: { reference_number: after, currency: 'HKD', charge_fee: '2.00' } });
    });
    const [request] = await receiver.waitFor({ path: appPath, action: 'order.created' });
    const order = (JSON.parse(request!.rawBody.toString()) as { data: { order: Order } }).data.order;
    assert.equal(order.reference_number, after);
    const firstEvents = await other.client.orders.events({ order: { reference_number: before } });
    assert.deepEqual(
      firstEvents.map((event) => event.deliveries.length),
      [0],
      'the order made before the endpoint was set has no delivery',
    );
  });

  test("a transaction's events are written when it commits, each delivered; a rolled-back one writes none", async () => {
    // The outbox writes a transaction's events together just before its commit (a batch's round makes hundreds).
    const other = await server.newMerchant();
    const appPath = `/outbox/${randomUUID()}`;
    await setAppWebhookUrl(
      merchantContext(
        server.platform,
        (await findMerchant(server.platform.db, other.merchantId))!,
        { kind: 'operator' },
        randomUUID(),
      ),
      other.appId,
      `${receiver.url}${appPath}`,
    );
    const ctx = merchantContext(
      server.platform,
      (await findMerchant(server.platform.db, other.merchantId))!,
      { kind: 'operator' },
      randomUUID(),
    );
    const references = Array.from({ length: 21 }, (_, i) => `WH-OUTBOX-${i}-${randomUUID()}`);
    const lastOne = `WH-OUTBOX-LAST-${randomUUID()}`;
    await inTransaction(ctx, async (tx) => {
      for (const reference of references)
        await createOrder(tx, { order: { reference_number: reference, currency: 'HKD', charge_fee: '1.00' } });
      // Work that runs just before the commit, after the outbox's own: its event is written too.
      tx.beforeCommit?.(
        'test.last-step',
        async () =>
          void (await createOrder(tx, { order: { reference_number: lastOne, currency: 'HKD', charge_fee: '3.00' } })),
      );
    });
    const received = await receiver.waitFor({ path: appPath, action: 'order.created' }, references.length + 1);
    const sent = received
      .map(
        (request) => (JSON.parse(request.rawBody.toString()) as { data: { order: Order } }).data.order.reference_number,
      )
      .sort();
    assert.deepEqual(sent, [...references, lastOne].sort());
    for (const reference of [references[0]!, references[20]!, lastOne]) {
      const events = await other.client.orders.events({ order: { reference_number: reference } });
      assert.deepEqual(
        events.map((event) => [event.action, event.deliveries.length]),
        [['order.created', 1]],
        reference,
      );
    }

    const rolledBack = `WH-OUTBOX-ROLLED-BACK-${randomUUID()}`;
    await assert.rejects(
      inTransaction(ctx, async (tx) => {
        await createOrder(tx, { order: { reference_number: rolledBack, currency: 'HKD', charge_fee: '1.00' } });
        throw new Error('changed its mind');
      }),
      /changed its mind/,
    );
    const stored = await server.platform.db
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', other.merchantId)
      .execute();
    assert.equal(stored.length, references.length + 1, 'no event of the rolled-back transaction');
  });

  test('the client check refuses a changed body, path or signature', async () => {
    const { path } = await orderNotifyingReceiver();
    const [request] = await receiver.waitFor({ path, action: 'order.created' });
    const url = `${receiver.url}${request!.target}`;
    const changedBody = Buffer.from(request!.rawBody.toString('utf8').replace('"invoiced"', '"completed"'));
    assert.throws(() => verifyWebhook(request!.headers, changedBody, merchant.webhookPublicKey, url));
    assert.throws(() =>
      verifyWebhook(request!.headers, request!.rawBody, merchant.webhookPublicKey, url.replace('/hooks/', '/hookz/')),
    );
    assert.throws(() =>
      verifyWebhook(
        { ...request!.headers, nonce: 'AAAAAAAAAAAAAAAA' },
        request!.rawBody,
        merchant.webhookPublicKey,
        url,
      ),
    );
  });

  test('events and attempts are listed for the order: delivered, with status and duration', async () => {
    const { reference, path } = await orderNotifyingReceiver();
    await client.orders.pay({ reference_number: reference }, { credit_card: VISA });
    await receiver.waitFor({ path, action: 'order.paid' });
    let events = await client.orders.events({ order: { reference_number: reference } });
    for (let i = 0; i < 50 && events.some((e) => e.deliveries.some((d) => d.state !== 'delivered')); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      events = await client.orders.events({ order: { reference_number: reference } });
    }
    assert.deepEqual(
      events.map((e) => e.action),
      ['order.created', 'order.paid'],
    );
    for (const event of events) {
      assert.equal(event.deliveries.length, 1);
      const [delivery] = event.deliveries;
      assert.equal(delivery!.destination, 'notify_url');
      assert.equal(delivery!.state, 'delivered');
      assert.equal(delivery!.attempts.length, 1);
      assert.equal(delivery!.attempts[0]!.status_code, 200);
      assert.equal(delivery!.attempts[0]!.outcome, 'delivered');
      assert.ok(delivery!.attempts[0]!.duration_ms >= 0);
    }
    const sent = receiver.matching({ path, action: 'order.paid' })[0]!;
    assert.equal(sent.headers['x-event-id'], events[1]!.event_id);
    assert.deepEqual(JSON.parse(sent.rawBody.toString('utf8')), events[1]!.body);
  });

  test('the example receiver of docs/ verifies, handles each event once, and refuses a forgery with 403', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-receiver-'));
    const keyFile = join(dir, 'webhook-public.pem');
    writeFileSync(keyFile, merchant.webhookPublicKey);
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'docs', 'examples', 'webhook-receiver.mjs')], {
      env: { ...process.env, WEBHOOK_PUBLIC_KEY_FILE: keyFile, PUBLIC_URL: publicUrl, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const until = async (condition: () => boolean, what: string) => {
      for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(condition(), `${what}; stdout: ${stdout}; stderr: ${stderr}`);
    };
    try {
      await until(() => stderr.includes('listening'), 'the receiver starts');
      const reference = `WH-EXAMPLE-${randomUUID()}`;
      await client.orders.create({
        reference_number: reference,
        currency: 'HKD',
        charge_fee: '8.00',
        callback_url: `${publicUrl}/paygate/webhooks?shop=1`,
      });
      await until(() => stdout.includes(reference), 'the receiver handled order.created');
      const handled = JSON.parse(stdout.trim().split('\n')[0]!) as Record<string, string>;
      assert.deepEqual(
        {
          action: handled.action,
          order: handled.order,
          state: handled.state,
          correspondence: handled.correspondence_state,
        },
        { action: 'order.created', order: reference, state: 'invoiced', correspondence: 'unpaid' },
      );

      const [event] = await client.orders.events({ order: { reference_number: reference } });
      await client.webhooks.redeliver(event!.event_id);
      let attempts = 0;
      for (let i = 0; i < 200 && attempts < 2; i += 1) {
        attempts = (await client.orders.events({ order: { reference_number: reference } }))[0]!.deliveries[0]!.attempts
          .length;
        if (attempts < 2) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(attempts, 2, 'the redelivery was made and answered');
      assert.equal(stdout.trim().split('\n').length, 1, 'the redelivered event was not handled twice');

      const forged = await fetch(`${publicUrl}/paygate/webhooks?shop=1`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          credential: `${merchant.appId}/20261122000000/Wonder-RSA-SHA256`,
          nonce: 'AAAAAAAAAAAAAAAA',
          signature: 'AAAA',
        },
        body: '{"code":200,"message":"success","data":{"order":{}}}',
      });
      assert.equal(forged.status, 403);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
