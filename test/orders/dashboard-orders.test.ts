import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/people/audit.js';
import { addPerson } from '../../src/people/people.js';
import { byTestId, DashboardBrowser } from '../support/dashboard-browser.js';
import { newOrder, paidOrder } from '../support/fixtures.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// The dashboard's payments screens (issue 37, point 3, first part): the orders list with the query language's
// filters, in an address that can be shared, and paging; an order's page with its transactions. Another merchant's
// order answers as one that does not exist.

describe('dashboard: payments', () => {
  let server: TestServer;
  let shop: TestMerchant;
  let other: TestMerchant;
  let browser: DashboardBrowser;
  let paidNumber: string;
  let otherNumber: string;
  const password = 'a viewer password';

  before(async () => {
    server = await startTestServer();
    shop = await server.newMerchant({ name: 'Orders Shop' });
    other = await server.newMerchant({ name: 'Other Shop' });
    await addPerson(
      server.platform,
      { merchantId: shop.merchantId, email: 'viewer@orders.test', role: 'viewer', password },
      OPERATOR,
    );
    // 54 unpaid orders (more than a page of 50) and one paid.
    for (let start = 0; start < 54; start += 9)
      await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          newOrder(shop.client, {
            reference_number: `DASH-${String(start + i).padStart(2, '0')}`,
            charge_fee: '10.00',
          }),
        ),
      );
    const paid = await paidOrder(shop.client, '250.50');
    paidNumber = paid.order.number;
    otherNumber = (await newOrder(other.client, { reference_number: 'OTHER-1' })).number;
    browser = new DashboardBrowser(server.url);
    assert.equal((await browser.signIn('viewer@orders.test', password)).status, 303);
  });
  after(() => server.close());

  test('the list: newest first, a page of 50 with its total, and the next page', async () => {
    const first = await browser.get('/dashboard/orders');
    assert.equal(first.status, 200);
    assert.deepEqual(byTestId(first.html, 'total'), ['55 orders, 1 to 50 shown']);
    const rows = byTestId(first.html, 'order');
    assert.equal(rows.length, 50);
    assert.match(rows[0]!, new RegExp(`^${paidNumber} \\S+ completed HKD 250\\.5 HKD 250\\.50 `));
    const next = /<a href="([^"]+)" rel="next">/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    assert.equal(next, '/dashboard/orders?offset=50');
    const second = await browser.get(next);
    assert.equal(byTestId(second.html, 'order').length, 5);
    assert.match(second.html, /rel="prev"/);
    assert.doesNotMatch(second.html, /rel="next"/);
    assert.match(byTestId(first.html, 'who')[0]!, /viewer@orders\.test \(viewer\)/);
    assert.match(first.html, /<a href="\/dashboard\/orders" aria-current="page">Payments<\/a>/);
  });

  test("the filters are the query language's, in the page's address", async () => {
    const completed = await browser.get('/dashboard/orders?state=completed');
    assert.deepEqual(byTestId(completed.html, 'total'), ['1 order']);
    assert.match(completed.html, /<option value="completed" selected>/);
    const byReference = await browser.get('/dashboard/orders?reference=DASH-1');
    assert.deepEqual(byTestId(byReference.html, 'total'), ['10 orders']);
    const byAmount = await browser.get('/dashboard/orders?min=100&max=300');
    assert.deepEqual(byTestId(byAmount.html, 'total'), ['1 order']);
    const today = new Date().toISOString().slice(0, 10);
    const byDate = await browser.get(`/dashboard/orders?from=${today}&to=${today}&reference=DASH-0`);
    assert.deepEqual(byTestId(byDate.html, 'total'), ['10 orders']);
    const past = await browser.get('/dashboard/orders?to=2000-01-01');
    assert.deepEqual(byTestId(past.html, 'total'), ['0 orders']);
    const wrong = await browser.get('/dashboard/orders?from=yesterday');
    assert.equal(wrong.status, 400);
    assert.deepEqual(byTestId(wrong.html, 'problem'), ['from must be a date (YYYY-MM-DD).']);
    const badAmount = await browser.get('/dashboard/orders?min=1e3');
    assert.equal(badAmount.status, 400);
    assert.equal(byTestId(badAmount.html, 'problem').length, 1);
  });

  test("an order's page shows its facts and transactions; another merchant's order is as unknown as none", async () => {
    const page = await browser.get(`/dashboard/orders/${paidNumber}`);
    assert.equal(page.status, 200);
    const facts = byTestId(page.html, 'order-facts')[0]!;
    assert.match(facts, /State completed/);
    assert.match(facts, /Amount HKD 250\.5 Paid HKD 250\.50 Unpaid HKD 0\.00/);
    const transactions = byTestId(page.html, 'transaction');
    assert.equal(transactions.length, 1);
    assert.match(transactions[0]!, /^Sales HKD 250\.5 succeeded [0-9a-f-]{36}$/);

    const foreign = await browser.get(`/dashboard/orders/${otherNumber}`);
    const unknown = await browser.get('/dashboard/orders/999999999999999999');
    assert.equal(foreign.status, 404);
    assert.deepEqual(
      [foreign.status, byTestId(foreign.html, 'problem')],
      [unknown.status, byTestId(unknown.html, 'problem')],
    );
    assert.deepEqual(byTestId(foreign.html, 'problem'), ['Order not found.']);
    assert.doesNotMatch((await browser.get('/dashboard/orders?reference=OTHER')).html, /OTHER-1/);
  });
});

