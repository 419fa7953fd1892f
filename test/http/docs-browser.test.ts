import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NO_BROWSER, type PhoneBrowser, phoneBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

// The API reference at /docs in headless Chromium (issue 11, point 7): it loads with no console error (a blocked
// resource or a policy violation is one), no failed request, our stylesheet applied, and reads on a phone.

describe('the API reference in Chromium', { skip: NO_BROWSER }, () => {
  let server: TestServer;
  let browser: PhoneBrowser;

  before(async () => {
    server = await startTestServer();
    browser = await phoneBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('loads with no console error and no failed request, styled, and its contents lead to the operations', async () => {
    // No full-page screenshots: the page is long, and a phone-sized picture of all of it takes half a minute.
    const { page } = await browser.tab('docs');
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });

    const response = await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), 'paygate API reference');
    // The stylesheet applied (a style blocked by the policy would leave the bar unpainted).
    assert.equal(
      await page.evaluate('getComputedStyle(document.querySelector(".topbar")).backgroundColor'),
      'rgb(31, 58, 138)',
    );
    assert.ok(
      await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling on a phone',
    );
    assert.equal(await page.getByRole('button').count(), 0, 'no "Try it" or any other button');

    await page.locator('nav a[href="#op-createOrder"]').click();
    await page.waitForURL(/#op-createOrder$/);
    const operation = page.locator('#op-createOrder');
    assert.ok(await operation.isVisible());
    assert.match(await operation.locator('[data-testid="success-example"]').innerText(), /"code": 200,/);

    // Give late requests (the icon) a moment to fail, if they were going to.
    await page.waitForLoadState('networkidle');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
