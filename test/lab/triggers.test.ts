import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient, TriggerOutcome } from '@paygate/client';
import { TRIGGERS } from '../../src/lab/triggers/catalogue.js';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { TestReceiver } from '../support/receiver.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// `paygate trigger KIND` through the signed API (issue 36, point 3): one trigger per event kind of docs/webhooks.md,
// each making real objects whose event is recorded and delivered; `set` by the API's field names.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** docs/webhooks.md's event kinds: its tables' `X-Action` column, and the payment tokens' sentence. */
function documentedKinds(): string[] {
  const text = readFileSync('docs/webhooks.md', 'utf8');
  const events = text.slice(text.indexOf('## Events'), text.indexOf('\n## ', text.indexOf('## Events') + 1));
  const kinds = new Set<string>();
  for (const line of events.split('\n')) {
    const row = /^\| `([a-z_]+\.[a-z_]+)` \|/.exec(line);
    if (row) kinds.add(row[1]!);
    if (/\bsend\b/.test(line) && !line.startsWith('|'))
      for (const [, kind] of line.matchAll(/`([a-z_]+\.[a-z_]+)`/g)) kinds.add(kind!);
  }
  return [...kinds];
}

let server: TestServer;
let receiver: TestReceiver;

before(async () => {
  server = await startTestServer();
  receiver = await TestReceiver.start();
});
after(async () => {
  await server.close();
  await receiver.close();
});

const areaOf = (kind: string) => kind.slice(0, kind.indexOf('.'));

/** A merchant of its own for an area of kinds (its clock moves only for them), whose app endpoint is the receiver. */
async function merchantFor(path: string): Promise<TestMerchant> {
  const merchant = await server.newMerchant();
  await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/${path}`);
  return merchant;
}

test("docs/webhooks.md's every event kind has its trigger, and there is none for a kind it does not list", () => {
  const documented = documentedKinds();
  assert.ok(documented.length >= 46, `the kinds are read from the tables: ${documented.join(', ')}`);
  const triggers = TRIGGERS.map((t) => t.kind);
  for (const kind of documented) assert.ok(triggers.includes(kind), `no trigger for ${kind}`);
  assert.deepEqual([...triggers].sort(), [...documented].sort());
});

test("docs/lab.md's Triggers section has a row for every kind, and names every field a trigger takes", () => {
  const text = readFileSync('docs/lab.md', 'utf8');
  const section = text.slice(text.indexOf('## Triggers'), text.indexOf('\n## ', text.indexOf('## Triggers') + 1));
  const rows = [...section.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((match) => match[1]);
  assert.deepEqual(
    rows,
    TRIGGERS.map((t) => t.kind),
  );
  for (const trigger of TRIGGERS)
    for (const field of trigger.fields)
      assert.ok(section.includes(`\`${field.name}\``), `docs/lab.md names ${trigger.kind}'s field ${field.name}`);
});

