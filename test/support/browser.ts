import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PaygateClient } from '@paygate/client';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { pageCard } from './fixtures.js';
import { TestReceiver } from './receiver.js';
import { startTestServer, type TestServer } from './server.js';

// Debian's Chromium, driven by playwright-core. `.ci/run` installs it and sets PAYGATE_REQUIRE_BROWSER=1: there, a
// missing browser fails the suite instead of skipping it.
const CHROMIUM = process.env.PAYGATE_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.PAYGATE_REQUIRE_BROWSER === '1';

/** For `describe(..., { skip })`: a reason to skip where there is no browser and none is required. */
export const NO_BROWSER =
  !REQUIRED && !existsSync(CHROMIUM)
    ? `no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`
    : false;

/** Where the screenshots of a run land, one folder per database (the README names it). */
export const SCREENSHOT_FOLDER = join(
  'test-artifacts',
  'screenshots',
  process.env.DATABASE_URL ? 'postgres' : 'sqlite',
);
const SHOTS = join(process.cwd(), SCREENSHOT_FOLDER);
const PHONE = { width: 390, height: 844 };

export interface PhoneBrowser {
  /** A new tab, and a numbered screenshot of each step it goes through (in SCREENSHOT_FOLDER). */
  tab(scenario: string): Promise<{ page: Page; shot(step: string): Promise<void> }>;
  close(): Promise<void>;
}

/** Headless Chromium with a phone-sized screen. */
export async function phoneBrowser(): Promise<PhoneBrowser> {
  mkdirSync(SHOTS, { recursive: true });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without these, Chromium tries to reach Google's services at every start (the machine has no internet).
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context: BrowserContext = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  return {
    async tab(scenario) {
      const page = await context.newPage();
      let step = 0;
      return {
        page,
        async shot(name: string) {
          step += 1;
          await page.screenshot({
            path: join(SHOTS, `${scenario}-${String(step).padStart(2, '0')}-${name}.png`),
            fullPage: true,
          });
        },
      };
    },
    async close() {
      await context.close();
      await browser.close();
    },
  };
}

/** Fills a hosted page's card form. */
export async function fillCard(page: Page, number: string): Promise<void> {
  await page.getByLabel('Name on card').fill('Chan Tai Man');
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill(pageCard().expiry);
  await page.getByLabel('Security code').fill('123');
}

/** What a browser test works with: a server, a merchant's client, the merchant's site (for return URLs), a phone. */
export interface BrowserBed {
  server: TestServer;
  client: PaygateClient;
  shop: TestReceiver;
  browser: PhoneBrowser;
  close(): Promise<void>;
}

export async function browserBed(merchantName: string): Promise<BrowserBed> {
  const server = await startTestServer();
  const client = (await server.newMerchant({ name: merchantName })).client;
  const shop = await TestReceiver.start();
  const browser = await phoneBrowser();
  return {
    server,
    client,
    shop,
    browser,
    async close() {
      await browser.close();
      await shop.close();
      await server.close();
    },
  };
}
