import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Customer, PaygateClient } from '@paygate/client';
import { type BrowserBed, browserBed, fillCard, NO_BROWSER, type PhoneBrowser } from '../support/browser.js';
import { newCustomer as createCustomer, futureExpiry } from '../support/fixtures.js';
import type { TestReceiver } from '../support/receiver.js';

// Binding cards as the cardholder sees it, in headless Chromium: the 3-D Secure page of a binding made through
// the API (passed and failed, then on to the merchant's return addresses), and the hosted binding page where a
// customer saves cards without the merchant touching card data (docs/payment-tokens.md).

describe('binding cards in Chromium', { skip: NO_BROWSER }, () => {
  let bed: BrowserBed;
  let client: PaygateClient;
  let shop: TestReceiver;
  let browser: PhoneBrowser;

  before(async () => {
    bed = await browserBed('Peak Gym');
    ({ client, shop, browser } = bed);
  });
  after(() => bed?.close());

  const newCustomer = (): Promise<Customer> => createCustomer(client, { name: 'Wong Siu Ming', phone: '98765432' });

  for (const [outcome, expected] of [
    ['passed', 'success'],
    ['failed', 'failed'],
  ] as const) {
    test(`the binding's 3-D Secure page, ${outcome}: the token is ${expected}, and the cardholder goes on to the merchant`, async () => {
      const customer = await newCustomer();
      const pending = await client.customers.bindCard(customer.uuid, {
        number: '4242424242424242',
        ...futureExpiry(),
        cvv: '123',
        holder_name: 'Wong Siu Ming',
        '3ds': { success_return_url: `${shop.url}/card-saved`, fail_return_url: `${shop.url}/card-failed` },
      });
      const { page, shot } = await browser.tab(`bind-3ds-${outcome}`);
      await page.goto(pending.verify_url!);
      assert.match(
        await page.locator('main').innerText(),
        /Peak Gym asks to save your VISA card ending in 4242 for later payments/,
      );
      await shot('challenge');
      await page.getByTestId(outcome).click();
      assert.equal(
        await page.getByTestId('status').innerText(),
        outcome === 'passed' ? 'Card verified' : 'Card not verified',
      );
      await shot('result');
      await page.waitForURL(`${shop.url}/${outcome === 'passed' ? 'card-saved' : 'card-failed'}`, { timeout: 10_000 });
      assert.equal(
        (await client.customers.checkToken(pending.token, { verifyUuid: pending.verify_uuid })).state,
        expected,
      );
      await page.close();
    });
  }

  test('the hosted binding page: a card through 3-D Secure, a declined one, a frictionless one; the merchant sees the tokens', async () => {
    const customer = await newCustomer();
    const { wallet_link } = await client.customers.walletLink(customer.uuid);
    assert.match(new URL(wallet_link).pathname, /^\/wallet\/[A-Za-z0-9_-]{22}$/);
    const { page, shot } = await browser.tab('wallet-link');
    await page.goto(wallet_link);
    assert.equal(await page.getByTestId('status').innerText(), 'Save a card for Wong Siu Ming');
    await shot('empty');
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByTestId('save').click();
    await page.waitForURL(/\/pay\/3ds\//);
    await shot('challenge');
    await page.getByTestId('passed').click();
    await page.waitForURL(new RegExp(`^${wallet_link}\\?token=`));
    assert.equal(await page.getByTestId('notice').innerText(), 'VISA ending in 4242 is saved.');
    await shot('saved');

    await fillCard(page, '4000 0000 0000 0002');
    await page.getByTestId('save').click();
    await page.waitForURL(new RegExp(`^${wallet_link}\\?token=`));
    assert.equal(
      await page.getByTestId('notice').innerText(),
      'VISA ending in 0002 could not be verified (Do not honour): it was not saved.',
    );
    await shot('declined');

    await fillCard(page, '4000 0000 0000 3055');
    await page.getByTestId('save').click();
    await page.waitForURL(new RegExp(`^${wallet_link}\\?token=`));
    assert.equal(await page.getByTestId('notice').innerText(), 'VISA ending in 3055 is saved.');
    assert.match(await page.getByTestId('saved').innerText(), /VISA ending in 4242[\s\S]*VISA ending in 3055/);
    await shot('two-saved');

    const tokens = await client.customers.tokens(customer.uuid);
    assert.deepEqual(
      tokens.map((t) => [t.credit_card?.number, t.state]),
      [
        ['424242******4242', 'success'],
        ['400000******0002', 'failed'],
        ['400000******3055', 'success'],
      ],
    );
    await page.close();
  });
});
