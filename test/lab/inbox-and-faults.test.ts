import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Capture, verifyWebhook } from '@paygate/client';
import { drawn } from '../../src/lab/faults/rules.js';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { TestReceiver } from '../support/receiver.js';
import { refusal, sleep } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

/**
 * The sandbox lab's capture inbox and fault rules (docs/lab.md), through HTTP: the built-in inbox answered by paygate,
 * taps on the merchant's own endpoints, the faults a rule injects into deliveries and what the receiver then sees,
 * retries on the business clock, another merchant's isolation, and live mode's refusal.
 */

describe('the capture inbox', () => {
  let server: TestServer;
  let receiver: TestReceiver;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let inbox: string;

  before(async () => {
    server = await startTestServer();
    receiver = await TestReceiver.start();
    merchant = await server.newMerchant();
    other = await server.newMerchant();
    inbox = (await merchant.client.inbox.list()).url;
    await setAppWebhookUrl(server.platform, merchant.appId, inbox);
  });

  after(async () => {
    await server.close();
    await receiver.close();
  });

  async function captureOf(object: string, type: string): Promise<Capture> {
    for (let tries = 0; tries < 200; tries += 1) {
      const [found] = (await merchant.client.inbox.list({ object, event_type: type })).captures;
      if (found) return found;
      await sleep(25);
    }
    assert.fail(`no capture of ${type} for ${object}`);
  }

  test("is a URL of the merchant's own, and captures what paygate sends to it, answered by paygate", async () => {
    assert.equal(inbox, `${server.platform.config.publicBaseUrl}/svc/sandbox/api/v1/inbox/${merchant.merchantId}`);
    const reference = `INBOX-${randomUUID()}`;
    const order = await merchant.client.orders.create({
      reference_number: reference,
      currency: 'HKD',
      charge_fee: '12.50',
    });
    const capture = await captureOf(order.number, 'order.created');
    assert.equal(capture.url, inbox);
    assert.deepEqual(capture.objects.slice(0, 2), [order.number, reference]);
    assert.equal(capture.signature_verified, true);
    assert.deepEqual(
      { status: capture.answer.status, body: capture.answer.body_excerpt },
      { status: 200, body: '{"received":true}' },
    );
    assert.equal(capture.fault, null);
    assert.equal(capture.headers['x-action'], 'order.created');
    assert.equal(capture.headers['x-event-id'], capture.event.id);
    const body = JSON.parse(capture.body) as { data: { order: { reference_number: string; charge_fee: string } } };
    assert.equal(body.data.order.reference_number, reference);
    // What the merchant's receiver would check, with the app's webhook key.
    const verified = verifyWebhook(capture.headers, capture.body, merchant.webhookPublicKey, inbox);
    assert.equal(verified.eventId, capture.event.id);
    assert.deepEqual(await merchant.client.inbox.show(capture.id), capture);
  });

  test('lists newest first, by event type, object, time and the query language', async () => {
    const first = await merchant.client.orders.create({
      reference_number: `L1-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    await captureOf(first.number, 'order.created');
    const since = new Date().toISOString();
    await sleep(5);
    const second = await merchant.client.orders.create({
      reference_number: `L2-${randomUUID()}`,
      currency: 'USD',
      charge_fee: '2.00',
    });
    const secondCapture = await captureOf(second.number, 'order.created');

    const all = await merchant.client.inbox.list({ event_type: 'order.created' });
    const numbers = all.captures.map((c) => c.objects[0]);
    assert.ok(numbers.indexOf(second.number) < numbers.indexOf(first.number), 'newest first');
    const recent = await merchant.client.inbox.list({ since });
    assert.deepEqual(
      recent.captures.map((c) => c.id),
      [secondCapture.id],
    );
    const byLanguage = await merchant.client.inbox.list({
      filters: { 'filter[objects][_contains]': first.number, 'filter[answer.status][_eq]': '200' },
    });
    assert.deepEqual(
      byLanguage.captures.map((c) => c.objects[0]),
      [first.number],
    );
    const none = await merchant.client.inbox.list({ event_type: 'payout.settled' });
    assert.equal(none.total, 0);
    const bad = await refusal(merchant.client.inbox.list({ filters: { 'filter[answer.status][_gte]': 'many' } }));
    assert.equal(bad.errorCode, '100207');
  });

  test("taps one of the merchant's own endpoints: the delivery still goes there, and what came back is kept", async () => {
    const endpoint = `${receiver.url}/tapped/${randomUUID()}`;
    assert.deepEqual(await merchant.client.inbox.tap(endpoint), [endpoint]);
    assert.deepEqual(await merchant.client.inbox.taps(), [endpoint]);
    const order = await merchant.client.orders.create({
      reference_number: `TAP-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '3.00',
      callback_url: endpoint,
    });
    const [arrived] = await receiver.waitFor({ path: new URL(endpoint).pathname });
    const captures = (await merchant.client.inbox.list({ object: order.number })).captures.filter(
      (c) => c.url === endpoint,
    );
    assert.equal(captures.length, 1);
    const [capture] = captures;
    assert.equal(capture!.answer.status, 200);
    assert.equal(capture!.answer.body_excerpt, 'ok');
    assert.equal(capture!.body, arrived!.rawBody.toString('utf8'), 'the exact bytes the receiver got');
    assert.equal(capture!.headers['x-event-id'], arrived!.headers['x-event-id']);
    assert.deepEqual(await merchant.client.inbox.untap(endpoint), []);
    const refused = await refusal(merchant.client.inbox.tap('ftp://example.com/x'));
    assert.equal(refused.errorCode, '900202');
  });

  test("is the merchant's alone: another sees none of it, and clearing empties only its own", async () => {
    const order = await merchant.client.orders.create({
      reference_number: `ISO-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const capture = await captureOf(order.number, 'order.created');
    assert.equal((await other.client.inbox.list()).total, 0);
    assert.equal((await refusal(other.client.inbox.show(capture.id))).errorCode, '900201');
    assert.equal((await other.client.inbox.clear()).cleared, 0);
    assert.ok((await merchant.client.inbox.list()).total > 0);
    const { cleared } = await merchant.client.inbox.clear();
    assert.ok(cleared > 0);
    assert.equal((await merchant.client.inbox.list()).total, 0);
  });
});

describe('the capture inbox bounds', () => {
  test('keeps at most the configured number of captures, the oldest going first', async () => {
    const server = await startTestServer({ env: { PAYGATE_LAB_INBOX_MAX_CAPTURES: '3' } });
    try {
      const merchant = await server.newMerchant();
      await setAppWebhookUrl(server.platform, merchant.appId, (await merchant.client.inbox.list()).url);
      const numbers: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const order = await merchant.client.orders.create({
          reference_number: `B-${i}-${randomUUID()}`,
          currency: 'HKD',
          charge_fee: '1.00',
        });
        numbers.push(order.number);
        for (
          let tries = 0;
          tries < 200 && (await merchant.client.inbox.list({ object: order.number })).total === 0;
          tries += 1
        )
          await sleep(25);
      }
      const kept = await merchant.client.inbox.list();
      assert.deepEqual(
        kept.captures.map((c) => c.objects[0]),
        numbers.slice(2).reverse(),
      );
    } finally {
      await server.close();
    }
  });
});

describe('fault rules on deliveries', () => {
  let server: TestServer;
  let receiver: TestReceiver;
  let merchant: TestMerchant;

  before(async () => {
    server = await startTestServer();
    receiver = await TestReceiver.start();
    merchant = await server.newMerchant();
  });

  after(async () => {
    await server.close();
    await receiver.close();
  });

  /** A fresh endpoint on the receiver, tapped, so its captures show every attempt. */
  async function endpoint(): Promise<string> {
    const url = `${receiver.url}/faults/${randomUUID()}`;
    await merchant.client.inbox.tap(url);
    return url;
  }

  async function order(url: string) {
    return merchant.client.orders.create({
      reference_number: `F-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '5.00',
      callback_url: url,
    });
  }

  async function captures(url: string, count: number): Promise<Capture[]> {
    for (let tries = 0; tries < 300; tries += 1) {
      const found = (await merchant.client.inbox.list({ limit: 100 })).captures.filter((c) => c.url === url);
      if (found.length >= count) return found.reverse();
      await sleep(25);
    }
    assert.fail(`fewer than ${count} captures of ${url}`);
  }

  test('an injected status is the answer; the receiver never sees that attempt; the retry follows the business clock', async () => {
    const url = await endpoint();
    const rule = await merchant.client.faults.add({ endpoint: url, events: 'order.*', status: 503, next: 1 });
    assert.deepEqual(
      { effect: rule.effect, scope: rule.scope, uses: rule.uses, left: rule.uses_left, usedUp: rule.used_up },
      { effect: 'status 503', scope: 'next 1', uses: 0, left: 1, usedUp: false },
    );
    const made = await order(url);
    const [faulted] = await captures(url, 1);
    assert.equal(faulted!.answer.status, 503);
    assert.deepEqual(faulted!.fault, { rule_id: rule.id, effect: 'status 503' });
    assert.equal(receiver.matching({ path: new URL(url).pathname }).length, 0, 'the receiver saw nothing');
    const attempt = await server.platform.db
      .selectFrom('webhook_attempts')
      .select(['status_code', 'outcome', 'fault'])
      .where('event_id', '=', faulted!.event.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(attempt, {
      status_code: 503,
      outcome: 'retry',
      fault: JSON.stringify({ rule_id: rule.id, effect: 'status 503' }),
    });
    const [listed] = (await merchant.client.faults.list()).filter((r) => r.id === rule.id);
    assert.deepEqual(
      { uses: listed!.uses, left: listed!.uses_left, usedUp: listed!.used_up },
      { uses: 1, left: 0, usedUp: true },
    );

    // The first retry is due a minute later on the merchant's clock.
    await merchant.client.sandbox.advanceClock(60);
    const [arrived] = await receiver.waitFor({ path: new URL(url).pathname });
    assert.equal(arrived!.headers['x-event-id'], faulted!.event.id);
    const [, delivered] = await captures(url, 2);
    assert.equal(delivered!.answer.status, 200);
    assert.equal(delivered!.fault, null);
    assert.equal(JSON.parse(delivered!.body).data.order.number, made.number);
  });

  test('a timeout and a reset are produced by paygate, a duplicate is sent twice', async () => {
    const timeoutUrl = await endpoint();
    await merchant.client.faults.add({ endpoint: timeoutUrl, timeout: true, next: 1 });
    await order(timeoutUrl);
    const [timedOut] = await captures(timeoutUrl, 1);
    assert.equal(timedOut!.answer.status, null);
    assert.match(timedOut!.answer.error!, /nothing came back within \d+ ms \(injected by fault rule/);

    const resetUrl = await endpoint();
    await merchant.client.faults.add({ endpoint: resetUrl, reset: true, next: 1 });
    await order(resetUrl);
    const [reset] = await captures(resetUrl, 1);
    assert.match(reset!.answer.error!, /reset before an answer came \(injected/);
    assert.equal(receiver.matching({ path: new URL(timeoutUrl).pathname }).length, 0);
    assert.equal(receiver.matching({ path: new URL(resetUrl).pathname }).length, 0);

    const twiceUrl = await endpoint();
    await merchant.client.faults.add({ endpoint: twiceUrl, twice: true, next: 1 });
    await order(twiceUrl);
    const twice = await receiver.waitFor({ path: new URL(twiceUrl).pathname }, 2);
    assert.equal(twice[0]!.headers['x-event-id'], twice[1]!.headers['x-event-id']);
    assert.notEqual(twice[0]!.headers.nonce, twice[1]!.headers.nonce, 'each request signed anew');
    assert.equal((await captures(twiceUrl, 2)).length, 2);
  });

  test('out of order: the event held for the window arrives after a later one', async () => {
    const url = await endpoint();
    await merchant.client.faults.add({ endpoint: url, out_of_order_ms: 800, next: 1 });
    const first = await order(url);
    await sleep(50);
    const second = await order(url);
    const arrived = await receiver.waitFor({ path: new URL(url).pathname }, 2);
    const numbers = arrived.map((r) => JSON.parse(r.rawBody.toString('utf8')).data.order.number);
    assert.deepEqual(numbers, [second.number, first.number]);
  });

  test('a delay holds the request, and the events pattern picks what a rule applies to', async () => {
    const url = await endpoint();
    await merchant.client.faults.add({ endpoint: url, delay_ms: 400, events: 'order.paid', next: 1 });
    const made = await order(url);
    await receiver.waitFor({ path: new URL(url).pathname });
    const [created] = await captures(url, 1);
    assert.equal(created!.fault, null, 'order.created is not order.paid');
    await merchant.client.orders.pay(
      { number: made.number },
      {
        credit_card: { number: '4242424242424242', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'A B' },
      },
    );
    const [, paid] = await captures(url, 2);
    assert.equal(paid!.event.type, 'order.paid');
    assert.deepEqual(paid!.fault?.effect, 'delay 400 ms');
  });

  test('a percentage is drawn from the seed: the same keys give the same faults', () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `delivery-${i}:1`);
    const a = keys.filter((key) => drawn({ percent: 25, seed: 'ci-42' }, key));
    const again = keys.filter((key) => drawn({ percent: 25, seed: 'ci-42' }, key));
    const other = keys.filter((key) => drawn({ percent: 25, seed: 'ci-43' }, key));
    assert.deepEqual(a, again);
    assert.notDeepEqual(a, other);
    assert.ok(a.length > 400 && a.length < 600, `about a quarter: ${a.length}`);
  });

  test('rules are checked: one effect that fits the target, one scope; and removed', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['two effects', { endpoint: 'http://127.0.0.1:9/x', status: 500, reset: true, next: 1 }],
      ['no effect', { endpoint: 'http://127.0.0.1:9/x', next: 1 }],
      ['no scope', { endpoint: 'http://127.0.0.1:9/x', status: 500 }],
      ['percent without seed', { endpoint: 'http://127.0.0.1:9/x', status: 500, percent: 10 }],
      ['no endpoint', { status: 500, next: 1 }],
      ['a status out of range', { endpoint: 'http://127.0.0.1:9/x', status: 99, next: 1 }],
      ['a delay too long', { endpoint: 'http://127.0.0.1:9/x', delay_ms: 60_000, next: 1 }],
      ['a rail effect on deliveries', { endpoint: 'http://127.0.0.1:9/x', decline: '51', next: 1 }],
      ['a delivery effect on a rail', { rail: 'payout', status: 500, next: 1 }],
      ['a rail by percentage', { rail: 'card-payment', decline: '51', percent: 5, seed: 's' }],
    ];
    for (const [what, body] of cases) {
      const refused = await refusal(merchant.client.faults.add(body as never));
      assert.equal(refused.errorCode, '900302', what);
      assert.equal(refused.status, 400, what);
    }
    const rule = await merchant.client.faults.add({
      endpoint: 'http://127.0.0.1:9/x',
      status: 500,
      next: 2,
      expires_in_seconds: 60,
    });
    assert.ok(rule.expires_at);
    assert.deepEqual(await merchant.client.faults.remove(rule.id), { removed: rule.id });
    assert.equal((await refusal(merchant.client.faults.remove(rule.id))).errorCode, '900301');
    const other = await server.newMerchant();
    const mine = await merchant.client.faults.add({ endpoint: 'http://127.0.0.1:9/x', status: 500, next: 1 });
    assert.equal((await refusal(other.client.faults.remove(mine.id))).errorCode, '900301');
    assert.deepEqual(await other.client.faults.list(), []);
  });

  test('an expired rule is gone: listed no more, applied no more', async () => {
    const url = await endpoint();
    const rule = await merchant.client.faults.add({ endpoint: url, status: 500, next: 5, expires_in_seconds: 1 });
    server.clock.advance(2_000);
    assert.equal(
      (await merchant.client.faults.list()).some((r) => r.id === rule.id),
      false,
    );
    await order(url);
    await receiver.waitFor({ path: new URL(url).pathname });
  });
});

describe('the lab in live mode', () => {
  test('every lab route is refused with 403 900101', async () => {
    const server = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ef'.repeat(32) } });
    try {
      const merchant = await server.newMerchant();
      for (const call of [
        () => merchant.client.inbox.list(),
        () => merchant.client.inbox.show(randomUUID()),
        () => merchant.client.inbox.clear(),
        () => merchant.client.inbox.taps(),
        () => merchant.client.inbox.tap('https://shop.example.com/hooks'),
        () => merchant.client.inbox.untap('https://shop.example.com/hooks'),
        () => merchant.client.faults.add({ endpoint: 'https://shop.example.com/hooks', status: 500, next: 1 }),
        () => merchant.client.faults.list(),
        () => merchant.client.faults.remove(randomUUID()),
      ]) {
        const refused = await refusal(call());
        assert.deepEqual({ status: refused.status, code: refused.errorCode }, { status: 403, code: '900101' });
      }
    } finally {
      await server.close();
    }
  });
});
