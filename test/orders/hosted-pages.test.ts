import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { cardAttempts } from '../../src/cards/attempts.js';
import { CARDS, futureExpiry, pageCard } from '../support/fixtures.js';
import { postForm } from '../support/forms.js';
import { pdfText } from '../support/pdf.js';
import { rawRequest, signedHeaders, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Payment links, the hosted payment page and PDF receipts over plain HTTP (docs/hosted-pages.md); the same
// pages in a real browser are in browser-checkout.test.ts.

const MINUTE = 60_000;
const GOOD_CARD = pageCard(CARDS.visa);
const DECLINED_CARD = pageCard(CARDS.doNotHonour);

describe('payment links and the hosted payment page', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let client: PaygateClient;

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant({ name: 'Tea & <Cakes> "Shop"' });
    client = merchant.client;
  });
  after(() => server.close());

  async function orderWithLink(total = '120.50', extra: Record<string, unknown> = {}) {
    return client.orders.createWithPaymentLink({
      reference_number: `LINK-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: total,
      redirect_url: 'https://shop.example/thanks',
      line_items: [{ purchasable_type: 'Charge', price: total, quantity: 1, label: 'Oolong <b>tea</b>' } as never],
      ...extra,
    });
  }

  test('with_payment_link gives data.payment_link under the public base URL: 128 random bits, a new one each time', async () => {
    const created = await orderWithLink();
    const link = new URL(created.payment_link);
    assert.equal(link.origin, server.url);
    assert.match(link.pathname, /^\/pay\/[A-Za-z0-9_-]{22}$/);
    const again = await client.orders.paymentLink({ order: { number: created.order.number } });
    assert.equal(again.order.number, created.order.number);
    assert.notEqual(again.payment_link, created.payment_link);
    // Without the query flag there is no link; only a hash of the token is stored.
    const plain = await client.call<Record<string, unknown>>('POST', '/svc/payment/api/v1/openapi/orders/check', {
      order: { number: created.order.number },
    });
    assert.deepEqual(Object.keys(plain).sort(), ['order']);
    const rows = await server.platform.db
      .selectFrom('hosted_links')
      .selectAll()
      .where('subject_id', '=', (await orderRow(created.order.number)).id)
      .execute();
    assert.equal(rows.length, 2);
    for (const row of rows)
      assert.ok(!created.payment_link.includes(row.token_hash) && !again.payment_link.includes(row.token_hash));
  });

  const orderRow = (number: string) =>
    server.platform.db.selectFrom('orders').selectAll().where('number', '=', number).executeTakeFirstOrThrow();

  test('the page shows merchant, items and amount due, escaped, with a strict Content-Security-Policy and no caching', async () => {
    const { payment_link } = await orderWithLink('120.50', { note: '<img src=x onerror=alert(1)>' });
    const reply = await fetch(payment_link);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html/);
    const csp = reply.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "style-src 'self'",
    ]) {
      assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.equal(reply.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(reply.headers.get('x-frame-options'), 'DENY');
    const page = await reply.text();
    assert.ok(page.includes('Tea &amp; &lt;Cakes&gt; &quot;Shop&quot;'), 'merchant name escaped');
    assert.ok(page.includes('Oolong &lt;b&gt;tea&lt;/b&gt;'), 'item label escaped');
    assert.ok(page.includes('&lt;img src=x onerror=alert(1)&gt;'), 'note escaped');
    assert.ok(
      !page.includes('<Cakes>') && !page.includes('<b>tea') && !page.includes('<img'),
      'no merchant markup as markup',
    );
    assert.ok(!/<script/i.test(page), 'no script at all');
    assert.ok(page.includes('HKD 120.50'));
    const css = await fetch(`${server.url}/pay/assets/pages.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  });

  test('links come from the configured base URL, whatever Host the request names', async () => {
    const { order } = await orderWithLink();
    const target = '/svc/payment/api/v1/openapi/orders/check?with_payment_link=true';
    const body = JSON.stringify({ order: { number: order.number } });
    const reply = await rawRequest(server.url, {
      method: 'POST',
      target,
      body,
      headers: { ...signedHeaders(merchant, { method: 'POST', target, body }), host: 'evil.example' },
    });
    assert.equal(reply.status, 200, reply.text);
    const link = (reply.json as { data: { payment_link: string } }).data.payment_link;
    assert.ok(link.startsWith(`${server.url}/pay/`), link);
  });

  test('paying by card: 303 back to the page, which shows the payment; the order is paid through the API too', async () => {
    const { order, payment_link } = await orderWithLink('88.00');
    const posted = await postForm(`${payment_link}/card`, GOOD_CARD);
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get('location'), payment_link);
    const page = await (await fetch(payment_link)).text();
    assert.ok(page.includes('Payment received'));
    assert.ok(page.includes('https://shop.example/thanks'), 'the way back to return_url');
    const paid = await client.orders.check({ order: { number: order.number } });
    assert.equal(paid.correspondence_state, 'paid');
    assert.equal(paid.transactions[0]!.payment_data.last_4_digits, '4242');
  });

  test('a card the form cannot take is explained (422) without echoing its number, and nothing is charged', async () => {
    const { order, payment_link } = await orderWithLink();
    const reply = await postForm(`${payment_link}/card`, { ...GOOD_CARD, number: '4242 4242 4242 4241' });
    assert.equal(reply.status, 422);
    const page = await reply.text();
    assert.ok(page.includes('Check the card number'));
    assert.ok(!page.includes('4242 4242 4242 4241') && !page.includes('4242424242424241'));
    assert.ok(page.includes('Chan Tai Man'), 'the name is kept');
    const expired = await postForm(`${payment_link}/card`, { ...GOOD_CARD, expiry: '01/20' });
    assert.equal(expired.status, 422);
    assert.ok((await expired.text()).includes('Check the expiry date'));
    assert.equal((await client.orders.check({ order: { number: order.number } })).transactions.length, 0);
  });

  test('declines are capped per order: after the limit the page takes no card, not even a good one; wallets remain', async () => {
    const limit = server.platform.config.pageDeclineLimit;
    const { order, payment_link } = await orderWithLink('30.00');
    for (let attempt = 0; attempt < limit; attempt += 1) {
      const reply = await postForm(`${payment_link}/card`, DECLINED_CARD);
      assert.equal(reply.headers.get('location'), `${payment_link}?notice=declined`);
    }
    const declinedPage = await (await fetch(`${payment_link}?notice=declined`)).text();
    assert.ok(declinedPage.includes('Your card was declined. (Do not honour)'));
    const locked = await postForm(`${payment_link}/card`, GOOD_CARD);
    assert.equal(locked.headers.get('location'), `${payment_link}?notice=locked`);
    const page = await (await fetch(`${payment_link}?notice=locked`)).text();
    assert.ok(page.includes('Too many declined cards'));
    assert.ok(!page.includes('data-testid="card-form"'));
    assert.ok(page.includes('data-testid="wallet-alipay"'));
    const after = await client.orders.check({ order: { number: order.number } });
    assert.equal(after.transactions.length, limit);
    assert.ok(after.transactions.every((t) => !t.success));
    assert.equal(after.correspondence_state, 'unpaid');
  });

  test('many cards sent at once, then one by one, still stop at exactly the cap', async () => {
    const limit = server.platform.config.pageDeclineLimit;
    const { order, payment_link } = await orderWithLink('31.00');
    const burst = await Promise.all(
      Array.from({ length: limit * 3 }, () => postForm(`${payment_link}/card`, DECLINED_CARD)),
    );
    const tried = (await client.orders.check({ order: { number: order.number } })).transactions.length;
    assert.ok(tried >= 1 && tried <= limit, `${tried} of ${limit} tried in the burst`);
    // Refused only because others were in flight: told to try again, not that the order is locked.
    if (burst.some((reply) => reply.headers.get('location')?.endsWith('notice=locked')) && tried < limit) {
      assert.ok((await (await fetch(`${payment_link}?notice=locked`)).text()).includes('Please try again'));
    }
    for (let attempt = 0; attempt < limit * 2; attempt += 1) {
      if ((await postForm(`${payment_link}/card`, DECLINED_CARD)).headers.get('location')?.endsWith('notice=locked'))
        break;
    }
    assert.equal((await client.orders.check({ order: { number: order.number } })).transactions.length, limit);
    assert.equal(
      await cardAttempts(server.platform.db, merchant.merchantId, {
        kind: 'order',
        id: (await orderRow(order.number)).id,
      }),
      limit,
    );
  });

  test('a card sent to 3-D Secure counts against the cap, whatever becomes of the challenge', async () => {
    const limit = server.platform.config.pageDeclineLimit;
    const { order, payment_link } = await orderWithLink('32.00');
    for (let attempt = 0; attempt < limit; attempt += 1) {
      const challenged = await postForm(`${payment_link}/card`, { ...GOOD_CARD, number: '4000 0000 0000 3220' });
      const location = challenged.headers.get('location') ?? '';
      assert.match(location, /\/pay\/3ds\/[A-Za-z0-9_-]{22}\?checkout=/);
      const failed = await postForm(location, { outcome: 'failed' });
      assert.equal(failed.headers.get('location'), `${payment_link}?notice=declined`);
    }
    assert.equal(
      (await postForm(`${payment_link}/card`, GOOD_CARD)).headers.get('location'),
      `${payment_link}?notice=locked`,
    );
    assert.equal(
      await cardAttempts(server.platform.db, merchant.merchantId, {
        kind: 'order',
        id: (await orderRow(order.number)).id,
      }),
      limit,
    );
  });

  test('a wallet refused in the (sandbox) wallet app is told as such, not as a card decline', async () => {
    const { order, payment_link } = await orderWithLink('47.00');
    await postForm(`${payment_link}/wallet`, { method: 'alipay' });
    const pending = (await client.orders.check({ order: { number: order.number } })).transactions[0]!;
    const walletPage = `${pending.wallet!.redirect_url!}?checkout=${payment_link.split('/').pop()}`;
    assert.equal((await fetch(walletPage)).status, 200);
    const refused = await postForm(walletPage, { outcome: 'failed' });
    assert.equal(refused.headers.get('location'), `${payment_link}?notice=wallet_declined`);
    const page = await (await fetch(`${payment_link}?notice=wallet_declined`)).text();
    assert.ok(page.includes('The wallet payment was not made') && !page.includes('Your card was declined'));
  });

  test("a stand-in page never sends the payer on to another order's checkout", async () => {
    const { order, payment_link } = await orderWithLink('48.00');
    const other = await orderWithLink('49.00');
    await postForm(`${payment_link}/wallet`, { method: 'alipay' });
    const pending = (await client.orders.check({ order: { number: order.number } })).transactions[0]!;
    const walletPage = `${pending.wallet!.redirect_url!}?checkout=${other.payment_link.split('/').pop()}`;
    const paid = await postForm(walletPage, { outcome: 'passed' });
    assert.equal(paid.status, 200, 'answered in place, not redirected');
    assert.ok((await paid.text()).includes('Payment confirmed'));
  });

  test('the notice names only fixed texts; the stylesheet may be cached, the pages may not', async () => {
    const { payment_link } = await orderWithLink();
    for (const name of ['constructor', '__proto__', 'toString', '<b>x</b>']) {
      const page = await (await fetch(`${payment_link}?notice=${encodeURIComponent(name)}`)).text();
      assert.ok(
        !page.includes('data-testid="notice"') && !page.includes('native code') && !page.includes('[object'),
        name,
      );
    }
    const css = await fetch(`${server.url}/pay/assets/pages.css`);
    assert.equal(css.headers.get('cache-control'), 'public, max-age=3600');
    assert.ok((css.headers.get('content-security-policy') ?? '').includes("default-src 'none'"));
  });

  test('the pages name an icon of our own, and /favicon.ico answers it, so a browser logs no 404', async () => {
    const { payment_link } = await orderWithLink();
    const page = await (await fetch(payment_link)).text();
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(page)?.[1];
    assert.equal(icon, '/pay/assets/icon.svg');
    for (const path of [icon, '/favicon.ico']) {
      const reply = await fetch(`${server.url}${path}`);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.headers.get('content-type'), 'image/svg+xml');
      assert.match(await reply.text(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });

  test('after a decline the page keeps the name the payer typed, never the number or the code', async () => {
    const { payment_link } = await orderWithLink('31.00');
    const declined = await postForm(`${payment_link}/card`, {
      ...DECLINED_CARD,
      holder_name: 'Wong Siu Ming',
      cvv: '987',
    });
    assert.equal(declined.headers.get('location'), `${payment_link}?notice=declined`);
    const page = await (await fetch(`${payment_link}?notice=declined`)).text();
    assert.ok(page.includes('value="Wong Siu Ming"'), 'the name is kept');
    for (const field of ['number', 'expiry', 'cvv']) {
      const input = new RegExp(`<input[^>]*name="${field}"[^>]*>`).exec(page)?.[0];
      assert.ok(input && !input.includes('value='), `the ${field} field is empty: ${input}`);
    }
  });

  test('a wallet chosen on the page shows its QR code, then the paid order once the payer has paid', async () => {
    const { order, payment_link } = await orderWithLink('45.00');
    const chosen = await postForm(`${payment_link}/wallet`, { method: 'fps' });
    assert.equal(chosen.headers.get('location'), payment_link);
    const waiting = await (await fetch(payment_link)).text();
    assert.ok(waiting.includes('Scan to pay with FPS'));
    assert.match(waiting, /<svg class="qr"/);
    assert.match(waiting, /<meta http-equiv="refresh" content="\d+">/, 'the page refreshes itself while waiting');
    const pending = (await client.orders.check({ order: { number: order.number } })).transactions[0]!;
    await client.sandbox.succeed(pending.uuid);
    assert.ok((await (await fetch(payment_link)).text()).includes('Payment received'));
  });

  test('a waiting payment can be given up on the page, and another method chosen', async () => {
    const { order, payment_link } = await orderWithLink('46.00');
    await postForm(`${payment_link}/wallet`, { method: 'alipay' });
    const pending = (await client.orders.check({ order: { number: order.number } })).transactions[0]!;
    const cancelled = await postForm(`${payment_link}/cancel`, { transaction: pending.uuid });
    assert.equal(cancelled.headers.get('location'), `${payment_link}?notice=cancelled`);
    const after = await client.orders.check({ order: { number: order.number } });
    assert.equal(after.transactions[0]!.is_pending, false);
    assert.equal(after.transactions[0]!.success, false);
    assert.ok((await (await fetch(`${payment_link}?notice=cancelled`)).text()).includes('data-testid="card-form"'));
  });

  test('an expired link, an unknown one and an altered one are refused with a page that says so', async () => {
    const { order, payment_link } = await orderWithLink();
    const token = payment_link.split('/').pop()!;
    const altered = `${server.url}/pay/${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const unknown = await fetch(altered);
    assert.equal(unknown.status, 404);
    assert.ok((await unknown.text()).includes('not valid'));
    assert.equal((await postForm(`${altered}/card`, GOOD_CARD)).status, 404);
    assert.equal((await fetch(`${server.url}/pay/short`)).status, 404);

    server.clock.advance(server.platform.config.paymentLinkTtlMs + MINUTE);
    try {
      const expired = await fetch(payment_link);
      assert.equal(expired.status, 410);
      assert.ok((await expired.text()).includes('expired'));
      assert.equal((await postForm(`${payment_link}/card`, GOOD_CARD)).status, 410);
      const stored = await server.platform.db
        .selectFrom('transactions')
        .select('id')
        .where('order_id', '=', (await orderRow(order.number)).id)
        .execute();
      assert.equal(stored.length, 0, 'nothing charged through an expired link');
    } finally {
      server.clock.advance(-(server.platform.config.paymentLinkTtlMs + MINUTE));
    }
  });

  test('a cancelled order and a paid one say so instead of taking a card', async () => {
    const { order, payment_link } = await orderWithLink();
    await client.orders.void({ number: order.number });
    const page = await (await fetch(payment_link)).text();
    assert.ok(page.includes('This order was cancelled'));
    await postForm(`${payment_link}/card`, GOOD_CARD);
    assert.equal((await client.orders.check({ order: { number: order.number } })).transactions.length, 0);
  });
});

describe('the payment page in live mode without an acquirer', () => {
  let server: TestServer;
  let client: PaygateClient;

  before(async () => {
    server = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ab'.repeat(32) } });
    client = (await server.newMerchant({ name: 'Live Shop' })).client;
  });
  after(() => server.close());

  test('says online payment is not available instead of offering forms that cannot work', async () => {
    const { payment_link } = await client.orders.createWithPaymentLink({
      reference_number: `LIVE-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: '10.00',
    });
    const page = await (await fetch(payment_link)).text();
    assert.ok(page.includes('Online payment is not available'));
    assert.ok(!page.includes('data-testid="card-form"') && !page.includes('Sandbox'));
    const wallet = await postForm(`${payment_link}/wallet`, { method: 'alipay' });
    assert.equal(wallet.headers.get('location'), `${payment_link}?notice=unavailable`);
    assert.equal(
      (await fetch(`${server.url}/pay/3ds/${'a'.repeat(22)}`)).status,
      404,
      'no sandbox stand-in pages in live mode',
    );
  });
});