/** Each object a trigger names exists through the API, read by the identifiers the reply gave. */
async function assertObjectsExist(client: PaygateClient, outcome: TriggerOutcome): Promise<void> {
  const o = outcome.objects;
  const where = (name: string) => `${outcome.event}: ${name} ${JSON.stringify(o[name])}`;
  for (const [name, ids] of Object.entries(o)) {
    switch (name) {
      case 'order': {
        const order = await client.orders.check({ order: { number: ids.number! } });
        assert.equal(order.reference_number, ids.reference_number, where(name));
        break;
      }
      case 'transaction':
      case 'refund':
        assert.equal((await client.transactions.check(ids.uuid!)).transaction.uuid, ids.uuid, where(name));
        break;
      case 'customer':
        assert.equal((await client.customers.get(ids.uuid!)).uuid, ids.uuid, where(name));
        break;
      case 'payment_token':
        if (outcome.event === 'payment_token.deleted') {
          // A deleted token is gone from every read.
          await assert.rejects(client.customers.checkToken(ids.token!, { customerUuid: o.customer!.uuid! }), {
            errorCode: '200104',
          });
          break;
        }
        assert.equal(
          (await client.customers.checkToken(ids.token!, { customerUuid: o.customer!.uuid! })).token,
          ids.token,
          where(name),
        );
        break;
      case 'item':
        assert.equal((await client.recurring.getItem(ids.id!)).id, ids.id, where(name));
        break;
      case 'billing_config':
        assert.equal((await client.recurring.getBillingConfig(ids.id!)).id, ids.id, where(name));
        break;
      case 'plan':
        assert.equal((await client.recurring.getPlan(ids.id!)).reference_number, ids.reference_number, where(name));
        break;
      case 'batch':
        assert.equal((await client.batches.get(ids.id!)).batch_info.id, ids.id, where(name));
        break;
      case 'user':
        assert.equal((await client.users.get(ids.reference_id!)).user_id, ids.user_id, where(name));
        break;
      case 'card':
        assert.equal((await client.cards.get(ids.id!)).reference_id, ids.reference_id, where(name));
        break;
      case 'card_transaction':
        // Operation 4 lists no reversed or expired authorisation (their events keep them): the event's body names it.
        if (outcome.event === 'card_transaction.reversed' || outcome.event === 'card_transaction.expired') break;
        assert.ok(
          (await client.cards.transactions({ card: o.card!.id! })).some((t) => t.id === ids.id),
          where(name),
        );
        break;
      case 'payee':
        assert.equal((await client.payees.get(ids.id!)).id, ids.id, where(name));
        break;
      case 'payout_request':
        assert.equal((await client.payouts.get(ids.id!)).reference_id, ids.reference_id, where(name));
        break;
      case 'top_up':
        assert.ok(
          (await client.balances.transactions({ limit: 1000 })).balance_transactions.some(
            (t) => t.source.id === ids.id,
          ),
          where(name),
        );
        break;
      default:
        assert.fail(`${outcome.event} names an object the test does not know: ${name}`);
    }
  }
}

/** The object each kind of event is about, by a prefix of the kind, and the identifier its body carries. */
const SUBJECTS = [
  ['order.', 'order', 'number'],
  ['transaction.', 'order', 'number'],
  ['payment_token.', 'payment_token', 'token'],
  ['recurring.', 'plan', 'id'],
  ['batch.', 'batch', 'id'],
  ['user.', 'user', 'user_id'],
  ['card.', 'card', 'id'],
  ['card_transaction.', 'card_transaction', 'id'],
  ['payout.', 'payout_request', 'id'],
] as const;

const DAY = 86_400;
/** How far each kind moves the clock (seconds, at least and at most); the others do not move it. */
const CLOCK_MOVES: Record<string, [number, number]> = {
  // To the merchant's daily settlement, wherever in the day the test runs.
  'order.refunded': [1, DAY + 3_600],
  'recurring.uncollectible': [DAY, DAY],
  'recurring.plan_completed': [DAY, DAY],
  // 7 days, then to the end of the minute the authorisation expired in.
  'card_transaction.expired': [7 * DAY, 7 * DAY + 61],
  'payout.settled': [1_800, 1_800],
  'payout.terminated': [1_800, 1_800],
  'payout.reversed': [DAY + 1_800, DAY + 1_800],
  'payout.refunded': [DAY + 5_400, DAY + 5_400],
};

