import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { readableOffset } from '../../src/webhooks/cli.js';
import { uniqueReference } from '../support/fixtures.js';
import { runCli } from '../support/processes.js';
import { TestReceiver } from '../support/receiver.js';
import { sleep } from '../support/refusal.js';
import { startTestServer, type TestServer } from '../support/server.js';

// `paygate webhooks list --event`: the event happened on its merchant's business clock, its attempts were requests
// made at a wall-clock time. The human output says which time is which, and how far the merchant's business clock
// is from wall time once the sandbox clock has moved it.

const iso = (ms: number) => new Date(ms).toISOString();

describe('paygate webhooks list --event', () => {
  let server: TestServer;
  let receiver: TestReceiver;

  before(async () => {
    // The CLI is another process on the real clock: this server's wall clock is left running.
    server = await startTestServer();
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

  /** The event's attempts as stored, once there are `count` of them. */
  async function attempts(eventId: string, count: number) {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
      const rows = await server.platform.db
        .selectFrom('webhook_attempts')
        .select(['attempt', 'started_at', 'business_at'])
        .where('event_id', '=', eventId)
        .orderBy('attempt')
        .execute();
      if (rows.length >= count) return rows;
    }
    throw new Error(`event ${eventId} has fewer than ${count} attempts`);
  }

  test('labels the event business time and the attempts wall time, and gives the offset once the business clock has moved', async () => {
    const merchant = await server.newMerchant();
    await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/webhooks-list`);
    await merchant.client.orders.create({
      reference_number: uniqueReference('WL'),
      currency: 'HKD',
      charge_fee: '4.00',
    });
    const [request] = await receiver.waitFor({ path: '/webhooks-list', action: 'order.created' });
    const eventId = String(request!.headers['x-event-id']);
    const event = await server.platform.db
      .selectFrom('events')
      .select(['created_at', 'wall_created_at'])
      .where('id', '=', eventId)
      .executeTakeFirstOrThrow();
    const [first] = await attempts(eventId, 1);

    const unmoved = await runCli(['webhooks', 'list', '--event', eventId], server.env);
    assert.equal(unmoved.code, 0, unmoved.stderr);
    const unmovedLines = unmoved.stdout.split('\n');
    assert.ok(unmovedLines.includes(`  ${iso(event.created_at)}  business time`), unmoved.stdout);
    assert.ok(unmovedLines.includes('  business clock: the same as wall time (not moved)'), unmoved.stdout);
    assert.ok(
      unmovedLines.some((line) => line.startsWith(`    #1 ${iso(first!.started_at)} wall time  `)),
      unmoved.stdout,
    );

    // Two days ahead, then the event sent again: its second attempt is made now on the wall clock, two days later
    // on the merchant's business clock.
    await merchant.client.sandbox.advanceClock(2 * 86_400);
    await merchant.client.webhooks.redeliver(eventId);
    const [, second] = await attempts(eventId, 2);
    // The move ends two days ahead of where business time stood, so the offset is two days less the move's own time.
    const { clock_offset_ms: offset } = await server.platform.db
      .selectFrom('merchants')
      .select('clock_offset_ms')
      .where('id', '=', merchant.merchantId)
      .executeTakeFirstOrThrow();
    assert.ok(offset > 2 * 86_400_000 - 60_000 && offset <= 2 * 86_400_000, String(offset));
    assert.equal(second!.business_at - second!.started_at, offset);

    const moved = await runCli(['webhooks', 'list', '--event', eventId], server.env);
    assert.equal(moved.code, 0, moved.stderr);
    const movedLines = moved.stdout.split('\n');
    assert.ok(movedLines.includes(`  ${iso(event.created_at)}  business time`), moved.stdout);
    // As a person reads it (issue 35: it printed the offset as 172799.986 s).
    assert.ok(movedLines.includes('  business clock: +2 days (ahead of wall time)'), moved.stdout);
    assert.ok(
      movedLines.some((line) => line.startsWith(`    #2 ${iso(second!.started_at)} wall time  `)),
      moved.stdout,
    );
    assert.ok(!moved.stdout.includes(iso(second!.business_at)), 'the attempt is shown at wall time only');

    // The list says which clock its times are on, and how far a moved merchant's business clock was at an event.
    await merchant.client.orders.create({
      reference_number: uniqueReference('WL2'),
      currency: 'HKD',
      charge_fee: '5.00',
    });
    const later = (await receiver.waitFor({ path: '/webhooks-list', action: 'order.created' }, 3)).find(
      (r) => r.headers['x-event-id'] !== eventId,
    );
    const list = await runCli(['webhooks', 'list', '--limit', '1000'], server.env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Newest first\. WALL TIME is when paygate made the delivery\./);
    assert.ok(
      list.stdout
        .split('\n')
        .includes(
          'WALL TIME                 EVENT                                 ACTION                STATE     ATTEMPTS  LAST',
        ),
      list.stdout,
    );
    const laterLine = list.stdout.split('\n').find((line) => line.includes(String(later!.headers['x-event-id'])))!;
    assert.match(laterLine, /\(business clock \+2 days\)$/);
    const firstLine = list.stdout.split('\n').find((line) => line.includes(eventId))!;
    assert.doesNotMatch(firstLine, /business clock/, 'the first event happened before the clock moved');

    // Scripts keep the API's shape: every time there is business time, as the event's schema says.
    const json = await runCli(['webhooks', 'list', '--event', eventId, '--json'], server.env);
    const attemptsJson = JSON.parse(json.stdout).event.deliveries[0].attempts as Array<{ started_at: string }>;
    assert.equal(attemptsJson[1]!.started_at, iso(second!.business_at));
  });
});

describe('an offset as a person reads it', () => {
  test('the largest two units, to the minute from an hour up: a day moved reads +1 day, not 86399.986 s', () => {
    const cases: Array<[number, string]> = [
      [86_399_986, '+1 day'],
      [2 * 86_400_000 - 13, '+2 days'],
      [97_200_000, '+1 day 3 hours'],
      [-2_700_000, '-45 minutes'],
      [30_000, '+30 seconds'],
      [90_061_000, '+1 day 1 hour'],
      [400, '+400 ms'],
    ];
    for (const [ms, text] of cases) assert.equal(readableOffset(ms), text, String(ms));
  });
});