// The money actions of an order's page (issue 37, point 3): refund, capture and void behind a confirmation, an admin's
// or an owner's, each through the API's verb and refused as the API refuses it; each in the audit log.
/** Posts an action's form, then its confirmation as the page gives it (with its one-time key); both answers. */
async function confirmed(browser: DashboardBrowser, path: string, fields: Record<string, string> = {}) {
  const question = await browser.post(path, fields);
  assert.equal(question.status, 200, question.html);
  const once = /name="once" value="([^"]+)"/.exec(question.html)![1]!;
  return { question, once, answer: await browser.post(path, { ...fields, confirm: 'yes', once }) };
}

describe('dashboard: refund, capture and void', () => {
  let server: TestServer;
  let shop: TestMerchant;
  let admin: DashboardBrowser;
  let viewer: DashboardBrowser;
  const DAY = 24 * 60 * 60;

  before(async () => {
    server = await startTestServer();
    shop = await server.newMerchant({ name: 'Actions Shop' });
    for (const role of ['admin', 'viewer'] as const)
      await addPerson(
        server.platform,
        { merchantId: shop.merchantId, email: `${role}@actions.test`, role, password: `the ${role} password` },
        OPERATOR,
      );
    admin = new DashboardBrowser(server.url);
    viewer = new DashboardBrowser(server.url);
    assert.equal((await admin.signIn('admin@actions.test', 'the admin password')).status, 303);
    assert.equal((await viewer.signIn('viewer@actions.test', 'the viewer password')).status, 303);
  });
  after(() => server.close());

  test('a refund asks first, then refunds through the API; more than is left is refused with the API message', async () => {
    const { order, transaction } = await paidOrder(shop.client, '80.00');
    await shop.client.sandbox.advanceClock(DAY);
    const page = await admin.get(`/dashboard/orders/${order.number}`);
    const action = `/dashboard/orders/${order.number}/transactions/${transaction.uuid}/refund`;
    assert.match(page.html, new RegExp(`action="${action}"`));
    assert.doesNotMatch(page.html, /\/void"/, 'a settled sale offers no void');

    const asked = await admin.post(action, { amount: '30.00' });
    assert.equal(asked.status, 200);
    assert.deepEqual(byTestId(asked.html, 'confirm-question'), [
      `Refund HKD 30.00 of transaction ${transaction.uuid} of order ${order.number}?`,
    ]);
    assert.equal(
      (await shop.client.orders.check({ order: { number: order.number } })).transactions.length,
      1,
      'nothing yet',
    );
    const withoutKey = await admin.post(action, { amount: '30.00', confirm: 'yes' });
    assert.equal(withoutKey.status, 400, "a confirmation is the page's own, with its one-time key");

    const { answer: done, once } = await confirmed(admin, action, { amount: '30.00' });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/dashboard/orders/${order.number}`);
    // The same confirmation again (a double click, a retry): the refund it made, not a second one.
    const again = await admin.post(action, { amount: '30.00', confirm: 'yes', once });
    assert.equal(again.status, 303);
    const after = await shop.client.orders.check({ order: { number: order.number } });
    assert.deepEqual(
      after.transactions.map((t) => [t.type, String(t.amount), t.success]),
      [
        ['Sales', '80', true],
        ['Refund', '30', true],
      ],
    );
    assert.equal(after.paid_total, '50.00');

    const { answer: tooMuch } = await confirmed(admin, action, { amount: '50.01' });
    const api = await shop.client.transactions.refund(transaction.uuid, { amount: '50.01' }).catch((error) => error);
    assert.equal(tooMuch.status, api.status);
    assert.deepEqual(byTestId(tooMuch.html, 'problem'), [api.message]);

    const audit = byTestId((await admin.get('/dashboard/audit')).html, 'audit-entry');
    assert.ok(
      audit.some((row) =>
        row.includes(
          `admin@actions.test transaction.refunded Refund HKD 30.00 of transaction ${transaction.uuid} of order ${order.number}: succeeded`,
        ),
      ),
      audit.join('\n'),
    );
    assert.ok(
      audit.some((row) =>
        row.includes(`transaction.refunded.refused Refund HKD 50.01 of transaction ${transaction.uuid}`),
      ),
      audit.join('\n'),
    );
  });

  test('a capture and a void of authorisations; a viewer is offered none and refused by the server', async () => {
    const held = await paidOrder(shop.client, '40.00', 'pre_authorize');
    const base = `/dashboard/orders/${held.order.number}/transactions/${held.transaction.uuid}`;
    const viewerPage = await viewer.get(`/dashboard/orders/${held.order.number}`);
    assert.doesNotMatch(viewerPage.html, /\/transactions\/[^"]+\/(capture|void|refund)"/);
    const refused = await viewer.post(`${base}/capture`, { amount: '40.00', confirm: 'yes' });
    assert.equal(refused.status, 403);
    assert.equal((await shop.client.transactions.check(held.transaction.uuid)).transaction.captured, false);

    const adminPage = await admin.get(`/dashboard/orders/${held.order.number}`);
    assert.match(adminPage.html, new RegExp(`action="${base}/capture"`));
    assert.match(adminPage.html, new RegExp(`action="${base}/void"`));
    const noToken = await admin.post(`${base}/capture`, { _form: null, amount: '40.00', confirm: 'yes' });
    assert.equal(noToken.status, 403);
    assert.equal((await confirmed(admin, `${base}/capture`, { amount: '25.00' })).answer.status, 303);
    const captured = await shop.client.transactions.check(held.transaction.uuid);
    assert.equal(captured.transaction.captured, true);
    assert.equal(captured.order.paid_total, '25.00');

    const released = await paidOrder(shop.client, '15.00', 'pre_authorize');
    const voidPath = `/dashboard/orders/${released.order.number}/transactions/${released.transaction.uuid}/void`;
    await admin.get(`/dashboard/orders/${released.order.number}`);
    const { question, answer: voided } = await confirmed(admin, voidPath);
    assert.deepEqual(byTestId(question.html, 'confirm-question'), [
      `Void transaction ${released.transaction.uuid} of order ${released.order.number}?`,
    ]);
    assert.equal(voided.status, 303);
    assert.equal((await shop.client.transactions.check(released.transaction.uuid)).transaction.voided, true);
    const { answer: again } = await confirmed(admin, voidPath);
    const api = await shop.client.transactions.void(released.transaction.uuid).catch((error) => error);
    assert.deepEqual([again.status, byTestId(again.html, 'problem')], [api.status, [api.message]]);
  });
});
