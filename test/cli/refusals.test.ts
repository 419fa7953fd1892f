import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Command, CommandEntry } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/modules.js';
import { xlsxWithRows } from '../batches/sheets.js';
import { type CliResult, inParallel, runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// Issue 35's defects: a command's refusal is one line and exit 1, whether the server it calls refused (no stack
// trace) or the merchant it names does not exist (no "the ledger agrees" for a merchant that is not there, no usage
// error); and an operator's command needs no --merchant where the database has one merchant.

const PRIVATE_KEY = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');
const PUBLIC_KEY = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-public-key.pem');

let server: TestServer;
let merchant: TestMerchant;
/** A live server: it refuses every lab command (900101), those that a sandbox has no refusal for included. */
let live: TestServer;
let liveMerchant: TestMerchant;
let folder: string;

before(async () => {
  server = await startTestServer();
  merchant = await server.newMerchant();
  live = await startTestServer({ env: { PAYGATE_MODE: 'live', PAYGATE_SECRET: '34'.repeat(32) } });
  liveMerchant = await live.newMerchant();
  folder = mkdtempSync(join(tmpdir(), 'paygate-refusals-'));
});
after(async () => {
  rmSync(folder, { recursive: true, force: true });
  await server.close();
  await live.close();
});

function assertRefusal(result: CliResult, line: RegExp, what: string): void {
  assert.equal(result.code, 1, `${what}: ${result.stdout}${result.stderr}`);
  assert.equal(result.stdout, '', what);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack`);
  assert.equal(result.stderr.split('\n').length, 2, `${what}: one line: ${result.stderr}`);
  assert.match(result.stderr, line, what);
}

/** Every command, wherever it is in the groups, by its full name. */
function commands(entries: readonly CommandEntry[], prefix: string[] = []): Array<{ name: string; command: Command }> {
  return entries.flatMap((entry) =>
    entry.kind === 'command'
      ? [{ name: [...prefix, entry.name].join(' '), command: entry }]
      : commands(entry.commands, [...prefix, entry.name]),
  );
}

describe('a server that refuses what a command asked', () => {
  test('every command that calls the API says the refusal in one line, its code and message, and exits 1', async () => {
    const signed = ['--app', merchant.appId, '--key', PRIVATE_KEY, '--base-url', server.url];
    const misnumbered = join(folder, 'misnumbered.xlsx');
    writeFileSync(
      misnumbered,
      xlsxWithRows(['2', '2'], (r) => ['payment', `R-${r}`, randomUUID(), '1.00', 'tok']),
    );
    const liveSigned = ['--app', liveMerchant.appId, '--key', PRIVATE_KEY, '--base-url', live.url];
    const inLive = (args: string[]) => [...args, ...liveSigned];
    const LIVE = /^error 900101: The sandbox lab is not available in live mode\.\n$/;
    const cases: Array<[string, string[], RegExp]> = [
      ['issuing authorize', ['issuing', 'authorize', randomUUID(), '10.00'], /^error \d+: Card not found\.\n$/],
      ['issuing endpoint', ['issuing', 'endpoint', '--url', 'ftp://decisions.example.com'], /^error 100207: .*url/],
      ['batch upload', ['batch', 'upload', misnumbered], /^error 600104: Row 2 comes after row 2/],
      ['batch show', ['batch', 'show', randomUUID()], /^error 600101: Batch not found\.\n$/],
      ['listen', ['listen', '--events', 'Order Paid'], /^error 900203: events is a comma-separated list/],
      ['trigger', ['trigger', 'order.unheard_of'], /^error 900401: /],
      ['sandbox clock', ['sandbox', 'clock', '--advance', '999d'], /^error 100207: /],
      ['sandbox inbox url', inLive(['sandbox', 'inbox', 'url']), LIVE],
      ['sandbox inbox list', ['sandbox', 'inbox', 'list', '--filter', 'answer.status[_gte]=many'], /^error 100207: /],
      ['sandbox inbox show', ['sandbox', 'inbox', 'show', randomUUID()], /^error 900201: Capture not found\.\n$/],
      ['sandbox inbox clear', inLive(['sandbox', 'inbox', 'clear']), LIVE],
      ['sandbox inbox tap', ['sandbox', 'inbox', 'tap', '--endpoint', 'ftp://x/y'], /^error 900202: /],
      [
        'sandbox faults add',
        ['sandbox', 'faults', 'add', '--endpoint', 'http://x/y', '--status', '500'],
        /^error 900302: /,
      ],
      ['sandbox faults list', inLive(['sandbox', 'faults', 'list']), LIVE],
      [
        'sandbox faults remove',
        ['sandbox', 'faults', 'remove', randomUUID()],
        /^error 900301: Fault rule not found\.\n$/,
      ],
      ['sandbox snapshot save', ['sandbox', 'snapshot', 'save', 'not a name'], /^error 100207: /],
      ['sandbox snapshot list', inLive(['sandbox', 'snapshot', 'list']), LIVE],
      ['sandbox snapshot restore', ['sandbox', 'snapshot', 'restore', 'nowhere'], /^error 900501: /],
      ['sandbox snapshot delete', ['sandbox', 'snapshot', 'delete', 'nowhere'], /^error 900501: /],
      ['sandbox reset', inLive(['sandbox', 'reset']), LIVE],
    ];
    // `paygate call` prints what the server answered, whatever it was: that is what it is for.
    const callers = commands(COMMANDS)
      .filter(({ command }) => 'base-url' in command.options)
      .map(({ name }) => name)
      .filter((name) => name !== 'call');
    assert.deepEqual(callers.sort(), cases.map(([name]) => name).sort(), 'a case for every command that calls the API');
    const results = await inParallel(cases, 4, ([, args]) =>
      runCli(args.includes('--base-url') ? args : [...args, ...signed], server.env),
    );
    for (const [index, [name, , line]] of cases.entries()) assertRefusal(results[index]!, line, name);
    const json = await runCli(['batch', 'show', randomUUID(), ...signed, '--json'], server.env);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), { error: { code: '600101', message: 'Batch not found.' } });
  });
});

describe("an operator's command and the merchant it names", () => {
  /** `paygate ARGS...` against the test server's database (the server runs: commands may act beside it). */
  const operator = (args: string[]) => runCli(args, { ...server.env, LOG_LEVEL: 'silent' });

  const OPERATORS: Array<[string, string[]]> = [
    ['balance', ['balance']],
    ['ledger check', ['ledger', 'check']],
    ['payouts list', ['payouts', 'list']],
    ['payouts approve', ['payouts', 'approve', randomUUID()]],
    ['payouts reject', ['payouts', 'reject', randomUUID()]],
    ['payouts cancel', ['payouts', 'cancel', randomUUID()]],
    ['payouts threshold', ['payouts', 'threshold', '--currency', 'HKD']],
    ['plans list', ['plans', 'list']],
    ['plans show', ['plans', 'show', randomUUID()]],
    ['app create', ['app', 'create', '--public-key', PUBLIC_KEY]],
    ['app list', ['app', 'list']],
    ['dashboard user add', ['dashboard', 'user', 'add', '--email', 'x@shop.test', '--role', 'viewer']],
    ['dashboard user list', ['dashboard', 'user', 'list']],
    // The lab's commands sign as the merchant's oldest active app.
    ['listen', ['listen']],
    ['trigger', ['trigger', 'order.paid']],
    ['sandbox clock', ['sandbox', 'clock']],
    ['sandbox inbox url', ['sandbox', 'inbox', 'url']],
    ['sandbox inbox list', ['sandbox', 'inbox', 'list']],
    ['sandbox inbox show', ['sandbox', 'inbox', 'show', randomUUID()]],
    ['sandbox inbox clear', ['sandbox', 'inbox', 'clear']],
    ['sandbox inbox tap', ['sandbox', 'inbox', 'tap', '--endpoint', 'http://x/y']],
    ['sandbox faults add', ['sandbox', 'faults', 'add', '--endpoint', 'http://x/y', '--status', '500', '--next', '1']],
    ['sandbox faults list', ['sandbox', 'faults', 'list']],
    ['sandbox faults remove', ['sandbox', 'faults', 'remove', randomUUID()]],
    ['sandbox snapshot save', ['sandbox', 'snapshot', 'save', 'x']],
    ['sandbox snapshot list', ['sandbox', 'snapshot', 'list']],
    ['sandbox snapshot restore', ['sandbox', 'snapshot', 'restore', 'x']],
    ['sandbox snapshot delete', ['sandbox', 'snapshot', 'delete', 'x']],
    ['sandbox reset', ['sandbox', 'reset']],
  ];

  test('every command that takes --merchant refuses one the database does not have: one line, exit 1', async () => {
    const takers = commands(COMMANDS)
      .filter(({ command }) => 'merchant' in command.options)
      .map(({ name }) => name);
    assert.deepEqual(
      takers.sort(),
      OPERATORS.map(([name]) => name).sort(),
      'a case for every command that takes --merchant',
    );
    const cases = [randomUUID(), 'nope'].flatMap((unknown) =>
      OPERATORS.map(([name, args]) => ({ name, args, unknown })),
    );
    const results = await inParallel(cases, 4, ({ args, unknown }) => operator([...args, '--merchant', unknown]));
    for (const [index, { name, unknown }] of cases.entries()) {
      assertRefusal(
        results[index]!,
        new RegExp(`^error 100501: merchant ${unknown} not found\n$`),
        `${name} --merchant ${unknown}`,
      );
    }
  });

  test('without --merchant, the only merchant of the database; with several, --merchant is required (exit 2)', async () => {
    const listed = await operator(['payouts', 'list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), { payout_requests: [], limit: 50, total: 0 });
    const apps = await operator(['app', 'list', '--json']);
    assert.equal(apps.code, 0, apps.stderr);
    assert.deepEqual(
      (JSON.parse(apps.stdout) as { apps: Array<{ app_id: string }> }).apps.map((app) => app.app_id),
      [merchant.appId],
    );
    const balance = await operator(['balance', '--merchant', merchant.merchantId, '--json']);
    assert.equal(balance.code, 0, balance.stderr);
    await server.newMerchant({ name: 'A second merchant' });
    const several = await operator(['payouts', 'list']);
    assert.equal(several.code, 2);
    assert.match(several.stderr, /^paygate payouts list: --merchant is required: this database has several merchants/);
  });
});
