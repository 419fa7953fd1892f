import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { runCli } from '../support/processes.js';
import { sleep } from '../support/refusal.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

/** The lab's inbox, fault and clock commands: signed calls, in words and in JSON, as --app or as --merchant. */

const PRIVATE_KEY = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');

describe('paygate sandbox inbox, faults and clock', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let signed: string[];

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    signed = ['--app', merchant.appId, '--key', PRIVATE_KEY, '--base-url', server.url];
  });
  after(() => server.close());

  const cli = async (args: string[]) => {
    const result = await runCli([...args, ...signed], server.env);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };

  test('the inbox: its URL, captures listed and shown, cleared', async () => {
    const { url } = JSON.parse(await cli(['sandbox', 'inbox', 'url', '--json']));
    assert.equal(url, `${server.platform.config.publicBaseUrl}/svc/sandbox/api/v1/inbox/${merchant.merchantId}`);
    assert.equal((await cli(['sandbox', 'inbox', 'url'])).trim(), url);
    await setAppWebhookUrl(server.platform, merchant.appId, url);
    const reference = `CLI-${randomUUID()}`;
    await merchant.client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '9.00' });
    let page: { captures: Array<{ id: string; objects: string[] }> } = { captures: [] };
    for (let i = 0; i < 200 && page.captures.length === 0; i += 1) {
      page = JSON.parse(await cli(['sandbox', 'inbox', 'list', '--object', reference, '--json']));
      if (page.captures.length === 0) await sleep(25);
    }
    const capture = page.captures[0]!;
    assert.ok(capture.objects.includes(reference));
    const words = await cli(['sandbox', 'inbox', 'list', '--event-type', 'order.created']);
    assert.match(words, new RegExp(`${capture.id} .* order\\.created .* 200 {2}verified {2}${url}`));
    const shown = await cli(['sandbox', 'inbox', 'show', capture.id]);
    assert.match(shown, /^order\.created /);
    assert.match(shown, /x-event-id: /);
    assert.match(shown, /signature: verified/);
    assert.deepEqual(JSON.parse(await cli(['sandbox', 'inbox', 'clear', '--json'])), { cleared: 1 });
    assert.match(await cli(['sandbox', 'inbox', 'list']), /^No captures/);
    assert.match(
      await cli(['sandbox', 'inbox', 'tap', '--endpoint', 'http://127.0.0.1:9/hooks']),
      /^Tapped: http:\/\/127\.0\.0\.1:9\/hooks/,
    );
    assert.match(
      await cli(['sandbox', 'inbox', 'tap', '--endpoint', 'http://127.0.0.1:9/hooks', '--remove']),
      /^No endpoint is tapped/,
    );
  });

  test('fault rules: added with one effect and one scope, listed with their uses, removed', async () => {
    const added = await cli([
      'sandbox',
      'faults',
      'add',
      '--endpoint',
      'http://127.0.0.1:9/hooks',
      '--timeout',
      '--next',
      '2',
      '--events',
      'order.*',
      '--expires',
      '10m',
    ]);
    const [, id] =
      /^Added fault rule (\S+): timeout on http:\/\/127\.0\.0\.1:9\/hooks \(order\.\*\), next 2, 2 left, until /.exec(
        added,
      ) ?? [];
    assert.ok(id, added);
    const { rule } = JSON.parse(
      await cli(['sandbox', 'faults', 'add', '--rail', 'payout', '--return', '--next', '1', '--json']),
    );
    assert.deepEqual([rule.target, rule.effect, rule.scope], ['payout', 'return', 'next 1']);
    const listed = await cli(['sandbox', 'faults', 'list']);
    assert.match(listed, new RegExp(`${id}  timeout on`));
    assert.match(listed, new RegExp(`${rule.id}  return on payout, next 1, 1 left`));
    assert.match(await cli(['sandbox', 'faults', 'remove', id!]), /^Removed fault rule /);
    assert.deepEqual(
      JSON.parse(await cli(['sandbox', 'faults', 'list', '--json'])).rules.map((r: { id: string }) => r.id),
      [rule.id],
    );
  });

  test('the clock, read and moved; and --merchant signs as its oldest active app', async () => {
    const before = JSON.parse(await cli(['sandbox', 'clock', '--json']));
    const moved = JSON.parse(await cli(['sandbox', 'clock', '--advance', '2h', '--json']));
    assert.equal(moved.offset_seconds - before.offset_seconds, 7200);
    const asMerchant = await runCli(
      ['sandbox', 'clock', '--merchant', merchant.merchantId, '--key', PRIVATE_KEY, '--base-url', server.url],
      server.env,
    );
    assert.equal(asMerchant.code, 0, asMerchant.stderr);
    assert.match(asMerchant.stdout, /s ahead of wall time\)\n$/);
  });
});
