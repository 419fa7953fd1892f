import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { checkLedger } from '../../src/ledger/check.js';
import { COFFEE_SHOP, newCard, spend } from '../support/issuing.js';
import { runCli } from '../support/processes.js';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const DAY = 24 * 60 * 60;

describe('the card network simulator and operation 4', () => {
  const logLines: Array<Record<string, unknown>> = [];
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;

  const balance = async (currency = 'HKD') => {
    const found = (await client.balances.get()).find((b) => b.currency === currency);
    return { available: found?.available ?? '0.00', on_hold: found?.on_hold ?? '0.00' };
  };
  const ledgerAgrees = async () =>
    assert.deepEqual((await checkLedger(server.platform, { merchantIds: [merchant.merchantId] })).differences, []);
  const used = async (cardId: string) =>
    Object.fromEntries((await client.cards.get(cardId)).limits.map((limit) => [limit.period, limit.used_amount]));
  const events = (cardId: string) =>
    server.platform.db
      .selectFrom('events')
      .select(['action', 'payload'])
      .where('subject_id', '=', cardId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  before(async () => {
    server = await startTestServer({ logLines });
  });
  // Each test its own merchant, funded: balances and clocks of one test are not another's.
  beforeEach(async () => {
    merchant = await server.newMerchant();
    client = merchant.client;
    await client.sandbox.topUp({ currency: 'HKD', amount: '10000.00' });
    await client.sandbox.topUp({ currency: 'USD', amount: '1000.00' });
  });
  afterEach(() => {
    const faults = logLines.filter((line) => Number(line.level) >= 50);
    logLines.length = 0;
    assert.deepEqual(
      faults.map((line) => JSON.stringify(line.err ?? line.msg)),
      [],
      'no fault was logged',
    );
  });
  after(() => server.close());

  test('an approved purchase holds its amount, counts in the limits, and lists in operation 4 field by field', async () => {
    const card = await newCard(client, { limits: [{ period: 'daily', limit_amount: '5000' }] });
    const before = await balance();
    const { transaction, decline_reason } = await client.sandbox.authorize(spend(card.id, '120.50'));
    assert.equal(decline_reason, null);
    assert.match(transaction.p_created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(transaction, {
      id: transaction.id,
      p_business_id: merchant.merchantId,
      p_user_id: card.p_user_id,
      card: card.id,
      status: 'Authorized',
      type: 'Sales',
      transaction_currency: 'HKD',
      transaction_amount: '-120.50',
      local_currency: 'HKD',
      local_amount: '120.50',
      final_local_amount: '0.00',
      calculated_fee: '0.00',
      merchant_id: COFFEE_SHOP.id,
      merchant_country: 'US',
      merchant_city: COFFEE_SHOP.city,
      merchant_name: COFFEE_SHOP.name,
      p_created_at: transaction.p_created_at,
    });
    for (const value of Object.values(transaction))
      assert.equal(typeof value, 'string', 'every field of operation 4 is text');
    assert.deepEqual(await balance(), {
      available: (Number(before.available) - 120.5).toFixed(2),
      on_hold: (Number(before.on_hold) + 120.5).toFixed(2),
    });
    assert.deepEqual(await used(card.id), { daily: '120.50' });
    assert.deepEqual(await client.cards.transactions({ card: card.id }), [transaction]);
    const raw = await signedRaw(server.url, merchant, {
      method: 'GET',
      target: `/svc/ts/api/v1/openapi/transactions?card=${card.id}`,
    });
    assert.deepEqual(Object.keys(raw.json), ['code', 'message', 'data']);
    assert.deepEqual(Object.keys(raw.json.data), ['transactions']);
    assert.deepEqual(Object.keys(raw.json.data.transactions[0]).sort(), [
      'calculated_fee',
      'card',
      'final_local_amount',
      'id',
      'local_amount',
      'local_currency',
      'merchant_city',
      'merchant_country',
      'merchant_id',
      'merchant_name',
      'p_business_id',
      'p_created_at',
      'p_user_id',
      'status',
      'transaction_amount',
      'transaction_currency',
      'type',
    ]);
    assert.deepEqual(
      (await events(card.id)).map((event) => event.action),
      ['card.created', 'card_transaction.authorized'],
    );
    await ledgerAgrees();
  });

  test('each decline reason, recorded Declined and holding nothing', async () => {
    const declines: Array<[string, () => Promise<string>]> = [
      [
        'card_locked',
        async () => {
          const card = await newCard(client);
          await client.cards.lock(card.id);
          return card.id;
        },
      ],
      [
        'card_terminated',
        async () => {
          const card = await newCard(client);
          await client.cards.terminate(card.id);
          return card.id;
        },
      ],
      [
        'card_expired',
        async () => {
          const card = await newCard(client);
          // As three years of the business clock would leave it.
          await server.platform.db
            .updateTable('issued_cards')
            .set({ exp_year: 2020 })
            .where('id', '=', card.id)
            .execute();
          return card.id;
        },
      ],
      [
        'transaction_limit_exceeded',
        async () => (await newCard(client, { limits: [{ period: 'transaction', limit_amount: '50' }] })).id,
      ],
      [
        'daily_limit_exceeded',
        async () => (await newCard(client, { limits: [{ period: 'daily', limit_amount: '50' }] })).id,
      ],
      [
        'monthly_limit_exceeded',
        async () => (await newCard(client, { limits: [{ period: 'monthly', limit_amount: '50' }] })).id,
      ],
      [
        'lifetime_limit_exceeded',
        async () => (await newCard(client, { limits: [{ period: 'lifetime', limit_amount: '50' }] })).id,
      ],
    ];
    for (const [reason, cardOf] of declines) {
      const cardId = await cardOf();
      const before = await balance();
      const { transaction, decline_reason } = await client.sandbox.authorize(spend(cardId, '60.00'));
      assert.deepEqual(
        [decline_reason, transaction.status, transaction.final_local_amount],
        [reason, 'Declined', '0.00'],
        reason,
      );
      assert.deepEqual(await balance(), before, `${reason}: nothing held`);
      assert.deepEqual(
        (await client.cards.transactions({ card: cardId })).map((t) => t.status),
        ['Declined'],
      );
    }
    const usd = await newCard(client, { currency: 'USD' });
    const poor = await client.sandbox.authorize(spend(usd.id, '1000000.00', { currency: 'USD' }));
    assert.equal(poor.decline_reason, 'insufficient_funds');
    const franc = await client.sandbox.authorize(spend(usd.id, '10.00', { currency: 'CHF' }));
    assert.equal(franc.decline_reason, 'currency_not_supported');
    const withdrawal = await client.sandbox.withdraw(spend(usd.id, '5000.00', { currency: 'USD' }));
    assert.deepEqual(
      [withdrawal.decline_reason, withdrawal.transaction.type, withdrawal.transaction.status],
      ['insufficient_funds', 'Withdrawal', 'Declined'],
    );
    await ledgerAgrees();
  });

  test('limit periods roll over at local midnight and month end on the business clock', async () => {
    const card = await newCard(client, {
      limits: [
        { period: 'daily', limit_amount: '100' },
        { period: 'monthly', limit_amount: '250' },
      ],
    });
    assert.equal((await client.sandbox.authorize(spend(card.id, '80.00'))).decline_reason, null);
    assert.equal((await client.sandbox.authorize(spend(card.id, '30.00'))).decline_reason, 'daily_limit_exceeded');
    // To the merchant's next local date, an hour at a time.
    const today = (await client.sandbox.clock()).business_date;
    for (let hour = 0; hour < 25 && (await client.sandbox.clock()).business_date === today; hour += 1)
      await client.sandbox.advanceClock(3600);
    assert.equal((await client.sandbox.authorize(spend(card.id, '90.00'))).decline_reason, null, 'a new day');
    // Run on a month's last day, the new day is a new month too: its spend starts again.
    const sameMonth = (await client.sandbox.clock()).business_date.slice(0, 7) === today.slice(0, 7);
    assert.deepEqual(await used(card.id), { daily: '90.00', monthly: sameMonth ? '170.00' : '90.00' });
    for (let day = 0; day < 32 && (await used(card.id)).monthly !== '0.00'; day += 1)
      await client.sandbox.advanceClock(DAY);
    assert.deepEqual(await used(card.id), { daily: '0.00', monthly: '0.00' }, 'a new month');
    assert.equal((await client.sandbox.authorize(spend(card.id, '100.00'))).decline_reason, null);
    await ledgerAgrees();
  });

  test('incremental authorisation, partial and full reversal, and expiry after 7 days', async () => {
    const card = await newCard(client, { limits: [{ period: 'lifetime', limit_amount: '500' }] });
    const start = await balance();
    const { transaction: authorized } = await client.sandbox.authorize(spend(card.id, '100.00'));
    const grown = await client.sandbox.increment(authorized.id, '50.00');
    assert.deepEqual(
      [grown.decline_reason, grown.transaction.transaction_amount, grown.transaction.local_amount],
      [null, '-150.00', '150.00'],
    );
    const tooMuch = await client.sandbox.increment(authorized.id, '400.00');
    assert.deepEqual(
      [tooMuch.decline_reason, tooMuch.transaction.transaction_amount],
      ['lifetime_limit_exceeded', '-150.00'],
    );
    assert.equal((await balance()).on_hold, (Number(start.on_hold) + 150).toFixed(2));

    const partly = await client.sandbox.reverse(authorized.id, '40.00');
    assert.deepEqual([partly.transaction.status, partly.transaction.transaction_amount], ['Authorized', '-110.00']);
    assert.deepEqual(await used(card.id), { lifetime: '110.00' });
    assert.equal((await balance()).on_hold, (Number(start.on_hold) + 110).toFixed(2));
    const over = await refusal(client.sandbox.reverse(authorized.id, '200.00'));
    assert.equal(over.errorCode, '100207');
    await client.sandbox.reverse(authorized.id);
    assert.deepEqual(await balance(), start, 'all of it released');
    assert.deepEqual(await used(card.id), { lifetime: '0.00' });
    assert.deepEqual(
      await client.cards.transactions({ card: card.id }),
      [],
      'a fully reversed authorisation leaves operation 4',
    );
    assert.equal((await refusal(client.sandbox.settle(authorized.id))).errorCode, '700202');

    const { transaction: forgotten } = await client.sandbox.authorize(spend(card.id, '70.00'));
    await client.sandbox.advanceClock(6 * DAY);
    assert.equal((await client.cards.transactions({ card: card.id }))[0]?.status, 'Authorized');
    await client.sandbox.advanceClock(DAY + 60);
    assert.deepEqual(await client.cards.transactions({ card: card.id }), [], 'expired after 7 days of business time');
    assert.deepEqual(await balance(), start);
    assert.equal((await refusal(client.sandbox.reverse(forgotten.id))).errorCode, '700202');
    const actions = (await events(card.id)).map((event) => event.action);
    assert.deepEqual(actions, [
      'card.created',
      'card_transaction.authorized',
      'card_transaction.incremented',
      'card_transaction.reversed',
      'card_transaction.reversed',
      'card_transaction.authorized',
      'card_transaction.expired',
    ]);
    const expired = JSON.parse((await events(card.id)).at(-1)!.payload);
    assert.equal(expired.data.state, 'Expired', "the card's events keep what operation 4 no longer lists");
    await ledgerAgrees();
  });

  test('settlement in another currency: the rate of the day, the fee, partial and more-than-authorised clearing', async () => {
    const card = await newCard(client);
    const start = await balance();
    const { transaction: coffee } = await client.sandbox.authorize(spend(card.id, '100.00', { currency: 'USD' }));
    assert.deepEqual(
      [coffee.local_amount, coffee.calculated_fee, coffee.transaction_amount],
      ['780.00', '11.70', '-100.00'],
    );
    assert.equal((await balance()).on_hold, (Number(start.on_hold) + 791.7).toFixed(2));
    await client.sandbox.advanceClock(2 * DAY);
    const settled = await client.sandbox.settle(coffee.id, { amount: '100.00', currency: 'USD' });
    // Two local days later the rate is 7.8 x 1.002 = 7.8156: 781.56, and 1.5% of it, 11.72.
    assert.deepEqual(
      [
        settled.transaction.status,
        settled.transaction.local_amount,
        settled.transaction.calculated_fee,
        settled.transaction.final_local_amount,
      ],
      ['Settled', '780.00', '11.72', '793.28'],
    );
    assert.deepEqual(await balance(), {
      available: (Number(start.available) - 793.28).toFixed(2),
      on_hold: start.on_hold,
    });

    const { transaction: dinner } = await client.sandbox.authorize(spend(card.id, '500.00'));
    const partial = await client.sandbox.settle(dinner.id, { amount: '420.00' });
    assert.deepEqual(
      [partial.transaction.transaction_amount, partial.transaction.final_local_amount],
      ['-420.00', '420.00'],
    );
    const { transaction: taxi } = await client.sandbox.authorize(spend(card.id, '100.00'));
    const tipped = await client.sandbox.settle(taxi.id, { amount: '115.00' });
    assert.deepEqual(
      [tipped.transaction.transaction_amount, tipped.transaction.final_local_amount],
      ['-115.00', '115.00'],
    );
    assert.deepEqual(await balance(), {
      available: (Number(start.available) - 793.28 - 420 - 115).toFixed(2),
      on_hold: start.on_hold,
    });
    const wrong = await refusal(
      client.sandbox.settle((await client.sandbox.authorize(spend(card.id, '1.00'))).transaction.id, {
        currency: 'USD',
      }),
    );
    assert.match(wrong.message, /currency must be the authorisation's, HKD/);

    const entries = (await client.balances.transactions({ filters: { 'filter[type][_eq]': 'card_settlement' } }))
      .balance_transactions;
    const fx = entries.find((entry) => entry.fee === '11.72');
    assert.ok(fx, 'the settlement entry carries its fee');
    assert.deepEqual(
      [fx.amount, fx.net, fx.currency, fx.source.type],
      ['-781.56', '-793.28', 'HKD', 'card_transaction'],
    );
    await ledgerAgrees();
  });

  test('a refund credits the card, a withdrawal pays out at once; the ledger agrees, by the CLI too', async () => {
    const card = await newCard(client, { limits: [{ period: 'daily', limit_amount: '1000' }] });
    const start = await balance();
    const refund = await client.sandbox.refundToCard(spend(card.id, '25.00', { currency: 'USD' }));
    assert.deepEqual(
      [
        refund.transaction.type,
        refund.transaction.status,
        refund.transaction.transaction_amount,
        refund.transaction.local_amount,
        refund.transaction.final_local_amount,
        refund.transaction.calculated_fee,
      ],
      ['Refund', 'Settled', '25.00', '195.00', '195.00', '0.00'],
    );
    const cash = await client.sandbox.withdraw(
      spend(card.id, '300.00', { merchant: { ...COFFEE_SHOP, name: 'ATM 0042', category: '6011' } }),
    );
    assert.deepEqual(
      [cash.transaction.type, cash.transaction.status, cash.transaction.final_local_amount],
      ['Withdrawal', 'Settled', '300.00'],
    );
    assert.deepEqual(
      await used(card.id),
      { daily: '300.00' },
      'a withdrawal counts in the limits; a refund gives none back',
    );
    assert.deepEqual(await balance(), {
      available: (Number(start.available) + 195 - 300).toFixed(2),
      on_hold: start.on_hold,
    });
    assert.deepEqual(
      (await client.cards.transactions({ card: card.id })).map((t) => [t.type, t.transaction_amount]),
      [
        ['Withdrawal', '-300.00'],
        ['Refund', '25.00'],
      ],
    );
    const checked = await runCli(['ledger', 'check', '--merchant', merchant.merchantId], server.env);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);

    // A hold's entry moved to a step that never was: the authorisation lacks its hold, and the entry names nothing.
    const { transaction: held } = await client.sandbox.authorize(spend(card.id, '40.00'));
    const stray = randomUUID();
    await server.platform.db
      .updateTable('ledger_entries')
      .set({ source_id: stray })
      .where('source_id', '=', held.id)
      .execute();
    try {
      const { differences } = await checkLedger(server.platform, { merchantIds: [merchant.merchantId] });
      assert.deepEqual(
        differences.map((d) => [d.kind, d.subject, d.account, d.expected, d.found]).sort(),
        [
          ['source', `card_transaction:${held.id}`, 'available', '-40.00', '0.00'],
          ['source', `card_transaction:${held.id}`, 'on_hold', '40.00', '0.00'],
          ['source', `card_transaction:${stray}`, 'available', '0.00', '-40.00'],
          ['source', `card_transaction:${stray}`, 'on_hold', '0.00', '40.00'],
        ].sort(),
      );
    } finally {
      await server.platform.db
        .updateTable('ledger_entries')
        .set({ source_id: held.id })
        .where('source_id', '=', stray)
        .execute();
    }
    await ledgerAgrees();
  });

  test('real-time decisions: approve, decline, approve part, and the default when the endpoint is silent', async () => {
    const asked: Array<{ headers: IncomingHttpHeaders; body: any }> = [];
    let answer: (body: any) => { status: number; body?: string; delayMs?: number } = () => ({
      status: 200,
      body: '{"decision":"approve"}',
    });
    const endpoint = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        const body = JSON.parse(text);
        asked.push({ headers: request.headers, body });
        const reply = answer(body);
        setTimeout(
          () => response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? ''),
          reply.delayMs ?? 0,
        ).unref();
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/decide`;
      const registered = await client.cards.setAuthorizationEndpoint({ url, default_decision: 'decline' });
      assert.deepEqual([registered.url, registered.default_decision], [url, 'decline']);
      const card = await newCard(client);

      const approved = await client.sandbox.authorize(spend(card.id, '10.00'));
      assert.equal(approved.decline_reason, null);
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0]!.body.authorization, {
        card_id: card.id,
        user_id: card.p_user_id,
        amount: '10.00',
        currency: 'HKD',
        merchant: COFFEE_SHOP,
        created_at: asked[0]!.body.authorization.created_at,
      });
      assert.ok(
        asked[0]!.headers.signature && asked[0]!.headers.credential && asked[0]!.headers.nonce,
        'signed like a webhook',
      );
      assert.equal(asked[0]!.headers['x-action'], 'issuing_authorization.request');

      answer = () => ({ status: 200, body: '{"decision":"decline"}' });
      const declined = await client.sandbox.authorize(spend(card.id, '10.00'));
      assert.deepEqual(
        [declined.decline_reason, declined.transaction.status],
        ['declined_by_authorization_endpoint', 'Declined'],
      );

      answer = () => ({ status: 200, body: '{"decision":"approve","amount":"6.00"}' });
      const part = await client.sandbox.authorize(spend(card.id, '10.00'));
      assert.deepEqual(
        [part.decline_reason, part.transaction.transaction_amount, part.transaction.status],
        [null, '-6.00', 'Authorized'],
      );

      // It would approve, a second after the 2-second window closed: the default (decline) decides.
      answer = () => ({ status: 200, body: '{"decision":"approve"}', delayMs: 3_000 });
      const silent = await client.sandbox.authorize(spend(card.id, '10.00'));
      assert.equal(silent.decline_reason, 'declined_by_authorization_endpoint', 'the default decision, decline');
      await client.cards.setAuthorizationEndpoint({ url, default_decision: 'approve' });
      answer = () => ({ status: 500 });
      assert.equal(
        (await client.sandbox.authorize(spend(card.id, '10.00'))).decline_reason,
        null,
        'the default decision, approve',
      );
      const rows = await server.platform.db
        .selectFrom('issued_card_transactions')
        .select(['decided_by', 'status'])
        .where('card_id', '=', card.id)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        rows.map((row) => row.decided_by),
        ['endpoint', 'endpoint', 'endpoint_partial', 'endpoint_timeout', 'endpoint_invalid'],
      );

      // Declined by the rules, it is never asked.
      const before = asked.length;
      await client.cards.lock(card.id);
      assert.equal((await client.sandbox.authorize(spend(card.id, '10.00'))).decline_reason, 'card_locked');
      assert.equal(asked.length, before);
      assert.equal(await client.cards.removeAuthorizationEndpoint(), true);
      await client.cards.unlock(card.id);
      assert.equal((await client.sandbox.authorize(spend(card.id, '10.00'))).decline_reason, null);
      assert.equal(asked.length, before, 'removed: no longer asked');
      await ledgerAgrees();
    } finally {
      endpoint.close();
    }
  });

  test('operation 4 pages newest first, filters by card; another merchant sees none of it and cannot use the cards', async () => {
    const card = await newCard(client);
    const made: string[] = [];
    for (let i = 1; i <= 5; i += 1)
      made.push((await client.sandbox.authorize(spend(card.id, `${i}.00`))).transaction.id);
    const page = await client.cards.transactions({ card: card.id, offset: 1, limit: 2 });
    assert.deepEqual(
      page.map((t) => t.id),
      [made[3], made[2]],
    );
    assert.equal((await client.cards.transactions({ card: card.id })).length, 5);
    assert.equal((await client.cards.transactions({ limit: 3 })).length, 3, 'limit; 20 by default, 1000 at most');
    assert.equal(
      (
        await signedRaw(server.url, merchant, {
          method: 'GET',
          target: '/svc/ts/api/v1/openapi/transactions?limit=1001',
        })
      ).status,
      400,
    );
    assert.deepEqual(await client.cards.transactions({ card: 'not-a-card' }), []);

    const other = await server.newMerchant();
    assert.deepEqual(await other.client.cards.transactions({ card: card.id }), []);
    assert.deepEqual(await other.client.cards.transactions({ limit: 1000 }), []);
    for (const call of [
      () => other.client.sandbox.authorize(spend(card.id, '1.00')),
      () => other.client.sandbox.withdraw(spend(card.id, '1.00')),
      () => other.client.sandbox.refundToCard(spend(card.id, '1.00')),
    ]) {
      assert.equal((await refusal(call())).errorCode, '700101');
    }
    for (const call of [
      () => other.client.sandbox.settle(made[0]!),
      () => other.client.sandbox.reverse(made[0]!),
      () => other.client.sandbox.increment(made[0]!, '1.00'),
      () => other.client.sandbox.settle(randomUUID()),
    ]) {
      assert.equal((await refusal(call())).errorCode, '700201');
    }
    assert.equal((await client.cards.transactions({ card: card.id }))[4]?.status, 'Authorized');
  });
});