describe('every kind, triggered once', () => {
  const outcomes = new Map<string, TriggerOutcome & { merchant: TestMerchant }>();

  before(async () => {
    // The kinds of one area (order, payout...) one after the other on a merchant of their own, a few areas at once;
    // a kind that moves the clock on a merchant of its own (it would expire, settle or bill the others' objects).
    const groupOf = (t: (typeof TRIGGERS)[number]) => (t.clock.startsWith('none') ? areaOf(t.kind) : t.kind);
    const areas = [...new Set(TRIGGERS.map(groupOf))];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let area = areas.shift(); area; area = areas.shift()) {
          const merchant = await merchantFor(area);
          for (const trigger of TRIGGERS.filter((t) => groupOf(t) === area)) {
            const outcome = await merchant.client.labTriggers.trigger(trigger.kind, undefined, { timeoutMs: 60_000 });
            outcomes.set(trigger.kind, { ...outcome, merchant });
          }
        }
      }),
    );
  });

  for (const trigger of TRIGGERS) {
    test(`${trigger.kind}: the event is recorded and delivered, the objects named exist`, async () => {
      const outcome = outcomes.get(trigger.kind)!;
      const { merchant } = outcome;
      assert.equal(outcome.event, trigger.kind);
      assert.match(outcome.event_id, UUID);
      const [delivery] = await receiver.waitFor({ eventId: outcome.event_id, action: trigger.kind });
      assert.ok(delivery!.target.startsWith(`/${areaOf(trigger.kind)}`), delivery!.target);
      // The event is about the object the trigger made.
      const [object, identifier] = SUBJECTS.find(([prefix]) => trigger.kind.startsWith(prefix))!.slice(1) as [
        string,
        string,
      ];
      const named = outcome.objects[object]?.[identifier];
      assert.ok(named, `${trigger.kind} names its ${object}`);
      assert.ok(delivery!.rawBody.toString().includes(`"${named}"`), `${trigger.kind}'s body names ${object} ${named}`);
      const [least, most] = CLOCK_MOVES[trigger.kind] ?? [0, 0];
      assert.ok(
        outcome.clock_moved_s >= least && outcome.clock_moved_s <= most,
        `${trigger.kind} moved the clock ${outcome.clock_moved_s} s, not ${least} to ${most}`,
      );
      await assertObjectsExist(merchant.client, outcome);
    });
  }
});

