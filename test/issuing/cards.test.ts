import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { IssuedCard, IssuedCardInput, PaygateClient } from '@paygate/client';
import { passesLuhn } from '../../src/cards/card.js';
import { localTime } from '../../src/platform/time-zone.js';
import { userInput } from '../support/issuing.js';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';
import { tablesContaining } from '../support/stored-text.js';

const CARDS = '/svc/ts/api/v1/openapi/cards';
describe('issued cards', () => {
  const logLines: Array<Record<string, unknown>> = [];
  let server: TestServer;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let userId: string;
  const newCard = (client: PaygateClient, fields: Partial<IssuedCardInput> = {}) =>
    client.cards.create({
      user_id: userId,
      reference_id: `CARD-${randomUUID()}`,
      title: 'Travel',
      settlement_currency: 'HKD',
      ...fields,
    });
  const events = (subjectId: string) =>
    server.platform.db
      .selectFrom('events')
      .select(['action', 'payload'])
      .where('subject_id', '=', subjectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  before(async () => {
    server = await startTestServer({ logLines });
    merchant = await server.newMerchant({ name: 'Wong Trading' });
    other = await server.newMerchant();
    userId = await merchant.client.users.create(userInput());
  });
  after(() => server.close());

  test('a card is issued to an approved user, field by field, and reads back the same', async () => {
    const reference = `CARD-${randomUUID()}`;
    const card = await merchant.client.cards.create({
      user_id: userId,
      reference_id: reference,
      title: 'Travel',
      settlement_currency: 'USD',
      limits: [
        { period: 'monthly', limit_amount: '1000' },
        { period: 'transaction', limit_amount: 250.5 },
      ],
    });
    // The expiry is read on the merchant's business clock, in its time zone, when the card was issued.
    const now = localTime(Date.parse(card.created_at), (await merchant.client.sandbox.clock()).timezone);
    assert.match(card.id, /^[0-9a-f-]{36}$/);
    assert.match(card.last_4_digits, /^\d{4}$/);
    assert.deepEqual(card, {
      id: card.id,
      p_user_id: userId,
      reference_id: reference,
      type: 'Expense',
      title: 'Travel',
      expiration_date: `${String(now.month).padStart(2, '0')}/${String((now.year + 3) % 100).padStart(2, '0')}`,
      settlement_currency: 'USD',
      first_6_digits: '356999',
      last_4_digits: card.last_4_digits,
      status: 'Active',
      pan: `356999******${card.last_4_digits}`,
      issuer_brand: 'JCB',
      is_encrypt: false,
      business_name: 'Wong Trading',
      limits: [
        { period: 'transaction', limit_amount: '250.50', used_amount: '0.00' },
        { period: 'monthly', limit_amount: '1000.00', used_amount: '0.00' },
      ],
      created_at: card.created_at,
    });
    assert.deepEqual(await merchant.client.cards.get(card.id), card);
    const sent = await events(card.id);
    assert.deepEqual(
      sent.map((event) => event.action),
      ['card.created'],
    );
    assert.deepEqual(JSON.parse(sent[0]!.payload).data.card, card);
    assert.equal((await newCard(merchant.client, { type: 'Corporate' })).type, 'Corporate');
  });

  test('cards are refused for pending, rejected and unknown users, for a used reference, and for bad limits', async () => {
    const pending = await merchant.client.users.create(userInput({ last_name: 'Review' }));
    const rejected = await merchant.client.users.create(userInput({ last_name: 'Reject' }));
    for (const [user, status] of [
      [pending, 'pending'],
      [rejected, 'rejected'],
    ] as const) {
      const refused = await refusal(newCard(merchant.client, { user_id: user }));
      assert.deepEqual([refused.status, refused.errorCode], [409, '700102']);
      assert.match(refused.message, new RegExp(`this user is ${status}`));
    }
    await merchant.client.sandbox.approveUser(pending);
    assert.equal((await newCard(merchant.client, { user_id: pending })).p_user_id, pending);

    const theirs = await other.client.users.create(userInput());
    for (const user of [theirs, randomUUID(), 'not-a-uuid']) {
      assert.equal((await refusal(newCard(merchant.client, { user_id: user }))).errorCode, '700105');
    }
    const card = await newCard(merchant.client);
    assert.equal((await refusal(newCard(merchant.client, { reference_id: card.reference_id }))).errorCode, '700103');
    // Another merchant's reference is no concern of this one.
    await newCard(other.client, { user_id: theirs, reference_id: card.reference_id });

    const bad: Array<[unknown, RegExp]> = [
      [
        [
          { period: 'daily', limit_amount: '10' },
          { period: 'daily', limit_amount: '20' },
        ],
        /^card\.limits\[1\]\.period daily is given twice/,
      ],
      [[{ period: 'daily', limit_amount: '10.001' }], /^card\.limits\[0\]\.limit_amount /],
      [[{ period: 'daily', limit_amount: '0' }], /^card\.limits\[0\]\.limit_amount /],
      [[{ period: 'daily', limit_amount: '-5' }], /^card\.limits\[0\]\.limit_amount /],
      [
        [{ period: 'weekly', limit_amount: '5' }],
        /^card\.limits\[0\]\.period must be one of: transaction, daily, monthly, lifetime\.$/,
      ],
    ];
    for (const [limits, message] of bad) {
      const reply = await signedRaw(server.url, merchant, {
        method: 'POST',
        target: CARDS,
        body: JSON.stringify({
          card: {
            user_id: userId,
            reference_id: `CARD-${randomUUID()}`,
            title: 'T',
            settlement_currency: 'HKD',
            limits,
          },
        }),
      });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.json.error_code, '100207');
      assert.match(reply.json.message, message);
    }
    const currency = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: CARDS,
      body: JSON.stringify({
        card: {
          user_id: userId,
          reference_id: `CARD-${randomUUID()}`,
          title: 'T',
          settlement_currency: 'EUR',
        },
      }),
    });
    assert.match(currency.json.message, /^card\.settlement_currency must be one of: HKD, USD\.$/);
  });

  test('the full number and CVV appear only in full_number, every read audited; never in another reply, a log line or a stored row', async () => {
    const replies: string[] = [];
    const card = await newCard(merchant.client, { limits: [{ period: 'daily', limit_amount: '100' }] });
    replies.push(JSON.stringify(card));
    const full = await merchant.client.cards.fullNumber(card.id);
    assert.equal(full.id, card.id);
    assert.match(full.pan, /^\d{16}$/);
    assert.ok(passesLuhn(full.pan), 'Luhn-valid');
    const iin = Number(full.pan.slice(0, 4));
    assert.ok(iin >= 3528 && iin <= 3589, 'in the JCB range');
    assert.equal(full.pan.slice(0, 6), card.first_6_digits);
    assert.equal(full.pan.slice(-4), card.last_4_digits);
    assert.match(full.cvv, /^\d{3}$/);
    assert.equal(full.expiration_date, card.expiration_date);
    assert.deepEqual(await merchant.client.cards.fullNumber(card.id), full, 'the same number and CVV every time');

    const reads = await server.platform.db
      .selectFrom('issued_card_number_reads')
      .selectAll()
      .where('card_id', '=', card.id)
      .execute();
    assert.equal(reads.length, 2);
    assert.deepEqual(new Set(reads.map((read) => read.read_by)), new Set([`app:${merchant.appId}`]));
    assert.equal(new Set(reads.map((read) => read.request_id)).size, 2);

    replies.push(JSON.stringify(await merchant.client.cards.get(card.id)));
    replies.push(JSON.stringify(await merchant.client.cards.list({ limit: 1000 })));
    replies.push(JSON.stringify(await merchant.client.cards.lock(card.id)));
    replies.push(
      JSON.stringify(await merchant.client.cards.setLimits(card.id, [{ period: 'lifetime', limit_amount: '1' }])),
    );
    replies.push(JSON.stringify(await merchant.client.cards.limitChanges(card.id)));
    for (const reply of replies) assert.ok(!reply.includes(full.pan), 'no reply but full_number has the number');
    assert.ok(!replies.some((reply) => /"cvv"/.test(reply)));
    assert.ok(!logLines.some((line) => JSON.stringify(line).includes(full.pan)), 'no log line has the number');
    assert.deepEqual(await tablesContaining(server, full.pan), [], 'no stored row has the number in clear');
    const row = await server.platform.db
      .selectFrom('issued_cards')
      .selectAll()
      .where('id', '=', card.id)
      .executeTakeFirstOrThrow();
    assert.ok(!Object.values(row).includes(full.cvv), 'the CVV is kept only sealed');
    assert.notEqual(row.cvv_sealed, full.cvv);
  });

  test('card numbers are never issued twice', async () => {
    const cards = await Promise.all(Array.from({ length: 20 }, () => newCard(merchant.client)));
    const numbers = await Promise.all(cards.map((card) => merchant.client.cards.fullNumber(card.id)));
    assert.equal(new Set(numbers.map((card) => card.pan)).size, 20);
  });

  test('lock, unlock and terminate; a terminated card never changes again', async () => {
    const card = await newCard(merchant.client);
    assert.equal((await merchant.client.cards.lock(card.id)).status, 'Locked');
    assert.equal((await merchant.client.cards.lock(card.id)).status, 'Locked', 'locking a locked card changes nothing');
    assert.equal((await merchant.client.cards.unlock(card.id)).status, 'Active');
    assert.equal((await merchant.client.cards.unlock(card.id)).status, 'Active');
    assert.equal((await merchant.client.cards.terminate(card.id)).status, 'Terminated');
    assert.equal((await merchant.client.cards.terminate(card.id)).status, 'Terminated');
    for (const change of [
      () => merchant.client.cards.lock(card.id),
      () => merchant.client.cards.unlock(card.id),
      () => merchant.client.cards.setLimits(card.id, [{ period: 'daily', limit_amount: '1' }]),
    ]) {
      const refused = await refusal(change());
      assert.deepEqual([refused.status, refused.errorCode], [409, '700104']);
    }
    assert.equal((await merchant.client.cards.get(card.id)).status, 'Terminated');
    assert.deepEqual(
      (await events(card.id)).map((event) => event.action),
      ['card.created', 'card.locked', 'card.unlocked', 'card.terminated'],
    );
  });

  test('limits are replaced whole, and every change is kept in the limit history', async () => {
    const card = await newCard(merchant.client, { limits: [{ period: 'daily', limit_amount: '500' }] });
    const changed = await merchant.client.cards.setLimits(card.id, [
      { period: 'lifetime', limit_amount: '9000' },
      { period: 'transaction', limit_amount: '100' },
    ]);
    assert.deepEqual(changed.limits, [
      { period: 'transaction', limit_amount: '100.00', used_amount: '0.00' },
      { period: 'lifetime', limit_amount: '9000.00', used_amount: '0.00' },
    ]);
    assert.deepEqual((await merchant.client.cards.setLimits(card.id, [])).limits, []);
    const history = await merchant.client.cards.limitChanges(card.id);
    assert.deepEqual(
      history.map((change) => change.limits),
      [
        [{ period: 'daily', limit_amount: '500.00' }],
        [
          { period: 'transaction', limit_amount: '100.00' },
          { period: 'lifetime', limit_amount: '9000.00' },
        ],
        [],
      ],
    );
    assert.deepEqual(new Set(history.map((change) => change.changed_by)), new Set([`app:${merchant.appId}`]));
    assert.deepEqual(
      (await events(card.id)).map((event) => event.action),
      ['card.created', 'card.limits_updated', 'card.limits_updated'],
    );
  });

  test('the list pages newest first, filters by user, and counts', async () => {
    const user = await merchant.client.users.create(userInput());
    const made: IssuedCard[] = [];
    for (let i = 0; i < 3; i += 1) made.push(await newCard(merchant.client, { user_id: user, title: `Card ${i}` }));
    const page = await merchant.client.cards.list({ user_id: user });
    assert.deepEqual(
      page.cards.map((card) => card.title),
      ['Card 2', 'Card 1', 'Card 0'],
    );
    assert.deepEqual([page.offset, page.limit, page.total], [0, 20, 3]);
    const second = await merchant.client.cards.list({ user_id: user, offset: 1, limit: 1 });
    assert.deepEqual([second.cards.map((card) => card.id), second.total], [[made[1]!.id], 3]);
    const limit = await signedRaw(server.url, merchant, { method: 'GET', target: `${CARDS}?limit=1001` });
    assert.equal(limit.status, 400);
  });

  test("another merchant's cards are indistinguishable from missing ones", async () => {
    const card = await newCard(merchant.client);
    const asOther = other.client.cards;
    for (const id of [card.id, randomUUID(), 'nope']) {
      for (const call of [
        () => asOther.get(id),
        () => asOther.fullNumber(id),
        () => asOther.lock(id),
        () => asOther.unlock(id),
        () => asOther.terminate(id),
        () => asOther.setLimits(id, []),
        () => asOther.limitChanges(id),
      ]) {
        const refused = await refusal(call());
        assert.deepEqual([refused.status, refused.errorCode, refused.message], [404, '700101', 'Card not found.']);
      }
    }
    assert.equal((await other.client.cards.list({ user_id: userId })).total, 0);
    assert.ok(!(await other.client.cards.list({ limit: 1000 })).cards.some((shown) => shown.id === card.id));
    assert.equal((await merchant.client.cards.get(card.id)).status, 'Active');
    assert.equal(
      (
        await server.platform.db
          .selectFrom('issued_card_number_reads')
          .select('id')
          .where('card_id', '=', card.id)
          .execute()
      ).length,
      0,
    );
  });
});
