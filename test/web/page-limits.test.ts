import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { startTestServer, TestClock, type TestServer } from '../support/server.js';

// The hosted pages answer anyone with a link: how much one address, and one link, may ask (docs/hosted-pages.md).

async function paymentLink(client: PaygateClient): Promise<string> {
  const { payment_link } = await client.orders.createWithPaymentLink({
    reference_number: `LIM-${randomUUID()}`,
    currency: 'HKD',
    charge_fee: '10.00',
  });
  return payment_link;
}

const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

describe('requests to the hosted pages, per address', () => {
  let server: TestServer;
  let client: PaygateClient;
  const clock = new TestClock().freeze();

  before(async () => {
    server = await startTestServer({
      clock,
      // Behind a proxy on this machine, so that each test can be a caller of its own.
      env: {
        PAYGATE_PAGE_RATE_LIMIT: '1',
        PAYGATE_PAGE_RATE_BURST: '3',
        PAYGATE_LINK_RATE_LIMIT: '0',
        PAYGATE_TRUSTED_PROXIES: '127.0.0.1,::1',
      },
    });
    client = (await server.newMerchant()).client;
  });
  after(() => server.close());

  test('past the burst an address gets 429 with Retry-After and a page, on any link; the signed API is not counted', async () => {
    const [first, second] = [await paymentLink(client), await paymentLink(client)];
    for (let i = 0; i < 3; i++) assert.equal((await fetch(i === 1 ? second : first, from('203.0.113.10'))).status, 200);
    for (const link of [first, second, `${first}/card`]) {
      const refused = await fetch(link, { ...from('203.0.113.10'), method: link.endsWith('/card') ? 'POST' : 'GET' });
      assert.equal(refused.status, 429, link);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok((await refused.text()).includes('Try again in 1 second.'));
    }
    // The stylesheet and the icon are not counted, nor is a signed request, nor another address.
    for (const path of ['/pay/assets/pages.css', '/pay/assets/icon.svg', '/favicon.ico']) {
      assert.equal((await fetch(`${server.url}${path}`, from('203.0.113.10'))).status, 200, path);
    }
    assert.equal(
      (
        (await client.call('POST', '/svc/payment/api/v1/openapi/echo', { message: 'still here' })) as {
          message: string;
        }
      ).message,
      'still here',
    );
    assert.equal((await fetch(first, from('203.0.113.11'))).status, 200);
    // One second refills one request.
    clock.advance(1_000);
    assert.equal((await fetch(first, from('203.0.113.10'))).status, 200);
    assert.equal((await fetch(first, from('203.0.113.10'))).status, 429);
  });

  test('an IPv6 caller is its /64: changing the last half of the address does not start a new count', async () => {
    const link = await paymentLink(client);
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:DB8:1:2:ffff::3']) {
      assert.equal((await fetch(link, from(address))).status, 200, address);
    }
    assert.equal((await fetch(link, from('2001:db8:1:2:abcd::4'))).status, 429);
    assert.equal((await fetch(link, from('2001:db8:1:3::1'))).status, 200, 'the next /64 is another caller');
  });
});

describe('a refused page request', () => {
  let server: TestServer;
  let client: PaygateClient;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    server = await startTestServer({
      clock: new TestClock().freeze(),
      logLines,
      env: {
        PAYGATE_PAGE_RATE_LIMIT: '1',
        PAYGATE_PAGE_RATE_BURST: '2',
        PAYGATE_LINK_RATE_LIMIT: '0',
        PAYGATE_TRUSTED_PROXIES: '127.0.0.1,::1',
      },
    });
    client = (await server.newMerchant()).client;
  });
  after(() => server.close());

  test("is answered before the application: every page's headers, counted in the metrics, no log line of its own", async () => {
    const link = await paymentLink(client);
    const caller = from('192.0.2.77');
    // An unknown path under a page's folder is counted too: it must not be a free way to keep the process busy.
    assert.equal((await fetch(`${server.url}/pay/no/such/page`, caller)).status, 404);
    assert.equal((await fetch(link, caller)).status, 200);
    const linesBefore = logLines.length;
    const refused = await fetch(link, caller);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('x-frame-options'), 'DENY');
    assert.equal(refused.headers.get('cache-control'), 'no-store');
    assert.match(refused.headers.get('content-security-policy') ?? '', /^default-src 'none'/);
    assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.ok((await refused.text()).includes('Try again in 1 second.'));
    assert.equal((await fetch(`${server.url}/pay/no/such/page`, caller)).status, 429);
    const requestLines = logLines.slice(linesBefore).filter((line) => line.msg === 'request');
    assert.deepEqual(requestLines, [], 'a refusal writes no request line');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^paygate_page_requests_refused_total 2$/m);
  });
});

describe('requests to the hosted pages, per link', () => {
  let server: TestServer;
  let client: PaygateClient;
  const clock = new TestClock().freeze();

  before(async () => {
    server = await startTestServer({
      clock,
      env: { PAYGATE_LINK_RATE_LIMIT: '1', PAYGATE_LINK_RATE_BURST: '4', PAYGATE_TRUSTED_PROXIES: '127.0.0.1,::1' },
    });
    client = (await server.newMerchant()).client;
  });
  after(() => server.close());

  test("one link's pages share a count, whatever the address; other links are not touched", async () => {
    const link = await paymentLink(client);
    const other = await paymentLink(client);
    assert.equal((await fetch(link, from('198.51.100.1'))).status, 200);
    assert.equal(
      (
        await fetch(`${link}/cancel`, {
          ...from('198.51.100.2'),
          method: 'POST',
          body: new URLSearchParams({}),
          redirect: 'manual',
        })
      ).status,
      303,
    );
    assert.equal((await fetch(link, from('198.51.100.3'))).status, 200);
    assert.equal((await fetch(link, from('2001:db8::1'))).status, 200);
    const refused = await fetch(link, from('198.51.100.4'));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal((await fetch(other)).status, 200);
    clock.advance(2_000);
    assert.equal((await fetch(link)).status, 200);
  });

  test('a receipt link is counted like any other', async () => {
    const reference = `LIM-${randomUUID()}`;
    await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '10.00' });
    const { download_link } = await client.orders.receiptLink({ order: { reference_number: reference } });
    for (let i = 0; i < 4; i++) assert.equal((await fetch(download_link)).status, 200);
    assert.equal((await fetch(download_link)).status, 429);
  });
});
