import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PaygateClient, type StreamedEvent, verifyWebhook } from '@paygate/client';
import { readDemoApp } from '../../src/merchants/demo-file.js';
import { PROJECT_ROOT } from '../../src/platform/version.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { CLI, freePort, startServe } from '../support/processes.js';
import { TestReceiver } from '../support/receiver.js';
import { refusal, sleep } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

/**
 * `paygate listen` and the event stream it reads (docs/lab.md): events as they happen, each once, with the exact body
 * of a delivery, forwarded with a delivery's signed headers; across a restart of the server, nothing missed and
 * nothing repeated.
 */

describe('the event stream', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    other = await server.newMerchant();
  });
  after(() => server.close());

  async function take(stream: AsyncIterable<StreamedEvent>, count: number): Promise<StreamedEvent[]> {
    const events: StreamedEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (events.length === count) break;
    }
    return events;
  }

  test("streams the merchant's own events as they happen, filtered, with the exact body a delivery carries", async () => {
    const stop = new AbortController();
    const stream = await merchant.client.events.open({ events: 'order.created,order.paid', signal: stop.signal });
    const otherStream = await other.client.events.open({ signal: stop.signal, maxSeconds: 2 });
    const references = [`S1-${randomUUID()}`, `S2-${randomUUID()}`];
    const reading = take(stream, 3);
    const first = await merchant.client.orders.create({
      reference_number: references[0]!,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    await merchant.client.orders.pay(
      { number: first.number },
      {
        credit_card: { number: '4242424242424242', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'A B' },
      },
    );
    await merchant.client.orders.create({ reference_number: references[1]!, currency: 'HKD', charge_fee: '2.00' });
    const events = await reading;
    stop.abort();
    assert.deepEqual(
      events.map((e) => [e.type, JSON.parse(e.body).data.order.reference_number]),
      [
        ['order.created', references[0]],
        ['order.paid', references[0]],
        ['order.created', references[1]],
      ],
    );
    const stored = await server.platform.db
      .selectFrom('events')
      .select(['id', 'payload'])
      .where(
        'id',
        'in',
        events.map((e) => e.event_id),
      )
      .execute();
    for (const event of events)
      assert.equal(
        event.body,
        stored.find((row) => row.id === event.event_id)?.payload,
        'the body as stored, byte for byte',
      );
    assert.equal(events[0]!.headers, undefined);
    // Another merchant's stream saw none of it.
    const seenByOther: StreamedEvent[] = [];
    try {
      for await (const event of otherStream) seenByOther.push(event);
    } catch {
      // aborted
    }
    assert.deepEqual(seenByOther, []);
  });

  test('resumes after an event: what came since is sent, nothing before it', async () => {
    const a = await merchant.client.orders.create({
      reference_number: `R1-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const stop = new AbortController();
    const live = await merchant.client.events.open({ events: 'order.created', signal: stop.signal });
    const reading = take(live, 1);
    const b = await merchant.client.orders.create({
      reference_number: `R2-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const [seenB] = await reading;
    stop.abort();
    assert.equal(JSON.parse(seenB!.body).data.order.number, b.number);
    const c = await merchant.client.orders.create({
      reference_number: `R3-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const resumed = await merchant.client.events.open({
      after: seenB!.event_id,
      events: 'order.created',
      maxSeconds: 1,
    });
    const numbers: string[] = [];
    for await (const event of resumed) numbers.push(JSON.parse(event.body).data.order.number);
    assert.ok(numbers.includes(c.number), 'what came after');
    assert.ok(!numbers.includes(b.number), 'not the event resumed after');
    assert.ok(!numbers.includes(a.number) || numbers.indexOf(a.number) < numbers.indexOf(c.number));
  });

  test("with forward_to, each event carries a delivery's headers, signed for that URL with the app's webhook key", async () => {
    const url = 'http://127.0.0.1:9/local/hooks?shop=1';
    const stop = new AbortController();
    const stream = await merchant.client.events.open({ forwardTo: url, events: 'order.created', signal: stop.signal });
    const reading = take(stream, 1);
    await merchant.client.orders.create({
      reference_number: `FW-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const [event] = await reading;
    stop.abort();
    const verified = verifyWebhook(event!.headers!, event!.body, merchant.webhookPublicKey, url);
    assert.deepEqual(
      [verified.eventId, verified.action, verified.appId],
      [event!.event_id, 'order.created', merchant.appId],
    );
  });

  test('an after that names no event any more (a reset) resumes from since', async () => {
    const since = new Date().toISOString();
    const made = await merchant.client.orders.create({
      reference_number: `SN-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
    });
    const stream = await merchant.client.events.open({
      after: randomUUID(),
      since,
      events: 'order.created',
      maxSeconds: 1,
    });
    const numbers: string[] = [];
    for await (const event of stream) numbers.push(JSON.parse(event.body).data.order.number);
    assert.ok(numbers.includes(made.number));
  });

  test('at most ten streams of a merchant at once: the eleventh is 429 900204, and a slot frees when one closes', async () => {
    const stop = new AbortController();
    const open = await Promise.all(
      Array.from({ length: 10 }, () => other.client.events.open({ signal: stop.signal, maxSeconds: 30 })),
    );
    assert.equal(open.length, 10);
    const refused = await refusal(other.client.events.open({ maxSeconds: 1 }));
    assert.deepEqual([refused.status, refused.errorCode], [429, '900204']);
    stop.abort();
    let reopened: AsyncIterable<StreamedEvent> | undefined;
    for (let tries = 0; tries < 100 && !reopened; tries += 1) {
      reopened = await other.client.events.open({ maxSeconds: 1 }).catch(() => undefined);
      if (!reopened) await sleep(50);
    }
    assert.ok(reopened, 'a slot came free');
    for await (const _ of reopened) {
      // drained until the server ends it
    }
  });

  test('refuses a bad option, and is refused in live mode', async () => {
    assert.equal((await refusal(merchant.client.events.open({ events: 'Order Paid' }))).errorCode, '900203');
    assert.equal((await refusal(merchant.client.events.open({ forwardTo: 'ftp://x' }))).errorCode, '900203');
    assert.equal((await refusal(merchant.client.events.open({ since: 'yesterday' }))).errorCode, '900203');
    const live = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: '12'.repeat(32) } });
    try {
      const liveMerchant = await live.newMerchant();
      const refused = await refusal(liveMerchant.client.events.open());
      assert.deepEqual([refused.status, refused.errorCode], [403, '900101']);
    } finally {
      await live.close();
    }
  });
});

describe('paygate listen --forward-to across a restart of the server', () => {
  let dataDir: string;
  let schema: { url: string; drop(): Promise<void> } | undefined;
  let receiver: TestReceiver;
  let listener: ChildProcess | undefined;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-listen-'));
    schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    receiver = await TestReceiver.start();
  });
  after(async () => {
    listener?.kill('SIGKILL');
    await receiver.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('every event reaches the receiver once, in order, verifiable with the webhook key', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      PAYGATE_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PAYGATE_SCHEDULER_POLL_MS: '50',
      ...(schema ? { DATABASE_URL: schema.url } : {}),
    };
    let serve = await startServe(env);
    const demo = readDemoApp(dataDir)!;
    const client = new PaygateClient({
      baseUrl,
      appId: demo.app_id,
      privateKey: readFileSync(demo.private_key_path, 'utf8'),
      retry: { maxAttempts: 1 },
    });
    const webhookKey = readFileSync(demo.webhook_public_key_path, 'utf8');
    const forwardTo = `${receiver.url}/listen?from=cli`;
    let stderr = '';
    listener = spawn(
      process.execPath,
      [CLI, 'listen', '--events', 'order.created', '--forward-to', forwardTo, '--json'],
      {
        env: { ...process.env, PAYGATE_DATA_DIR: dataDir, PAYGATE_PUBLIC_BASE_URL: baseUrl },
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    listener.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    listener.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const waitFor = async (pattern: RegExp, what: string) => {
      for (let i = 0; i < 400 && !pattern.test(stderr); i += 1) await sleep(50);
      assert.match(stderr, pattern, what);
    };
    const references: string[] = [];
    const create = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        const reference = `L-${references.length}-${randomUUID()}`;
        references.push(reference);
        await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '1.00' });
      }
    };
    try {
      await waitFor(/Listening to /, 'listening');
      await create(3);
      await receiver.waitFor({ path: '/listen' }, 3);
      await serve.stop('SIGTERM');
      await waitFor(/Lost the connection|ended the stream/, 'the listener says it lost the server');
      serve = await startServe(env);
      // Made while the listener waits to reconnect: it must still get them.
      await create(3);
      await waitFor(/Reconnected to /, 'the listener reconnects');
      await create(2);
      const arrived = await receiver.waitFor({ path: '/listen' }, 8, 20_000);
      await sleep(500);
      assert.equal(receiver.matching({ path: '/listen' }).length, 8, 'nothing repeated');
      const received = arrived.map((request) => {
        const verified = verifyWebhook(
          request.headers,
          request.rawBody,
          webhookKey,
          `${receiver.url}${request.target}`,
        );
        return {
          id: verified.eventId,
          reference: JSON.parse(request.rawBody.toString('utf8')).data.order.reference_number,
        };
      });
      assert.deepEqual(
        received.map((r) => r.reference),
        references,
        'every event once, in order',
      );
      assert.equal(new Set(received.map((r) => r.id)).size, 8);
      // --json: each event on one line, the exact body; the receiver's answers on stderr.
      const lines = stdout.trim().split('\n');
      assert.deepEqual(
        lines,
        arrived.map((request) => request.rawBody.toString('utf8')),
      );
      assert.match(stderr, /-> 200 ok/);
    } finally {
      listener.kill('SIGINT');
      await serve.stop('SIGTERM');
    }
  });
});
