import assert from 'node:assert/strict';
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

/** A merchant of its own for a trigger (its clock moves only for it), whose app endpoint is the receiver. */
async function merchantFor(path: string): Promise<TestMerchant> {
  const merchant = await server.newMerchant();
  await setAppWebhookUrl(server.platform, merchant.appId, `${receiver.url}/${path}`);
  return merchant;
}

test("docs/webhooks.md's every event kind has its trigger, and there is none for a kind it does not list", () => {
  const documented = documentedKinds();
  assert.equal(documented.length, 46, documented.join(', '));
  const triggers = TRIGGERS.map((t) => t.kind);
  for (const kind of documented) assert.ok(triggers.includes(kind), `no trigger for ${kind}`);
  assert.deepEqual([...triggers].sort(), [...documented].sort());
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

describe('every kind, triggered once', () => {
  const outcomes = new Map<string, TriggerOutcome>();

  before(async () => {
    // Each on a merchant of its own, a few at a time.
    const queue = [...TRIGGERS];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let trigger = queue.shift(); trigger; trigger = queue.shift()) {
          const merchant = await merchantFor(trigger.kind);
          const outcome = await merchant.client.labTriggers.trigger(trigger.kind, undefined, { timeoutMs: 60_000 });
          outcomes.set(trigger.kind, outcome);
          (outcome as TriggerOutcome & { merchant?: TestMerchant }).merchant = merchant;
        }
      }),
    );
  });

  for (const trigger of TRIGGERS) {
    test(`${trigger.kind}: the event is recorded and delivered, the objects named exist`, async () => {
      const outcome = outcomes.get(trigger.kind)!;
      const merchant = (outcome as TriggerOutcome & { merchant: TestMerchant }).merchant;
      assert.equal(outcome.event, trigger.kind);
      assert.match(outcome.event_id, UUID);
      const [delivery] = await receiver.waitFor({ eventId: outcome.event_id, action: trigger.kind });
      assert.ok(delivery!.target.startsWith(`/${trigger.kind}`));
      // The event is about the object the trigger made.
      const [object, identifier] = SUBJECTS.find(([prefix]) => trigger.kind.startsWith(prefix))!.slice(1) as [
        string,
        string,
      ];
      const named = outcome.objects[object]?.[identifier];
      assert.ok(named, `${trigger.kind} names its ${object}`);
      assert.ok(delivery!.rawBody.toString().includes(`"${named}"`), `${trigger.kind}'s body names ${object} ${named}`);
      assert.equal(outcome.clock_moved_s > 0, trigger.clock !== 'none' && !trigger.clock.startsWith('none'));
      await assertObjectsExist(merchant.client, outcome);
    });
  }
});
