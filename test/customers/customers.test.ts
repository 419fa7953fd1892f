import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Customer, CustomerInput } from '@paygate/client';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const CUSTOMERS = '/svc/payment/api/v1/openapi/customers';

describe('customers', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let counter = 0;
  const reference = () => `CUS-${process.pid}-${++counter}`;
  const storedRows = (merchantId: string, referenceNumber: string) =>
    server.platform.db
      .selectFrom('customers')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('reference_number', '=', referenceNumber)
      .execute();

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
  });
  after(() => server.close());

  test('create returns the customer with dial_code always present and unset fields left out', async () => {
    const ref = reference();
    const customer = await merchant.client.customers.create({
      reference_number: ref,
      name: 'Chan Tai Man',
      phone: '91234567',
    });
    assert.match(customer.uuid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(customer, {
      uuid: customer.uuid,
      reference_number: ref,
      name: 'Chan Tai Man',
      phone: '91234567',
      dial_code: '',
    });
    assert.deepEqual(await merchant.client.customers.get(customer.uuid), customer);
  });

  test('create with an existing reference_number updates that customer: same uuid, omitted fields kept, null cleared', async () => {
    const ref = reference();
    const first = await merchant.client.customers.create({
      reference_number: ref,
      name: 'Chan',
      phone: '1',
      email: 'chan@example.com',
      dial_code: '852',
      company_name: 'Chan Trading',
      default_payment_method: 'Alipay',
    });
    const second = await merchant.client.customers.create({
      reference_number: ref,
      name: 'Chan Tai Man',
      phone: '2',
      email: null,
    });
    assert.equal(second.uuid, first.uuid);
    assert.deepEqual(second, {
      uuid: first.uuid,
      reference_number: ref,
      name: 'Chan Tai Man',
      phone: '2',
      dial_code: '852',
      company_name: 'Chan Trading',
      default_payment_method: 'Alipay',
    });
    const rows = await storedRows(merchant.merchantId, ref);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.email, null);
  });

  test('edit takes a flat body; omitted fields are kept, null clears, reference_number may repeat but not change', async () => {
    const ref = reference();
    const created = await merchant.client.customers.create({
      reference_number: ref,
      name: 'A',
      phone: '1',
      email: 'a@example.com',
      dial_code: '86',
    });
    const edited = await merchant.client.customers.update(created.uuid, {
      name: 'B',
      phone: '2',
      dial_code: null,
      company_name: 'B Ltd',
    });
    assert.deepEqual(edited, {
      uuid: created.uuid,
      reference_number: ref,
      name: 'B',
      phone: '2',
      dial_code: '',
      email: 'a@example.com',
      company_name: 'B Ltd',
    });

    const same = await signedRaw(server.url, merchant, {
      method: 'PUT',
      target: `${CUSTOMERS}/${created.uuid}`,
      body: JSON.stringify({ name: 'C', phone: '3', reference_number: ref }),
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.json.data.customer.name, 'C');

    const changed = await refusal(
      merchant.client.customers.update(created.uuid, { name: 'D', phone: '4', reference_number: 'other' } as never),
    );
    assert.equal(changed.status, 400);
    assert.equal(changed.errorCode, '200102');
    assert.equal((await merchant.client.customers.get(created.uuid)).name, 'C', 'a refused edit changes nothing');
  });

  test('name and phone are required on create and edit, reference_number on create', async () => {
    const created = await merchant.client.customers.create({ reference_number: reference(), name: 'A', phone: '1' });
    for (const body of [{ name: 'A' }, { phone: '1' }, { name: null, phone: '1' }]) {
      const reply = await signedRaw(server.url, merchant, {
        method: 'PUT',
        target: `${CUSTOMERS}/${created.uuid}`,
        body: JSON.stringify(body),
      });
      assert.equal(reply.status, 400);
      assert.equal(reply.json.error_code, '100207');
      assert.match(reply.json.message, /^(name|phone) /);
    }
    for (const customer of [
      { name: 'A', phone: '1' },
      { reference_number: 'R', phone: '1' },
      { reference_number: 'R', name: 'A' },
    ]) {
      const reply = await signedRaw(server.url, merchant, {
        method: 'POST',
        target: CUSTOMERS,
        body: JSON.stringify({ customer }),
      });
      assert.equal(reply.status, 400);
      assert.match(reply.json.message, /^customer\.(reference_number|name|phone) is required\.$/);
    }
  });

  test('length limits: 255 characters (dial_code 6) pass, one more is refused naming the field', async () => {
    const base = { reference_number: reference(), name: 'A', phone: '1' };
    const limits: Array<[keyof CustomerInput, number]> = [
      ['name', 255],
      ['phone', 255],
      ['email', 255],
      ['company_name', 255],
      ['reference_number', 255],
      ['dial_code', 6],
    ];
    for (const [field, limit] of limits) {
      const atLimit = 'x'.repeat(limit);
      const ok = await merchant.client.customers.create({ ...base, [field]: atLimit });
      assert.equal(ok[field], atLimit);
      const tooLong = await refusal(merchant.client.customers.create({ ...base, [field]: 'x'.repeat(limit + 1) }));
      assert.equal(tooLong.errorCode, '100207');
      assert.equal(tooLong.message, `customer.${field} must be at most ${limit} characters.`);
    }
  });

  test('default_payment_method takes the three values, and null clears it', async () => {
    const ref = reference();
    for (const method of ['Credit Card', 'Alipay', 'Wechat Pay'] as const) {
      assert.equal(
        (
          await merchant.client.customers.create({
            reference_number: ref,
            name: 'A',
            phone: '1',
            default_payment_method: method,
          })
        ).default_payment_method,
        method,
      );
    }
    const cleared = await merchant.client.customers.create({
      reference_number: ref,
      name: 'A',
      phone: '1',
      default_payment_method: null,
    });
    assert.equal(cleared.default_payment_method, undefined);
    const wrong = await refusal(
      merchant.client.customers.create({
        reference_number: ref,
        name: 'A',
        phone: '1',
        default_payment_method: 'Cash' as never,
      }),
    );
    assert.equal(wrong.message, 'customer.default_payment_method must be one of: Credit Card, Alipay, Wechat Pay.');
  });

  test('default_payment_token must name a bound token of the customer: none exist yet, so any token is refused', async () => {
    const ref = reference();
    const created = await merchant.client.customers.create({ reference_number: ref, name: 'A', phone: '1' });
    const onCreate = await refusal(
      merchant.client.customers.create({
        reference_number: ref,
        name: 'A',
        phone: '1',
        default_payment_token: 'tok_123',
      }),
    );
    assert.equal(onCreate.status, 400);
    assert.equal(onCreate.errorCode, '200103');
    const onEdit = await refusal(
      merchant.client.customers.update(created.uuid, { name: 'A', phone: '1', default_payment_token: 'tok_123' }),
    );
    assert.equal(onEdit.errorCode, '200103');
    // null clears (there is nothing to clear), and "" is taken as absent, as PHP clients send it.
    assert.equal(
      (await merchant.client.customers.update(created.uuid, { name: 'B', phone: '1', default_payment_token: null }))
        .name,
      'B',
    );
    assert.equal(
      (await merchant.client.customers.update(created.uuid, { name: 'C', phone: '1', default_payment_token: '' })).name,
      'C',
    );
  });

  test('fields the interface does not list are tolerated and ignored', async () => {
    const reply = await signedRaw(server.url, merchant, {
      method: 'POST',
      target: CUSTOMERS,
      body: JSON.stringify({
        customer: { reference_number: reference(), name: 'A', phone: '1', loyalty_tier: 'gold' },
        source: 'plugin',
      }),
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal('loyalty_tier' in reply.json.data.customer, false);
  });

  test('unknown and malformed uuids are 404', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '1']) {
      const error = await refusal(merchant.client.customers.get(id));
      assert.equal(error.status, 404);
      assert.equal(error.errorCode, '200101');
      const edit = await refusal(merchant.client.customers.update(id, { name: 'A', phone: '1' }));
      assert.equal(edit.errorCode, '200101');
    }
  });

  test("another merchant's customer is indistinguishable from a missing one, and stays untouched", async () => {
    const other = await server.newMerchant();
    const ref = reference();
    const mine = await merchant.client.customers.create({ reference_number: ref, name: 'Mine', phone: '1' });

    const theirRead = await refusal(other.client.customers.get(mine.uuid));
    const theirEdit = await refusal(other.client.customers.update(mine.uuid, { name: 'Stolen', phone: '0' }));
    const missingRead = await refusal(other.client.customers.get(randomUUID()));
    for (const error of [theirRead, theirEdit]) {
      assert.deepEqual(
        [error.status, error.code, error.errorCode, error.message],
        [missingRead.status, missingRead.code, missingRead.errorCode, missingRead.message],
      );
    }

    const theirs = await other.client.customers.create({ reference_number: ref, name: 'Theirs', phone: '2' });
    assert.notEqual(theirs.uuid, mine.uuid, 'the same reference in another merchant is another customer');
    assert.deepEqual(await merchant.client.customers.get(mine.uuid), mine);
  });

  test('20 concurrent creates with one reference_number make exactly one customer', async () => {
    const ref = reference();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        merchant.client.customers.create({ reference_number: ref, name: `Writer ${i}`, phone: String(i) }),
      ),
    );
    const uuids = new Set(replies.map((c: Customer) => c.uuid));
    assert.equal(uuids.size, 1);
    const rows = await storedRows(merchant.merchantId, ref);
    assert.equal(rows.length, 1);
    assert.ok(
      replies.some((c) => c.name === rows[0]!.name),
      'the stored name is one of the writes',
    );
  });
});