describe('set, by the API’s own field names', () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await merchantFor('set');
  });

  test('order.paid with currency, charge_fee and reference_number: the order and its event carry them', async () => {
    const reference = `SET-${Date.now()}`;
    const outcome = await merchant.client.labTriggers.trigger('order.paid', {
      currency: 'USD',
      charge_fee: '12.50',
      reference_number: reference,
    });
    assert.equal(outcome.objects.order!.reference_number, reference);
    const order = await merchant.client.orders.check({ order: { reference_number: reference } });
    assert.deepEqual(
      [order.currency, order.initial_total, order.paid_total, order.correspondence_state],
      ['USD', 12.5, '12.50', 'paid'],
    );
    const [delivery] = await receiver.waitFor({ eventId: outcome.event_id });
    const body = JSON.parse(delivery!.rawBody.toString()) as { data: { order: { reference_number: string } } };
    assert.equal(body.data.order.reference_number, reference);
  });

  test('triggered twice, a trigger makes fresh objects each time', async () => {
    const first = await merchant.client.labTriggers.trigger('order.paid');
    const second = await merchant.client.labTriggers.trigger('order.paid');
    assert.notEqual(first.objects.order!.reference_number, second.objects.order!.reference_number);
    assert.notEqual(first.event_id, second.event_id);
  });

  test('a customer of the merchant by its uuid: the token binds to it; an unknown one is refused as binding refuses it', async () => {
    const customer = await merchant.client.customers.create({
      reference_number: `SET-CUSTOMER-${Date.now()}`,
      name: 'Chan Tai Man',
      phone: '61234567',
    });
    const outcome = await merchant.client.labTriggers.trigger('payment_token.succeeded', {
      customer_uuid: customer.uuid,
      holder_name: 'CHAN TAI MAN',
    });
    assert.deepEqual(outcome.objects.customer, { uuid: customer.uuid });
    const [token] = await merchant.client.customers.tokens(customer.uuid);
    assert.equal(token!.token, outcome.objects.payment_token!.token);
    assert.equal(token!.credit_card?.holder_name, 'CHAN TAI MAN');
    await assert.rejects(
      merchant.client.labTriggers.trigger('payment_token.succeeded', { customer_uuid: randomUUID() }),
      { status: 404, errorCode: '200101' },
    );
  });

  test('a plan’s retries: payment_retry_count and payment_retry_day_period decide how far the clock moves', async () => {
    const outcome = await merchant.client.labTriggers.trigger(
      'recurring.uncollectible',
      { payment_retry_count: '2', payment_retry_day_period: '3', currency: 'USD', 'item.price': '9.90' },
      { timeoutMs: 60_000 },
    );
    assert.equal(outcome.clock_moved_s, 6 * DAY);
    const plan = await merchant.client.recurring.getPlan(outcome.objects.plan!.id!);
    assert.deepEqual(
      [plan.state, plan.currency, plan.payment_retry_count, plan.payment_retry_day_period],
      ['uncollectible', 'USD', 2, 3],
    );
  });

  test('a value the verb refuses is refused as the verb refuses it: as POST orders answers the same order', async () => {
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => assert.fail('accepted'),
        (error: { status: number; errorCode: string; message: string }) => [
          error.status,
          error.errorCode,
          error.message,
        ],
      );
    const order = { reference_number: `REFUSED-${Date.now()}`, currency: 'HKD', charge_fee: '50.00' };
    for (const [field, value] of [
      ['charge_fee', '12.505'],
      ['currency', 'XYZ'],
      ['reference_number', 'x'.repeat(300)],
    ] as const) {
      const viaTrigger = await refusal(
        merchant.client.labTriggers.trigger('order.created', { ...order, [field]: value }),
      );
      const viaApi = await refusal(merchant.client.orders.create({ ...order, [field]: value }));
      assert.deepEqual(viaTrigger, viaApi, field);
      assert.equal(viaTrigger[0], 400, field);
    }
  });

  test('a field that does not apply is refused, naming it and the fields that do; nothing is made', async () => {
    const before = (await merchant.client.orders.list({ limit: 100 })).total;
    for (const [event, field] of [
      ['order.paid', 'metadata.color'],
      ['order.paid', 'payment_retry_count'],
      ['payout.failed', 'amount'],
    ] as const) {
      await assert.rejects(merchant.client.labTriggers.trigger(event, { [field]: 'blue' }), (error: unknown) => {
        const refusal = error as { status: number; errorCode: string; message: string };
        assert.equal(refusal.status, 400);
        assert.equal(refusal.errorCode, '900402');
        assert.match(refusal.message, new RegExp(`set\\.${field.replace('.', '\\.')} does not apply to ${event}`));
        assert.match(
          refusal.message,
          event === 'order.paid' ? /takes reference_number, currency, charge_fee/ : /takes reference_id/,
        );
        return true;
      });
    }
    assert.equal((await merchant.client.orders.list({ limit: 100 })).total, before);
  });

  test('a value that keeps the event from happening is answered 409 900403, naming what was made', async () => {
    // No retry: the first declined billing makes the cycle uncollectible, and no payment_failed is sent.
    await assert.rejects(
      merchant.client.labTriggers.trigger('recurring.payment_failed', { payment_retry_count: '0' }),
      (error: unknown) => {
        const refusal = error as { status: number; errorCode: string; message: string };
        assert.deepEqual([refusal.status, refusal.errorCode], [409, '900403']);
        assert.match(
          refusal.message,
          /^The objects were made \(customer .*plan .*\), but no recurring\.payment_failed event/,
        );
        return true;
      },
    );
  });

  test('an unknown kind is refused, listing the kinds', async () => {
    await assert.rejects(merchant.client.labTriggers.trigger('order.shipped'), (error: unknown) => {
      const refusal = error as { status: number; errorCode: string; message: string };
      assert.deepEqual([refusal.status, refusal.errorCode], [400, '900401']);
      assert.match(refusal.message, /"order\.shipped".*order\.created, order\.authorized/);
      return true;
    });
  });
});

test('a live platform refuses every trigger: 403 900101, nothing made', async () => {
  const live = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ef'.repeat(32) } });
  try {
    const merchant = await live.newMerchant();
    await assert.rejects(merchant.client.labTriggers.trigger('order.created'), { status: 403, errorCode: '900101' });
    await assert.rejects(merchant.client.labTriggers.trigger('order.shipped'), { status: 403, errorCode: '900101' });
    assert.equal((await merchant.client.orders.list()).total, 0);
  } finally {
    await live.close();
  }
});
