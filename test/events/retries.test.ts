import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { PaygateError, verifyWebhook, type WebhookDelivery, type WebhookEvent } from '@paygate/client';
import { RETRY_DELAYS_MINUTES } from '../../src/events/retry-schedule.js';
import { freePort, runCli } from '../support/processes.js';
import { type Answer, type ReceivedWebhook, TestReceiver } from '../support/receiver.js';
import { sleep } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Webhook retries (src/webhooks/retry-schedule.ts): what is retried and what is final, the schedule of
// RETRY_DELAYS_MINUTES on the merchant's business clock (moved with the sandbox clock, which runs every due retry
// on its way), timeouts and network errors, redelivery, and the operator's commands. The retry suite's server has
// its wall clock frozen, so business times are exact: only the sandbox clock makes a retry fall due, and nothing
// happens behind the test's back.

const MINUTE_MS = 60_000;
const DAY = 24 * 60 * 60;
const TIMEOUT_MS = 300;

const iso = (ms: number) => new Date(ms).toISOString();

/** A receiver whose answer is chosen per path: `answer(request, n)` with n = the how-manyth request to that path. */
class RoutedReceiver {
  private readonly routes = new Map<string, (request: ReceivedWebhook, n: number) => Answer>();

  private constructor(readonly receiver: TestReceiver) {
    receiver.answer = (request) => {
      for (const [path, answer] of this.routes) {
        if (request.target.startsWith(path)) return answer(request, receiver.matching({ path }).length);
      }
      return 200;
    };
  }

  static async start(): Promise<RoutedReceiver> {
    return new RoutedReceiver(await TestReceiver.start());
  }

  get url(): string {
    return this.receiver.url;
  }

  /** A fresh path on the receiver, answered as told. */
  route(answer: (request: ReceivedWebhook, n: number) => Answer): string {
    const path = `/retries/${randomUUID()}`;
    this.routes.set(path, answer);
    return path;
  }

  received(path: string): ReceivedWebhook[] {
    return this.receiver.matching({ path });
  }

  waitFor(path: string, count = 1, timeoutMs?: number): Promise<ReceivedWebhook[]> {
    return this.receiver.waitFor({ path }, count, timeoutMs);
  }

  close(): Promise<void> {
    return this.receiver.close();
  }
}

/**
 * The order's only event (order.created), once its one delivery has `attempts` recorded attempts and is not
 * mid-attempt.
 */
async function settled(
  merchant: TestMerchant,
  reference: string,
  attempts: number,
): Promise<{ event: WebhookEvent; delivery: WebhookDelivery }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await merchant.client.orders.events({ order: { reference_number: reference } });
    assert.equal(events.length, 1, 'an order that was only created has one event');
    const event = events[0]!;
    assert.equal(event.deliveries.length, 1);
    const delivery = event.deliveries[0]!;
    if (delivery.attempts.length >= attempts && delivery.state !== 'sending') {
      assert.equal(delivery.attempts.length, attempts, `exactly ${attempts} attempt(s) recorded`);
      return { event, delivery };
    }
    if (Date.now() > deadline) assert.fail(`waited for ${attempts} attempt(s); have ${JSON.stringify(delivery)}`);
    await sleep(20);
  }
}

function assertSignedBy(merchant: TestMerchant, receiverUrl: string, request: ReceivedWebhook, eventId: string): void {
  const verified = verifyWebhook(
    request.headers,
    request.rawBody,
    merchant.webhookPublicKey,
    `${receiverUrl}${request.target}`,
  );
  assert.equal(verified.appId, merchant.appId);
  assert.equal(verified.eventId, eventId);
  assert.equal(request.headers['x-event-id'], eventId);
  assert.equal(request.headers['x-action'], 'order.created');
}

async function isNotFound(promise: Promise<unknown>, errorCode: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PaygateError, `a PaygateError, not ${String(error)}`);
    assert.equal(error.status, 404);
    assert.equal(error.errorCode, errorCode);
    return true;
  });
}

