import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import type { Page } from 'playwright-core';
import { type BrowserBed, browserBed, fillCard, NO_BROWSER, type PhoneBrowser } from '../support/browser.js';
import { futureExpiry } from '../support/fixtures.js';
import type { TestReceiver } from '../support/receiver.js';
import type { TestServer } from '../support/server.js';

// The payer's side, end to end in headless Chromium (Debian's `chromium`, driven by playwright-core): the payment
// link on a phone-sized screen, cards with and without 3-D Secure, a decline and a retry, a wallet, the way
// back to the merchant, an expired link, and a merchant name with markup in it. Every step is saved as a
// screenshot under test-artifacts/screenshots/.

const CARDS = {
  visa: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  challenge: '4000 0000 0000 3220',
};

describe('the hosted payment page in Chromium', { skip: NO_BROWSER }, () => {
  let bed: BrowserBed;
  let server: TestServer;
  let client: PaygateClient;
  let shop: TestReceiver;
  let browser: PhoneBrowser;

  before(async () => {
    bed = await browserBed('Kowloon Coffee Roasters');
    ({ server, client, shop, browser } = bed);
  });
  after(() => bed?.close());

  async function newLink(options: { client?: PaygateClient; total?: string } = {}) {
    const { order, payment_link } = await (options.client ?? client).orders.createWithPaymentLink({
      reference_number: `WEB-${randomUUID()}`,
      currency: 'HKD',
      charge_fee: options.total ?? '68.00',
      redirect_url: `${shop.url}/thanks`,
      line_items: [
        { purchasable_type: 'Charge', price: '28.00', quantity: 2, label: 'Flat white' },
        { purchasable_type: 'Charge', price: '12.00', quantity: 1, label: 'Almond croissant' },
      ] as never,
    });
    return { order, link: payment_link };
  }

  const payerPage = (scenario: string) => browser.tab(scenario);

  const status = (page: Page) => page.getByTestId('status').innerText();
  const orderState = async (number: string) => (await client.orders.check({ order: { number } })).correspondence_state;

  test('pay by card on a phone, see the result, and be sent back to the merchant', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('card');
    const response = await page.goto(link);
    assert.equal(response?.status(), 200);
    assert.equal(await page.getByTestId('heading').innerText(), 'Kowloon Coffee Roasters');
    assert.equal(await page.getByTestId('due').innerText(), 'HKD 68.00');
    assert.match(await page.getByTestId('items').innerText(), /Flat white × 2\s+HKD 56\.00/);
    // Fits the phone: nothing wider than the screen.
    // (A string, evaluated in the page: the test is compiled without the DOM's types.)
    assert.ok(
      await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling on a phone',
    );
    await shot('form');
    await fillCard(page, CARDS.visa);
    await shot('filled');
    await page.getByTestId('pay').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Payment received');
    await shot('paid');
    assert.equal(await orderState(order.number), 'paid');
    await page.getByTestId('return').click();
    await page.waitForURL(`${shop.url}/thanks`);
    assert.ok(
      shop.received.some((r) => r.target === '/thanks'),
      'the browser arrived at return_url',
    );
    await page.close();
  });

  test('a 3-D Secure card: the challenge page passes, and the payment completes', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('3ds-pass');
    await page.goto(link);
    await fillCard(page, CARDS.challenge);
    await page.getByTestId('pay').click();
    await page.waitForURL(/\/pay\/3ds\//);
    assert.equal(await page.getByTestId('heading').innerText(), 'Card verification (3-D Secure)');
    assert.match(
      await page.locator('main').innerText(),
      /Kowloon Coffee Roasters asks for HKD 68\.00 from your VISA card ending in 3220/,
    );
    await shot('challenge');
    await page.getByTestId('passed').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Payment received');
    await shot('paid');
    const checked = await client.orders.check({ order: { number: order.number } });
    assert.equal(checked.correspondence_state, 'paid');
    assert.equal(checked.transactions.length, 1);
    await page.close();
  });

  test('a 3-D Secure card that fails the challenge: the page says so, and another card pays', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('3ds-fail');
    await page.goto(link);
    await fillCard(page, CARDS.challenge);
    await page.getByTestId('pay').click();
    await page.waitForURL(/\/pay\/3ds\//);
    await shot('challenge');
    await page.getByTestId('failed').click();
    await page.waitForURL(`${link}?notice=declined`);
    assert.match(await page.getByTestId('notice').innerText(), /3-D Secure authentication failed/);
    await shot('failed');
    assert.equal(await orderState(order.number), 'unpaid');
    await fillCard(page, CARDS.visa);
    await page.getByTestId('pay').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Payment received');
    await shot('paid');
    await page.close();
  });

  test("the challenge page of an API payment leads to the order's return_url", async () => {
    const { order } = await newLink();
    const paid = await client.orders.pay(
      { number: order.number },
      { credit_card: { number: '4000000000003220', ...futureExpiry(), cvv: '123' } },
    );
    const redirect = paid.transaction['3ds']?.redirect_url;
    assert.ok(redirect);
    const { page, shot } = await payerPage('3ds-api');
    await page.goto(redirect);
    await shot('challenge');
    await page.getByTestId('passed').click();
    assert.equal(await status(page), 'Payment confirmed');
    await shot('confirmed');
    await page.getByTestId('action').click();
    await page.waitForURL(`${shop.url}/thanks`);
    assert.equal(await orderState(order.number), 'paid');
    await page.close();
  });

  test('a declined card is explained, and a retry with another card pays', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('declined');
    await page.goto(link);
    await fillCard(page, CARDS.declined);
    await page.getByTestId('pay').click();
    await page.waitForURL(`${link}?notice=declined`);
    assert.equal(
      await page.getByTestId('notice').innerText(),
      'Your card was declined. (Do not honour) Try another card.',
    );
    await shot('declined');
    await fillCard(page, CARDS.visa);
    await page.getByTestId('pay').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Payment received');
    await shot('paid');
    const checked = await client.orders.check({ order: { number: order.number } });
    assert.deepEqual(
      checked.transactions.map((t) => t.success),
      [false, true],
    );
    await page.close();
  });

  test('pay by wallet: the QR code, the payer paying in the (sandbox) wallet app, and back to the paid order', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('wallet');
    await page.goto(link);
    await page.getByTestId('wallet-alipay').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Scan to pay with Alipay');
    assert.ok(await page.locator('svg.qr').isVisible(), 'the QR code is shown');
    await shot('qr');
    // Alipay also sends the payer to its page; in the sandbox that page is the stand-in for the wallet's app.
    await page.getByTestId('open-wallet').click();
    await page.waitForURL(/\/pay\/wallet\//);
    assert.equal(await status(page), 'Pay Kowloon Coffee Roasters');
    await shot('wallet-app');
    await page.getByTestId('passed').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Payment received');
    await shot('paid');
    assert.equal(await orderState(order.number), 'paid');
    await page.close();
  });

  test('the QR page notices by itself when the payer pays on another device', async () => {
    const { order, link } = await newLink();
    const { page, shot } = await payerPage('wallet-elsewhere');
    await page.goto(link);
    await page.getByTestId('wallet-fps').click();
    await page.waitForURL(link);
    assert.equal(await status(page), 'Scan to pay with FPS');
    assert.ok(await page.getByTestId('simulate-wallet').isVisible(), "the sandbox offers the payer's banking app");
    await shot('qr');
    const pending = (await client.orders.check({ order: { number: order.number } })).transactions[0]!;
    await client.sandbox.succeed(pending.uuid);
    await page.getByText('Payment received').waitFor({ timeout: 10_000 });
    await shot('paid');
    await page.close();
  });

  test('an expired link shows a page that says so', async () => {
    const { link } = await newLink();
    const { page, shot } = await payerPage('expired');
    server.clock.advance(server.platform.config.paymentLinkTtlMs + 60_000);
    try {
      const response = await page.goto(link);
      assert.equal(response?.status(), 410);
      assert.equal(await status(page), 'Payment link expired');
      assert.match(await page.locator('main').innerText(), /Ask Kowloon Coffee Roasters for a new one/);
      await shot('expired');
    } finally {
      server.clock.advance(-(server.platform.config.paymentLinkTtlMs + 60_000));
    }
    await page.close();
  });

  test('a merchant name with HTML in it is shown as text, and runs nothing', async () => {
    const name = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>Bad & Co`;
    const sly = (await server.newMerchant({ name })).client;
    const { link } = await newLink({ client: sly });
    const { page, shot } = await payerPage('html-name');
    const blocked: string[] = [];
    page.on('console', (message) => blocked.push(message.text()));
    await page.goto(link);
    assert.equal(await page.getByTestId('heading').innerText(), name);
    assert.equal(await page.locator('main img').count(), 0);
    assert.equal(await page.locator('script').count(), 0);
    assert.notEqual(await page.title(), 'pwned');
    assert.match(await page.title(), /Bad & Co/);
    await shot('escaped');
    await page.close();
  });
});
