import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { purgeSettledEvents } from '../../src/events/store.js';
import { TestReceiver } from '../support/receiver.js';
import { sleep } from '../support/refusal.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Webhook events are kept for PAYGATE_EVENT_RETENTION_DAYS, then forgotten with their deliveries and attempts,
// but never while something is still to be sent (docs/webhooks.md "Retention").

describe('webhook event retention', () => {
  let server: TestServer;
  let client: PaygateClient;
  let receiver: TestReceiver;

  before(async () => {
    server = await startTestServer();
    client = (await server.newMerchant()).client;
    receiver = await TestReceiver.start();
    receiver.answer = (request) => (request.target.startsWith('/failing') ? 503 : 200);
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const db = () => server.platform.db;
  const eventsOf = async (orderNumber: string) => {
    const order = await db()
      .selectFrom('orders')
      .select('id')
      .where('number', '=', orderNumber)
      .executeTakeFirstOrThrow();
    return db().selectFrom('events').select('id').where('subject_id', '=', order.id).execute();
  };

  async function orderNotifying(path: string) {
    return client.orders.create({
      reference_number: `RET-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '1.00',
      callback_url: `${receiver.url}${path}`,
    });
  }

  async function until(check: () => Promise<boolean>, what: string) {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, what);
      await sleep(20);
    }
  }

  test('old events whose deliveries are done or given up go with their attempts; those still to be sent stay', async () => {
    const delivered = await orderNotifying('/ok');
    const retrying = await orderNotifying('/failing');
    await receiver.waitFor({ path: '/ok' });
    await receiver.waitFor({ path: '/failing' });
    // The failing one has its first attempt recorded and waits for its retry.
    await until(
      async () =>
        (await db().selectFrom('webhook_attempts').select('id').where('url', '=', `${receiver.url}/failing`).execute())
          .length > 0,
      'the failing attempt is recorded',
    );
    const [deliveredEvent] = await eventsOf(delivered.number);
    const [retryingEvent] = await eventsOf(retrying.number);
    await until(
      async () =>
        (
          await db()
            .selectFrom('webhook_deliveries')
            .select('state')
            .where('event_id', '=', deliveredEvent!.id)
            .executeTakeFirst()
        )?.state === 'delivered',
      'delivered',
    );

    // Nothing is old enough yet: nothing goes.
    assert.equal(await purgeSettledEvents(db(), Date.now() - 60_000), 0);
    assert.equal((await eventsOf(delivered.number)).length, 1);

    const purged = await purgeSettledEvents(db(), Date.now() + 60_000);
    assert.ok(purged >= 1);
    assert.equal((await eventsOf(delivered.number)).length, 0, 'the delivered event is gone');
    assert.equal(
      (await db().selectFrom('webhook_deliveries').select('id').where('event_id', '=', deliveredEvent!.id).execute())
        .length,
      0,
    );
    assert.equal(
      (await db().selectFrom('webhook_attempts').select('id').where('event_id', '=', deliveredEvent!.id).execute())
        .length,
      0,
    );
    assert.equal((await eventsOf(retrying.number)).length, 1, 'the event still being retried stays');
    assert.ok(
      (await db().selectFrom('webhook_attempts').select('id').where('event_id', '=', retryingEvent!.id).execute())
        .length >= 1,
    );
    // The merchant's history no longer lists what was forgotten.
    assert.deepEqual(await client.orders.events({ order: { number: delivered.number } }), []);
  });

  test('the purge runs as an hourly platform job of the scheduler', async () => {
    const job = await db()
      .selectFrom('jobs')
      .select(['kind', 'merchant_id'])
      .where('kind', '=', 'purge-webhook-events')
      .executeTakeFirst();
    assert.deepEqual(job, { kind: 'purge-webhook-events', merchant_id: null });
  });
});