// Three suites, each with its own server and receiver. The slow one runs beside the other two, so that its wait
// does not add to the file's run time. The command line goes first: its commands migrate, and a migration check
// on PostgreSQL reads every schema's tables, which fails while another suite's test schema is being dropped.
describe('webhook delivery retries', { concurrency: true }, () => {
  describe('a clock move during a slow attempt', { concurrency: 1 }, () => {
    const SLOW_TIMEOUT_MS = 20_000;
    let server: TestServer;
    let receiver: RoutedReceiver;

    before(async () => {
      // PAYGATE_WEBHOOK_TIMEOUT_MS may be up to 60 s; a receiver that never answers holds the attempt that long.
      server = await startTestServer({ env: { PAYGATE_WEBHOOK_TIMEOUT_MS: String(SLOW_TIMEOUT_MS) } });
      receiver = await RoutedReceiver.start();
    });
    after(async () => {
      await receiver.close(); // first: ends an attempt still hanging, so that the server need not wait for it
      await server.close();
    });

    test('waits for the attempt in flight (up to PAYGATE_WEBHOOK_TIMEOUT_MS), then runs the retry', {
      timeout: 60_000,
    }, async () => {
      const merchant = await server.newMerchant();
      const path = receiver.route((_, n) => (n === 1 ? 'hang' : 200));
      const reference = `WR-SLOW-${randomUUID()}`;
      await merchant.client.orders.create({
        reference_number: reference,
        currency: 'HKD',
        charge_fee: '1.00',
        callback_url: `${receiver.url}${path}`,
      });
      await receiver.waitFor(path);
      // The first attempt is in flight in this very process, and ends (timed out) within SLOW_TIMEOUT_MS; its retry
      // is due a minute after that, so within the 2 minutes the clock is moved.
      await merchant.client.sandbox.advanceClock(120);
      assert.equal(receiver.received(path).length, 2, 'the retry ran before the move returned');
      const { delivery } = await settled(merchant, reference, 2);
      assert.deepEqual(
        delivery.attempts.map((a) => [a.status_code, a.outcome]),
        [
          [null, 'retry'],
          [200, 'delivered'],
        ],
      );
      assert.match(delivery.attempts[0]!.error ?? '', new RegExp(`${SLOW_TIMEOUT_MS} ms`));
    });
  });

  describe('retries, redelivery and commands', { concurrency: 1 }, () => {
    describe('webhook commands of the paygate command line', { concurrency: 1 }, () => {
      let server: TestServer;
      let receiver: RoutedReceiver;

      before(async () => {
        // The CLI is another process on the real clock: this server's wall clock is left running.
        server = await startTestServer();
        receiver = await RoutedReceiver.start();
      });
      after(async () => {
        try {
          await server.close();
        } finally {
          await receiver.close();
        }
      });

      const cli = async (args: string[]) => {
        const result = await runCli(args, server.env);
        return {
          ...result,
          json: (() => {
            try {
              return JSON.parse(result.stdout) as any;
            } catch {
              return undefined;
            }
          })(),
        };
      };

      test('app webhook sets and clears an endpoint; webhooks list shows deliveries and attempts; redeliver sends again', async () => {
        const merchant = await server.newMerchant();
        const path = receiver.route(() => 200);
        const url = `${receiver.url}${path}`;

        const set = await cli(['app', 'webhook', merchant.appId, url, '--json']);
        assert.equal(set.code, 0, set.stderr);
        assert.deepEqual(set.json, { app_id: merchant.appId, webhook_url: url });

        const reference = `WR-CLI-${randomUUID()}`;
        await merchant.client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '4.00' });
        const [request] = await receiver.waitFor(path);
        const eventId = String(request!.headers['x-event-id']);
        assertSignedBy(merchant, receiver.url, request!, eventId);
        const { delivery } = await settled(merchant, reference, 1);
        assert.equal(delivery.destination, `app:${merchant.appId}`);
        assert.equal(delivery.state, 'delivered');

        const listed = await cli(['webhooks', 'list', '--json']);
        assert.equal(listed.code, 0, listed.stderr);
        const row = (listed.json.deliveries as Array<Record<string, unknown>>).find((d) => d.event_id === eventId);
        assert.ok(row, listed.stdout);
        assert.equal(row.action, 'order.created');
        assert.equal(row.merchant_id, merchant.merchantId);
        assert.equal(row.destination, `app:${merchant.appId}`);
        assert.equal(row.url, url);
        assert.equal(row.state, 'delivered');
        assert.equal(row.attempts, 1);
        assert.equal(row.last_status, 200);

        const detail = await cli(['webhooks', 'list', '--event', eventId, '--json']);
        assert.equal(detail.code, 0, detail.stderr);
        assert.equal(detail.json.event.event_id, eventId);
        assert.equal(detail.json.event.deliveries.length, 1);
        assert.deepEqual(
          (detail.json.event.deliveries[0].attempts as Array<Record<string, unknown>>).map((a) => [
            a.attempt,
            a.status_code,
            a.outcome,
          ]),
          [[1, 200, 'delivered']],
        );

        const redeliver = await cli(['webhooks', 'redeliver', eventId, '--json']);
        assert.equal(redeliver.code, 0, redeliver.stderr);
        assert.equal(redeliver.json.event.event_id, eventId);
        const requests = await receiver.waitFor(path, 2, 5_000);
        assertSignedBy(merchant, receiver.url, requests[1]!, eventId);
        assert.ok(requests[1]!.rawBody.equals(requests[0]!.rawBody));
        const again = await settled(merchant, reference, 2);
        assert.deepEqual(
          again.delivery.attempts.map((a) => [a.attempt, a.outcome]),
          [
            [1, 'delivered'],
            [2, 'delivered'],
          ],
        );

        const cleared = await cli(['app', 'webhook', merchant.appId, '--clear', '--json']);
        assert.equal(cleared.code, 0, cleared.stderr);
        assert.deepEqual(cleared.json, { app_id: merchant.appId, webhook_url: null });
        const later = `WR-CLI-${randomUUID()}`;
        await merchant.client.orders.create({ reference_number: later, currency: 'HKD', charge_fee: '4.00' });
        const [laterEvent] = await merchant.client.orders.events({ order: { reference_number: later } });
        assert.deepEqual(laterEvent!.deliveries, [], 'no endpoint once cleared');
        assert.equal(receiver.received(path).length, 2);
      });

      test('app webhook refuses a URL that is not http or https', async () => {
        const merchant = await server.newMerchant();
        const json = await cli(['app', 'webhook', merchant.appId, 'ftp://x', '--json']);
        assert.equal(json.code, 1);
        assert.equal(json.json.error.code, '400402');
        const human = await cli(['app', 'webhook', merchant.appId, 'ftp://x']);
        assert.equal(human.code, 1);
        assert.match(human.stderr, /400402/);
        const app = await server.platform.db
          .selectFrom('apps')
          .select('webhook_url')
          .where('id', '=', merchant.appId)
          .executeTakeFirstOrThrow();
        assert.equal(app.webhook_url, null, 'nothing was stored');
      });

      test('webhooks list --event and webhooks redeliver refuse an unknown event', async () => {
        for (const args of [
          ['webhooks', 'redeliver', randomUUID(), '--json'],
          ['webhooks', 'list', '--event', 'not-a-uuid', '--json'],
        ]) {
          const result = await cli(args);
          assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
          assert.equal(result.json.error.code, '400401');
        }
      });
    });

    describe('retries on the business clock', { concurrency: 1 }, () => {
      let server: TestServer;
      let receiver: RoutedReceiver;
      const extraServers: Server[] = [];

      before(async () => {
        server = await startTestServer({ env: { PAYGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
        server.clock.freeze();
        receiver = await RoutedReceiver.start();
      });
      after(async () => {
        await server.close();
        await receiver.close();
        for (const extra of extraServers) {
          extra.closeAllConnections();
          await new Promise<void>((resolve) => extra.close(() => resolve()));
        }
      });

      /** An order of `merchant` notifying `url`; returns once its first attempt is recorded. */
      async function orderNotifying(
        merchant: TestMerchant,
        url: string,
      ): Promise<{ reference: string; eventId: string; event: WebhookEvent; delivery: WebhookDelivery }> {
        const reference = `WR-${randomUUID()}`;
        await merchant.client.orders.create({
          reference_number: reference,
          currency: 'HKD',
          charge_fee: '10.00',
          callback_url: url,
        });
        const { event, delivery } = await settled(merchant, reference, 1);
        return { reference, eventId: event.event_id, event, delivery };
      }

      async function attemptRows(eventId: string) {
        return server.platform.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('event_id', '=', eventId)
          .orderBy('attempt')
          .execute();
      }

      async function deliveryRow(eventId: string) {
        return server.platform.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('event_id', '=', eventId)
          .executeTakeFirstOrThrow();
      }

      test('a 500 is retried after 1 minute of business time, signed anew each time, until the receiver answers 200', async () => {
        const merchant = await server.newMerchant();
        let recovered = false;
        const path = receiver.route(() => (recovered ? 200 : 500));
        const { reference, eventId, event, delivery } = await orderNotifying(merchant, `${receiver.url}${path}`);
        const eventAt = Date.parse(event.created_at);

        assert.equal(receiver.received(path).length, 1, 'the first attempt is made at once, without moving the clock');
        assert.equal(delivery.state, 'pending');
        assert.equal(delivery.last_status, 500);
        assert.deepEqual(
          delivery.attempts.map((a) => [a.attempt, a.status_code, a.error, a.outcome]),
          [[1, 500, null, 'retry']],
        );
        assert.equal(
          delivery.next_attempt_at,
          iso(eventAt + MINUTE_MS),
          'due 1 minute after the event, in business time',
        );

        await merchant.client.sandbox.advanceClock(59);
        assert.equal(receiver.received(path).length, 1, 'nothing is sent before the minute is up');
        assert.equal((await settled(merchant, reference, 1)).delivery.state, 'pending');

        await merchant.client.sandbox.advanceClock(1);
        assert.equal(receiver.received(path).length, 2, 'the second attempt is made once the minute is up');
        const second = await settled(merchant, reference, 2);
        assert.deepEqual(
          second.delivery.attempts.map((a) => [a.attempt, a.status_code, a.outcome]),
          [
            [1, 500, 'retry'],
            [2, 500, 'retry'],
          ],
        );
        assert.equal(
          second.delivery.next_attempt_at,
          iso(eventAt + (1 + 2) * MINUTE_MS),
          'then 2 minutes after the second attempt',
        );

        recovered = true;
        await merchant.client.sandbox.advanceClock(2 * 60 - 1);
        assert.equal(receiver.received(path).length, 2);
        await merchant.client.sandbox.advanceClock(1);
        const requests = receiver.received(path);
        assert.equal(requests.length, 3);
        const done = await settled(merchant, reference, 3);
        assert.equal(done.delivery.state, 'delivered');
        assert.equal(done.delivery.next_attempt_at, null);
        assert.notEqual(done.delivery.delivered_at, null);
        assert.equal(done.delivery.last_status, 200);
        assert.deepEqual(
          done.delivery.attempts.map((a) => [a.attempt, a.status_code, a.outcome]),
          [
            [1, 500, 'retry'],
            [2, 500, 'retry'],
            [3, 200, 'delivered'],
          ],
        );

        for (const request of requests) assertSignedBy(merchant, receiver.url, request, eventId);
        assert.equal(new Set(requests.map((r) => String(r.headers.nonce))).size, 3, 'a new Nonce for each attempt');
        assert.ok(
          requests.every((r) => r.rawBody.equals(requests[0]!.rawBody)),
          'the same body each attempt',
        );

        await merchant.client.sandbox.advanceClock(DAY);
        assert.equal(receiver.received(path).length, 3, 'nothing more once delivered');

        const rows = await attemptRows(eventId);
        assert.deepEqual(
          rows.map((r) => r.business_at - eventAt),
          [0, 1, 3].map((m) => m * MINUTE_MS),
        );
        const stored = await deliveryRow(eventId);
        assert.equal(stored.state, 'delivered');
        assert.equal(stored.attempts, 3);
      });

      test('a receiver that always answers 503 gets RETRY_DELAYS_MINUTES exactly: 16 attempts, then failed', async () => {
        assert.equal(RETRY_DELAYS_MINUTES.length, 15);
        const merchant = await server.newMerchant();
        const path = receiver.route(() => 503);
        const { reference, eventId, event } = await orderNotifying(merchant, `${receiver.url}${path}`);
        const eventAt = Date.parse(event.created_at);

        let elapsedMs = 0;
        for (const [index, minutes] of RETRY_DELAYS_MINUTES.entries()) {
          const made = index + 1;
          await merchant.client.sandbox.advanceClock(minutes * 60 - 1);
          assert.equal(
            receiver.received(path).length,
            made,
            `retry ${made} is not sent a second before its ${minutes} min`,
          );
          await merchant.client.sandbox.advanceClock(1);
          assert.equal(
            receiver.received(path).length,
            made + 1,
            `retry ${made} is sent once its ${minutes} min are up`,
          );
          elapsedMs += minutes * MINUTE_MS;
          const { delivery } = await settled(merchant, reference, made + 1);
          const following = RETRY_DELAYS_MINUTES[index + 1];
          if (following === undefined) {
            assert.equal(delivery.state, 'failed');
            assert.equal(delivery.next_attempt_at, null);
          } else {
            assert.equal(delivery.state, 'pending');
            assert.equal(delivery.next_attempt_at, iso(eventAt + elapsedMs + following * MINUTE_MS));
          }
        }

        const { delivery } = await settled(merchant, reference, 16);
        assert.equal(delivery.state, 'failed');
        assert.equal(delivery.next_attempt_at, null);
        assert.equal(delivery.delivered_at, null);
        assert.equal(delivery.last_status, 503);
        assert.deepEqual(
          delivery.attempts.map((a) => a.attempt),
          Array.from({ length: 16 }, (_, i) => i + 1),
        );
        assert.ok(delivery.attempts.every((a) => a.status_code === 503 && a.error === null));
        assert.deepEqual(
          delivery.attempts.map((a) => a.outcome),
          [...Array<string>(15).fill('retry'), 'failed'],
        );

        await merchant.client.sandbox.advanceClock(DAY);
        assert.equal(receiver.received(path).length, 16, 'nothing is sent after the last attempt');

        const rows = await attemptRows(eventId);
        assert.equal(rows.length, 16);
        const gaps = rows.slice(1).map((row, i) => (row.business_at - rows[i]!.business_at) / MINUTE_MS);
        assert.deepEqual(gaps, [...RETRY_DELAYS_MINUTES]);
        assert.equal(rows[0]!.business_at, eventAt);
        const stored = await deliveryRow(eventId);
        assert.equal(stored.state, 'failed');
        assert.equal(stored.attempts, 16);
        assert.equal(stored.last_status, 503);
      });

      test('one long clock move stops at every retry on its way, each at its own business time', async () => {
        const merchant = await server.newMerchant();
        const path = receiver.route(() => 502);
        const { reference, eventId, event } = await orderNotifying(merchant, `${receiver.url}${path}`);
        await merchant.client.sandbox.advanceClock(DAY);
        assert.equal(receiver.received(path).length, 16, 'every retry of the schedule ran before the move returned');
        assert.equal((await settled(merchant, reference, 16)).delivery.state, 'failed');
        const rows = await attemptRows(eventId);
        let at = Date.parse(event.created_at);
        const expected = [at, ...RETRY_DELAYS_MINUTES.map((minutes) => (at += minutes * MINUTE_MS))];
        assert.deepEqual(
          rows.map((r) => r.business_at),
          expected,
        );
      });

      test('a receiver that does not answer within PAYGATE_WEBHOOK_TIMEOUT_MS is retried', async () => {
        const merchant = await server.newMerchant();
        const path = receiver.route((_, n) => (n === 1 ? 'hang' : 200));
        const { reference, event, delivery } = await orderNotifying(merchant, `${receiver.url}${path}`);
        const [attempt] = delivery.attempts;
        assert.equal(attempt!.status_code, null);
        assert.match(attempt!.error ?? '', new RegExp(`${TIMEOUT_MS} ms`), 'the error names the timeout');
        assert.equal(attempt!.outcome, 'retry');
        assert.ok(
          attempt!.duration_ms >= TIMEOUT_MS - 20 && attempt!.duration_ms < 5_000,
          `gave up after about ${TIMEOUT_MS} ms, not ${attempt!.duration_ms}`,
        );
        assert.equal(delivery.state, 'pending');
        assert.equal(delivery.last_status, null);
        assert.equal(delivery.last_error, attempt!.error);
        assert.equal(delivery.next_attempt_at, iso(Date.parse(event.created_at) + MINUTE_MS));

        await merchant.client.sandbox.advanceClock(60);
        assert.equal(receiver.received(path).length, 2);
        const done = await settled(merchant, reference, 2);
        assert.equal(done.delivery.state, 'delivered');
        assert.deepEqual(
          done.delivery.attempts.map((a) => [a.status_code, a.outcome]),
          [
            [null, 'retry'],
            [200, 'delivered'],
          ],
        );
      });

      test('a refused connection is recorded and retried, and reaches the receiver once it listens', async () => {
        const merchant = await server.newMerchant();
        const port = await freePort();
        const { reference, event, delivery } = await orderNotifying(merchant, `http://127.0.0.1:${port}/refused`);
        assert.deepEqual(
          delivery.attempts.map((a) => [a.status_code, a.outcome]),
          [[null, 'retry']],
        );
        assert.match(delivery.attempts[0]!.error ?? '', /^no answer: the connection failed/);
        assert.equal(delivery.next_attempt_at, iso(Date.parse(event.created_at) + MINUTE_MS));

        await merchant.client.sandbox.advanceClock(60);
        const second = await settled(merchant, reference, 2);
        assert.equal(second.delivery.state, 'pending');
        assert.match(second.delivery.attempts[1]!.error ?? '', /^no answer: the connection failed/);
        assert.equal(second.delivery.next_attempt_at, iso(Date.parse(event.created_at) + 3 * MINUTE_MS));

        const arrived: string[] = [];
        const listener = createServer((req, res) => {
          arrived.push(String(req.headers['x-event-id']));
          req.resume().on('end', () => res.end('ok'));
        });
        extraServers.push(listener);
        await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
        await merchant.client.sandbox.advanceClock(120);
        const done = await settled(merchant, reference, 3);
        assert.equal(done.delivery.state, 'delivered');
        assert.deepEqual(arrived, [done.event.event_id]);
      });

      test('a connection reset without an answer is retried', async () => {
        const merchant = await server.newMerchant();
        const path = receiver.route((_, n) => (n === 1 ? 'reset' : 200));
        const { reference, delivery } = await orderNotifying(merchant, `${receiver.url}${path}`);
        assert.equal(delivery.state, 'pending');
        assert.equal(delivery.attempts[0]!.status_code, null);
        assert.equal(delivery.attempts[0]!.outcome, 'retry');
        assert.match(delivery.attempts[0]!.error ?? '', /^no answer: the connection failed/);

        await merchant.client.sandbox.advanceClock(60);
        assert.equal(receiver.received(path).length, 2);
        const done = await settled(merchant, reference, 2);
        assert.equal(done.delivery.state, 'delivered');
      });

      test('408 and 429 are retried', async () => {
        const merchant = await server.newMerchant();
        const orders = [];
        for (const status of [408, 429]) {
          const path = receiver.route((_, n) => (n === 1 ? status : 200));
          orders.push({ status, path, ...(await orderNotifying(merchant, `${receiver.url}${path}`)) });
        }
        for (const { status, delivery } of orders) {
          assert.equal(delivery.state, 'pending', `${status} is worth retrying`);
          assert.deepEqual(
            delivery.attempts.map((a) => [a.status_code, a.outcome]),
            [[status, 'retry']],
          );
          assert.notEqual(delivery.next_attempt_at, null);
        }
        await merchant.client.sandbox.advanceClock(60);
        for (const { status, path, reference } of orders) {
          assert.equal(receiver.received(path).length, 2, `${status} was retried after a minute`);
          const done = await settled(merchant, reference, 2);
          assert.equal(done.delivery.state, 'delivered');
        }
      });

      test('400, 404, 410 and 301 are final at once: failed after one attempt, the redirect not followed', async () => {
        const merchant = await server.newMerchant();
        const redirectedPath = receiver.route(() => 200);
        const redirector = createServer((req, res) => {
          req.resume().on('end', () => res.writeHead(301, { location: `${receiver.url}${redirectedPath}` }).end());
        });
        extraServers.push(redirector);
        const redirectorHits: string[] = [];
        redirector.on('request', (req) => redirectorHits.push(String(req.headers['x-event-id'])));
        await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
        const redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/moved`;

        const orders = [];
        for (const status of [400, 404, 410]) {
          const path = receiver.route(() => status);
          orders.push({
            status,
            path: path as string | undefined,
            ...(await orderNotifying(merchant, `${receiver.url}${path}`)),
          });
        }
        orders.push({ status: 301, path: undefined, ...(await orderNotifying(merchant, redirectorUrl)) });

        for (const { status, delivery } of orders) {
          assert.equal(delivery.state, 'failed', `${status} is final`);
          assert.equal(delivery.next_attempt_at, null);
          assert.equal(delivery.last_status, status);
          assert.deepEqual(
            delivery.attempts.map((a) => [a.attempt, a.status_code, a.error, a.outcome]),
            [[1, status, null, 'failed']],
          );
        }

        await merchant.client.sandbox.advanceClock(DAY);
        for (const { status, path, reference } of orders) {
          if (path !== undefined) assert.equal(receiver.received(path).length, 1, `${status}: no request after a day`);
          assert.equal((await settled(merchant, reference, 1)).delivery.state, 'failed');
        }
        assert.equal(redirectorHits.length, 1, '301: no request after a day');
        assert.equal(receiver.received(redirectedPath).length, 0, 'the redirect is not followed');
      });

      test('redelivery after a final failure sends the same event at once, continues the numbering, and restarts the schedule', async () => {
        const merchant = await server.newMerchant();
        const answers: Answer[] = [404, 503, 503, 200];
        const path = receiver.route((_, n) => answers[n - 1] ?? 200);
        const { reference, eventId, event, delivery } = await orderNotifying(merchant, `${receiver.url}${path}`);
        assert.equal(delivery.state, 'failed');

        // An hour later (business time), nothing has been sent again; the operator asks for the event again.
        await merchant.client.sandbox.advanceClock(60 * 60);
        assert.equal(receiver.received(path).length, 1);
        const redeliveredAt = Date.parse(event.created_at) + 60 * MINUTE_MS;
        const returned = await merchant.client.webhooks.redeliver(eventId);
        assert.equal(returned.event_id, eventId);
        assert.equal(returned.deliveries.length, 1);

        const requests = await receiver.waitFor(path, 2);
        const [first, again] = requests;
        assertSignedBy(merchant, receiver.url, again!, eventId);
        assert.ok(again!.rawBody.equals(first!.rawBody), 'the same body bytes as the first attempt');
        assert.notEqual(again!.headers.nonce, first!.headers.nonce);

        const second = await settled(merchant, reference, 2);
        assert.deepEqual(
          second.delivery.attempts.map((a) => [a.attempt, a.status_code, a.outcome]),
          [
            [1, 404, 'failed'],
            [2, 503, 'retry'],
          ],
        );
        assert.equal(second.delivery.state, 'pending');
        assert.equal(
          second.delivery.next_attempt_at,
          iso(redeliveredAt + MINUTE_MS),
          'the schedule starts again at 1 minute',
        );

        await merchant.client.sandbox.advanceClock(59);
        assert.equal(receiver.received(path).length, 2);
        await merchant.client.sandbox.advanceClock(1);
        assert.equal(receiver.received(path).length, 3);
        const third = await settled(merchant, reference, 3);
        assert.equal(third.delivery.next_attempt_at, iso(redeliveredAt + 3 * MINUTE_MS), 'then 2 minutes');
        await merchant.client.sandbox.advanceClock(2 * 60);
        const done = await settled(merchant, reference, 4);
        assert.equal(done.delivery.state, 'delivered');
        assert.deepEqual(
          done.delivery.attempts.map((a) => [a.attempt, a.status_code, a.outcome]),
          [
            [1, 404, 'failed'],
            [2, 503, 'retry'],
            [3, 503, 'retry'],
            [4, 200, 'delivered'],
          ],
        );
        assert.equal(receiver.received(path).length, 4);

        const rows = await attemptRows(eventId);
        assert.deepEqual(
          rows.map((r) => r.business_at - redeliveredAt),
          [-60, 0, 1, 3].map((m) => m * MINUTE_MS),
        );
        const stored = await deliveryRow(eventId);
        assert.equal(stored.attempts, 4);
        assert.equal(stored.attempts_before_redelivery, 1);
      });

      test("redelivery of an unknown, malformed or another merchant's event, and another merchant's order events, are not found", async () => {
        const owner = await server.newMerchant();
        const stranger = await server.newMerchant();
        const path = receiver.route(() => 200);
        const { reference, eventId } = await orderNotifying(owner, `${receiver.url}${path}`);

        await isNotFound(owner.client.webhooks.redeliver(randomUUID()), '400401');
        await isNotFound(owner.client.webhooks.redeliver('not-a-uuid'), '400401');
        await isNotFound(stranger.client.webhooks.redeliver(eventId), '400401');
        await isNotFound(stranger.client.orders.events({ order: { reference_number: reference } }), '400101');

        await sleep(200);
        assert.equal(receiver.received(path).length, 1, "the stranger's redelivery sent nothing");
        assert.equal((await settled(owner, reference, 1)).delivery.state, 'delivered');
      });
    });
  });
});
