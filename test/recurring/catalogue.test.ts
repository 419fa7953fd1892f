import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, TestClock, type TestMerchant, type TestServer } from '../support/server.js';

// Items and billing configs (issue 12, point 1): docs/recurring.md.

const RECURRING = '/svc/payment/api/v1/openapi/recurring_payments';

describe('recurring items and billing configs', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;
  const clock = new TestClock().freeze();

  before(async () => {
    server = await startTestServer({ clock });
    merchant = await server.newMerchant();
    client = merchant.client;
  });
  after(() => server.close());

  async function refusedWith(
    body: unknown,
    path: 'items' | 'billing_configs',
  ): Promise<{ status: number; code: string; message: string }> {
    const reply = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: `${RECURRING}/${path}`,
      body: JSON.stringify(body),
    });
    assert.notEqual(reply.status, 200, `expected a refusal of ${JSON.stringify(body)}`);
    return { status: reply.status, code: reply.json.error_code, message: reply.json.message };
  }

  test("an item is returned with every field of interface.md: price a number in the currency's units, deleted_at null", async () => {
    const item = await client.recurring.createItem({
      reference_id: 'GOLD-1',
      label: 'Gold membership',
      price: '99.90',
      currency: 'hkd',
      description: 'One month',
    });
    assert.match(item.id, /^[0-9a-f-]{36}$/);
    const at = new Date(clock.now()).toISOString();
    assert.deepEqual(item, {
      id: item.id,
      label: 'Gold membership',
      price: 99.9,
      currency: 'HKD',
      reference_id: 'GOLD-1',
      description: 'One month',
      created_at: at,
      updated_at: at,
      deleted_at: null,
    });
    assert.deepEqual(await client.recurring.getItem(item.id), item);
    // The optional texts left out when not given; a JSON number is read exactly, and zero is a price.
    const bare = await client.recurring.createItem({ label: 'Free trial', price: 0, currency: 'JPY' });
    assert.deepEqual(Object.keys(bare).sort(), [
      'created_at',
      'currency',
      'deleted_at',
      'id',
      'label',
      'price',
      'updated_at',
    ]);
    assert.equal(bare.price, 0);
    assert.equal((await client.recurring.createItem({ label: 'Yen', price: 1200, currency: 'JPY' })).price, 1200);
    assert.equal((await client.recurring.createItem({ label: 'Dinar', price: '1.234', currency: 'BHD' })).price, 1.234);
    const stored = await server.platform.db
      .selectFrom('recurring_items')
      .selectAll()
      .where('id', '=', item.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.price, 9990, 'stored in minor units');
    assert.equal(stored.merchant_id, merchant.merchantId);
  });

  test("item rules: label, price and currency required; the price follows the currency's exponent; each refused naming the field", async () => {
    const item = { label: 'Gold', price: '10.00', currency: 'HKD' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ price: '10.00', currency: 'HKD' }, /^item\.label is required\.$/],
      [{ label: 'Gold', currency: 'HKD' }, /^item\.price is required\.$/],
      [{ label: 'Gold', price: '10.00' }, /^item\.currency is required\.$/],
      [{ ...item, label: '' }, /^item\.label /],
      [{ ...item, label: 'x'.repeat(256) }, /^item\.label must be at most 255 characters\.$/],
      [{ ...item, price: '10.001' }, /^item\.price /],
      [{ ...item, price: '1.5', currency: 'JPY' }, /^item\.price /],
      [{ ...item, price: '-1.00' }, /^item\.price /],
      [{ ...item, price: 'ten' }, /^item\.price /],
      [{ ...item, price: 1e21 }, /^item\.price /],
      [{ ...item, price: true }, /^item\.price /],
    ];
    for (const [body, message] of cases) {
      const refused = await refusedWith({ item: body }, 'items');
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.code, '100207', JSON.stringify(body));
      assert.match(refused.message, message);
    }
    const currency = await refusedWith({ item: { ...item, currency: 'XYZ' } }, 'items');
    assert.equal(currency.status, 400);
    assert.match(currency.message, /^item\.currency "XYZ" is not an ISO 4217 currency code\.$/);
    const count = await server.platform.db
      .selectFrom('recurring_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('merchant_id', '=', merchant.merchantId)
      .where('label', '=', 'Gold')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, 'nothing refused was stored');
  });

  test('a billing config is returned exactly: the month and day only where they apply, defaults written out', async () => {
    const automated = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'automated',
    });
    const at = new Date(clock.now()).toISOString();
    assert.deepEqual(automated, {
      id: automated.id,
      interval_count: 1,
      billing_interval: 'monthly',
      billing_type: 'automated',
      billing_proration_enabled: false,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    });
    const yearly = await client.recurring.createBillingConfig({
      interval_count: 2,
      billing_interval: 'yearly',
      billing_type: 'customized',
      billing_month: 2,
      billing_day_of_month: 29,
      billing_proration_enabled: true,
      description: 'Every other 29 February (28th in common years)',
    });
    assert.deepEqual(yearly, {
      id: yearly.id,
      interval_count: 2,
      billing_interval: 'yearly',
      billing_type: 'customized',
      billing_month: 2,
      billing_day_of_month: 29,
      billing_proration_enabled: true,
      description: 'Every other 29 February (28th in common years)',
      created_at: at,
      updated_at: at,
      deleted_at: null,
    });
    assert.deepEqual(await client.recurring.getBillingConfig(yearly.id), yearly);
    const monthly = await client.recurring.createBillingConfig({
      billing_interval: 'monthly',
      billing_type: 'customized',
      billing_day_of_month: 31,
      billing_month: null,
    });
    assert.equal(monthly.billing_day_of_month, 31);
    assert.equal('billing_month' in monthly, false);
    for (const interval of ['daily', 'weekly', 'yearly'] as const) {
      assert.equal(
        (
          await client.recurring.createBillingConfig({
            billing_interval: interval,
            billing_type: 'automated',
            interval_count: 3,
          })
        ).billing_interval,
        interval,
      );
    }
  });

  test('billing config rules, each refused naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ billing_type: 'automated' }, /^config\.billing_interval is required\.$/],
      [{ billing_interval: 'monthly' }, /^config\.billing_type is required\.$/],
      [
        { billing_interval: 'fortnightly', billing_type: 'automated' },
        /^config\.billing_interval must be one of: daily, weekly, monthly, yearly\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'manual' },
        /^config\.billing_type must be one of: automated, customized\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'automated', interval_count: 0 },
        /^config\.interval_count must be >= 1\.$/,
      ],
      [{ billing_interval: 'monthly', billing_type: 'automated', interval_count: 1.5 }, /^config\.interval_count /],
      [
        { billing_interval: 'daily', billing_type: 'customized', billing_day_of_month: 1 },
        /^config\.billing_type customized bills monthly or yearly, not daily\.$/,
      ],
      [
        { billing_interval: 'weekly', billing_type: 'customized', billing_day_of_month: 1 },
        /^config\.billing_type customized bills monthly or yearly, not weekly\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'customized' },
        /^config\.billing_day_of_month is required for a customized config\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'customized', billing_day_of_month: 0 },
        /^config\.billing_day_of_month must be >= 1\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'customized', billing_day_of_month: 32 },
        /^config\.billing_day_of_month must be <= 31\.$/,
      ],
      [
        { billing_interval: 'yearly', billing_type: 'customized', billing_day_of_month: 1 },
        /^config\.billing_month is required for a customized yearly config\.$/,
      ],
      [
        { billing_interval: 'yearly', billing_type: 'customized', billing_day_of_month: 1, billing_month: 13 },
        /^config\.billing_month must be <= 12\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'customized', billing_day_of_month: 1, billing_month: 3 },
        /^config\.billing_month applies to customized yearly configs only\.$/,
      ],
      [
        { billing_interval: 'yearly', billing_type: 'automated', billing_month: 3 },
        /^config\.billing_month applies to customized yearly configs only\.$/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'automated', billing_day_of_month: 15 },
        /^config\.billing_day_of_month applies to customized configs only/,
      ],
      [
        { billing_interval: 'monthly', billing_type: 'automated', billing_proration_enabled: 'yes' },
        /^config\.billing_proration_enabled /,
      ],
    ];
    for (const [config, message] of cases) {
      const refused = await refusedWith({ config }, 'billing_configs');
      assert.equal(refused.status, 400, JSON.stringify(config));
      assert.equal(refused.code, '100207', JSON.stringify(config));
      assert.match(refused.message, message, JSON.stringify(config));
    }
  });

  test('DELETE sets deleted_at once; the record stays readable; deleting again answers the same', async () => {
    const item = await client.recurring.createItem({ label: 'Old plan', price: '5.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({
      billing_interval: 'weekly',
      billing_type: 'automated',
    });
    clock.advance(60_000);
    const deletedAt = new Date(clock.now()).toISOString();
    const deleted = await client.recurring.deleteItem(item.id);
    assert.deepEqual(deleted, { ...item, deleted_at: deletedAt, updated_at: deletedAt });
    const deletedConfig = await client.recurring.deleteBillingConfig(config.id);
    assert.deepEqual(deletedConfig, { ...config, deleted_at: deletedAt, updated_at: deletedAt });
    clock.advance(60_000);
    assert.deepEqual(await client.recurring.deleteItem(item.id), deleted, 'the first deletion time is kept');
    assert.deepEqual(await client.recurring.deleteBillingConfig(config.id), deletedConfig);
    assert.deepEqual(await client.recurring.getItem(item.id), deleted);
    assert.deepEqual(await client.recurring.getBillingConfig(config.id), deletedConfig);
  });

  test('lists: newest first, the query language, offset and limit (at most 1000)', async () => {
    const own = await server.newMerchant();
    const made = [];
    for (const [label, price, currency] of [
      ['A', '1.00', 'HKD'],
      ['B', '2.50', 'HKD'],
      ['C', '300', 'JPY'],
      ['D', '4.00', 'USD'],
    ] as const) {
      made.push(await own.client.recurring.createItem({ label, price, currency, reference_id: `REF-${label}` }));
      clock.advance(1_000);
    }
    await own.client.recurring.deleteItem(made[3]!.id);
    const all = await own.client.recurring.listItems();
    assert.deepEqual(
      all.items.map((item) => item.label),
      ['D', 'C', 'B', 'A'],
    );
    assert.deepEqual([all.offset, all.limit, all.total], [0, 20, 4]);
    const page = await own.client.recurring.listItems({ offset: 1, limit: 2 });
    assert.deepEqual(
      page.items.map((item) => item.label),
      ['C', 'B'],
    );
    assert.equal(page.total, 4);
    const label = async (filters: Record<string, string | string[]>) =>
      (await own.client.recurring.listItems({ filters })).items.map((item) => item.label);
    assert.deepEqual(await label({ 'filter[currency][_eq]': 'HKD' }), ['B', 'A']);
    assert.deepEqual(await label({ 'filter[price][_gte]': '2.50', 'filter[currency][_in]': 'HKD,USD' }), ['D', 'B']);
    assert.deepEqual(await label({ 'filter[deleted_at][_null]': '1' }), ['C', 'B', 'A']);
    assert.deepEqual(await label({ 'filter[reference_id][_contains]': 'REF-C' }), ['C']);
    assert.deepEqual(await label({ 'filter[id][_eq]': made[0]!.id }), ['A']);
    assert.deepEqual(await label({ 'filter[created_at][_lt]': made[2]!.created_at }), ['B', 'A']);

    const configs = [];
    for (const config of [
      { billing_interval: 'monthly', billing_type: 'automated' },
      {
        billing_interval: 'yearly',
        billing_type: 'customized',
        billing_month: 1,
        billing_day_of_month: 1,
        billing_proration_enabled: true,
      },
      { billing_interval: 'monthly', billing_type: 'customized', billing_day_of_month: 15, interval_count: 3 },
    ] as const) {
      configs.push(await own.client.recurring.createBillingConfig(config));
      clock.advance(1_000);
    }
    const ids = async (filters: Record<string, string>) =>
      (await own.client.recurring.listBillingConfigs({ filters })).billing_configs.map((config) => config.id);
    assert.deepEqual(await ids({}), [configs[2]!.id, configs[1]!.id, configs[0]!.id]);
    assert.deepEqual(await ids({ 'filter[billing_type][_eq]': 'customized', 'filter[interval_count][_gt]': '1' }), [
      configs[2]!.id,
    ]);
    assert.deepEqual(await ids({ 'filter[billing_proration_enabled][_eq]': '1' }), [configs[1]!.id]);
    assert.deepEqual(await ids({ 'filter[billing_month][_null]': '1', 'filter[billing_interval][_eq]': 'monthly' }), [
      configs[2]!.id,
      configs[0]!.id,
    ]);

    for (const query of [
      'limit=1001',
      'limit=0',
      'offset=-1',
      'filter[colour][_eq]=red',
      'filter[billing_interval][_eq]=hourly',
      'filter[interval_count][_contains]=1',
    ]) {
      const reply = await signedRaw(server.url, own, {
        method: 'GET',
        target: `${RECURRING}/billing_configs?${query}`,
      });
      assert.equal(reply.status, 400, query);
      assert.equal(reply.json.error_code, '100207', query);
    }
    assert.equal((await own.client.recurring.listItems({ limit: 1000 })).limit, 1000);
  });

  test("another merchant's items and configs are indistinguishable from missing ones", async () => {
    const other = await server.newMerchant();
    const item = await client.recurring.createItem({ label: 'Mine', price: '1.00', currency: 'HKD' });
    const config = await client.recurring.createBillingConfig({ billing_interval: 'daily', billing_type: 'automated' });
    for (const [id, missing] of [
      [item.id, randomUUID()],
      [config.id, randomUUID()],
    ] as const) {
      const path = id === item.id ? 'items' : 'billing_configs';
      const code = id === item.id ? '500101' : '500201';
      for (const method of ['GET', 'DELETE']) {
        const theirs = await signedRaw(server.url, other, { method, target: `${RECURRING}/${path}/${id}` });
        const nobodys = await signedRaw(server.url, other, { method, target: `${RECURRING}/${path}/${missing}` });
        assert.equal(theirs.status, 404);
        assert.equal(theirs.json.error_code, code);
        assert.deepEqual({ ...theirs.json }, { ...nobodys.json });
      }
    }
    assert.equal(
      (await client.recurring.getItem(item.id)).deleted_at,
      null,
      "the other merchant's DELETE changed nothing",
    );
    assert.equal((await other.client.recurring.listItems({ filters: { 'filter[id][_eq]': item.id } })).total, 0);
    assert.equal(
      (await other.client.recurring.listBillingConfigs({ filters: { 'filter[id][_eq]': config.id } })).total,
      0,
    );
    const notAnId = await refusal(other.client.recurring.getItem('not-a-uuid'));
    assert.equal(notAnId.errorCode, '500101');
  });
});