describe('PDF receipts', () => {
  let server: TestServer;
  let client: PaygateClient;

  before(async () => {
    server = await startTestServer();
    client = (await server.newMerchant({ name: 'Harbour Noodles' })).client;
  });
  after(() => server.close());

  async function paidOrder() {
    const reference = `RCPT-${randomUUID()}`;
    await client.orders.create({
      reference_number: reference,
      currency: 'HKD',
      charge_fee: '1234.50',
      tips: '34.50',
      line_items: [
        { purchasable_type: 'Charge', price: '600.00', quantity: 2, label: 'Beef brisket noodles' },
        { purchasable_type: 'RearTips', price: '34.50', quantity: 1 },
      ] as never,
    });
    await client.orders.pay(
      { reference_number: reference },
      { amount: '1000.00', credit_card: { number: CARDS.mastercard, ...futureExpiry(), cvv: '123' } },
    );
    return reference;
  }

  test("with_download_link gives a link to a PDF that holds the order's merchant, numbers, items, transactions and totals", async () => {
    const reference = await paidOrder();
    const { order, download_link } = await client.orders.receiptLink({ order: { reference_number: reference } });
    assert.match(new URL(download_link).pathname, /^\/receipts\/[A-Za-z0-9_-]{22}$/);
    const reply = await fetch(download_link);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/pdf');
    assert.match(
      reply.headers.get('content-disposition') ?? '',
      new RegExp(`attachment; filename="receipt-${order.number}\\.pdf"`),
    );
    const bytes = new Uint8Array(await reply.arrayBuffer());
    assert.equal(Buffer.from(bytes.subarray(0, 5)).toString(), '%PDF-');
    const text = await pdfText(bytes);
    for (const expected of [
      'Harbour Noodles',
      order.number,
      reference,
      'Beef brisket noodles x 2 at HKD 600.00',
      'HKD 1,200.00',
      'HKD 34.50',
      'HKD 1,234.50',
      'HKD 1,000.00',
      'HKD 234.50',
      'ending 4444',
      order.transactions[0]!.uuid,
      'partial paid',
    ]) {
      assert.ok(text.includes(expected), `the receipt holds ${JSON.stringify(expected)}:\n${text}`);
    }
  });

  test('an attempt that moved no money states its amount in words, outside the column of money received', async () => {
    const reference = `RCPT-${randomUUID()}`;
    await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '77.00' });
    await client.orders
      .pay(
        { reference_number: reference },
        { amount: '77.00', credit_card: { number: CARDS.doNotHonour, ...futureExpiry(), cvv: '123' } },
      )
      .catch(() => undefined);
    await client.orders.pay(
      { reference_number: reference },
      { amount: '77.00', credit_card: { number: CARDS.visa, ...futureExpiry(), cvv: '123' } },
    );
    const { download_link } = await client.orders.receiptLink({ order: { reference_number: reference } });
    const text = (await pdfText(new Uint8Array(await (await fetch(download_link)).arrayBuffer())))
      .replace(/\s+/g, ' ')
      .replace(/- /g, '-'); // lines wrap, ids at their hyphens too
    // The declined row ends with its id, and the next row's date follows: no amount in the money column.
    assert.match(
      text,
      /card VISA ending 0002: failed, HKD 77\.00 not charged \([0-9a-f-]{36}\) \d{4}-\d\d-\d\d /,
      text,
    );
    assert.match(text, /card VISA ending 4242: succeeded \([0-9a-f-]{36}\) HKD 77\.00 /, text);
  });

  test('without a receipt font, characters beyond Latin-1 print as "?" and the receipt still opens', async () => {
    const shop = (await server.newMerchant({ name: '茶餐廳 Tea House' })).client;
    const reference = `RCPT-${randomUUID()}`;
    await shop.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '28.00' });
    const { download_link } = await shop.orders.receiptLink({ order: { reference_number: reference } });
    const text = await pdfText(new Uint8Array(await (await fetch(download_link)).arrayBuffer()));
    assert.ok(text.includes('??? Tea House'), text);
  });

  test('receipts wait for one thread, a few at a time: the rest are told to try again in a few seconds (503)', async () => {
    // Receipts long enough (120 lines) that the first is still being laid out when the others arrive, however
    // slowly the database answers each request (small ones were sometimes all printed one after the other).
    const label = 'Hand-pulled noodles with braised beef brisket, '.repeat(3).slice(0, 120);
    const links: string[] = [];
    for (let i = 0; i < 24; i++) {
      const reference = `BUSY-${randomUUID()}`;
      await client.orders.create({
        reference_number: reference,
        currency: 'HKD',
        charge_fee: '120.00',
        line_items: Array.from({ length: 120 }, (_, line) => ({
          purchasable_type: 'Charge',
          price: '1.00',
          quantity: 1,
          label: `${label} ${i}.${line}`,
        })) as never,
      });
      links.push((await client.orders.receiptLink({ order: { reference_number: reference } })).download_link);
    }
    const replies = await Promise.all(
      links.map(async (link) => {
        const reply = await fetch(link);
        return {
          link,
          status: reply.status,
          retryAfter: reply.headers.get('retry-after'),
          body: Buffer.from(await reply.arrayBuffer()),
        };
      }),
    );
    const busy = replies.filter((reply) => reply.status === 503);
    assert.ok(busy.length > 0 && busy.length < links.length, `${busy.length} of ${links.length} were told to wait`);
    for (const reply of busy) {
      assert.equal(reply.retryAfter, '5');
      assert.ok(reply.body.toString().includes('Try again in 5 seconds.'));
    }
    for (const reply of replies.filter((r) => r.status === 200))
      assert.equal(reply.body.subarray(0, 5).toString(), '%PDF-');
    // Asked again one at a time, every one of them is printed.
    for (const { link } of busy) assert.equal((await fetch(link)).status, 200);
  });

  test('an expired, altered or payment-page link is refused', async () => {
    const reference = await paidOrder();
    const { download_link } = await client.orders.receiptLink({ order: { reference_number: reference } });
    const token = download_link.split('/').pop()!;
    const altered = await fetch(`${server.url}/receipts/${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    assert.equal(altered.status, 404);
    assert.match(altered.headers.get('content-type') ?? '', /^text\/html/);
    // A payment link's token does not open a receipt, nor the other way round.
    const { payment_link } = await client.orders.paymentLink({ order: { reference_number: reference } });
    assert.equal((await fetch(`${server.url}/receipts/${payment_link.split('/').pop()}`)).status, 404);
    assert.equal((await fetch(`${server.url}/pay/${token}`)).status, 404);

    server.clock.advance(server.platform.config.receiptLinkTtlMs + MINUTE);
    try {
      const expired = await fetch(download_link);
      assert.equal(expired.status, 410);
      assert.ok((await expired.text()).includes('expired'));
    } finally {
      server.clock.advance(-(server.platform.config.receiptLinkTtlMs + MINUTE));
    }
  });
});

// Debian's fonts-wqy-microhei: `.ci/run` installs it and requires this test; elsewhere it runs where the font is.
const CJK_FONT = '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc';
const NO_CJK_FONT =
  process.env.PAYGATE_REQUIRE_CJK_FONT !== '1' && !existsSync(CJK_FONT)
    ? `no font at ${CJK_FONT} (apt-get install fonts-wqy-microhei)`
    : false;

describe('PDF receipts in a configured font', { skip: NO_CJK_FONT }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PAYGATE_RECEIPT_FONT: `${CJK_FONT}#WenQuanYiMicroHei` } });
  });
  after(() => server.close());

  test('PAYGATE_RECEIPT_FONT prints Chinese names and items as they are', async () => {
    const shop = (await server.newMerchant({ name: '茶餐廳 Tea House' })).client;
    const reference = `RCPT-${randomUUID()}`;
    await shop.orders.create({
      reference_number: reference,
      currency: 'HKD',
      charge_fee: '56.00',
      line_items: [{ purchasable_type: 'Charge', price: '28.00', quantity: 2, label: '凍奶茶 iced milk tea' }] as never,
    });
    const { download_link } = await shop.orders.receiptLink({ order: { reference_number: reference } });
    const text = await pdfText(new Uint8Array(await (await fetch(download_link)).arrayBuffer()));
    for (const expected of ['茶餐廳 Tea House', '凍奶茶 iced milk tea x 2 at HKD 28.00', 'HKD 56.00']) {
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    }
  });
});
