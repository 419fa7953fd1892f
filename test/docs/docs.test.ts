import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { leafCommands } from '../../src/cli/help.js';
import { RETRY_DELAYS_MINUTES } from '../../src/events/retry-schedule.js';
import { COMMANDS, ERRORS, MODULES } from '../../src/modules.js';
import { PROJECT_ROOT } from '../../src/platform/version.js';
import { SCREENSHOT_FOLDER } from '../support/browser.js';

const doc = (name: string) => readFileSync(join(PROJECT_ROOT, 'docs', name), 'utf8');

/** scripts/generate-command-docs.js, which `npm run generate:docs` runs. */
interface CommandDocs {
  COMMAND: string;
  generateOperationsDoc(): Promise<string>;
}

const commandDocs = (await import(
  pathToFileURL(join(PROJECT_ROOT, 'scripts', 'generate-command-docs.js')).href
)) as CommandDocs;

describe('the docs agree with the code', () => {
  test('docs/errors.md lists exactly the closed list, with statuses and messages', () => {
    const rows = doc('errors.md')
      .split('\n')
      .filter((line) => /^\| `[^`]+` \| \d{3} \|/.test(line));
    assert.deepEqual(
      rows,
      Object.values(ERRORS).map((e) => `| \`${e.code}\` | ${e.status} | ${e.message} |`),
    );
  });

  test('docs/operations.md documents every command with its arguments and options, as their declarations say', async () => {
    const operations = doc('operations.md');
    for (const { path, command } of leafCommands(COMMANDS)) {
      assert.ok(operations.includes(`### \`paygate ${path.join(' ')}\``), `paygate ${path.join(' ')} has a section`);
      for (const name of Object.keys(command.options))
        assert.ok(operations.includes(`--${name}`), `paygate ${path.join(' ')} --${name}`);
    }
    const generated = await commandDocs.generateOperationsDoc();
    if (generated === operations) return;
    const [committedLines, generatedLines] = [operations.split('\n'), generated.split('\n')];
    const line = generatedLines.findIndex((text, index) => committedLines[index] !== text);
    assert.fail(
      `docs/operations.md's command reference is out of date: run \`${commandDocs.COMMAND}\` and commit the result.\n` +
        `First difference at line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n  generated: ${generatedLines[line] ?? '(end of file)'}`,
    );
  });

  test('docs/webhooks.md names every event a module sends', () => {
    const webhooks = doc('webhooks.md');
    const actions = MODULES.flatMap((module) => (module.events ?? []).map((type) => type.action));
    assert.ok(
      actions.includes('order.paid') && actions.includes('payment_token.deleted'),
      'the modules declare their events',
    );
    for (const action of actions) assert.ok(webhooks.includes(`\`${action}\``), `${action} is documented`);
  });

  test('docs/webhooks.md publishes the retry delays the sender uses', () => {
    const row = doc('webhooks.md')
      .split('\n')
      .find((line) => line.startsWith('| after |'));
    assert.ok(row, 'the retry table has an "after" row');
    const delays = row
      .split('|')
      .slice(2, -1)
      .map((cell) => Number(cell.trim()));
    assert.deepEqual(delays, [...RETRY_DELAYS_MINUTES]);
    const total = RETRY_DELAYS_MINUTES.reduce((sum, minutes) => sum + minutes, 0);
    assert.match(
      doc('webhooks.md'),
      new RegExp(
        `${RETRY_DELAYS_MINUTES.length + 1} attempts over ${Math.floor(total / 60)} hours ${total % 60} minutes`,
      ),
    );
    assert.ok(
      total < 24 * 60 && Math.max(...RETRY_DELAYS_MINUTES) <= 6 * 60,
      'within 24 hours, never more than 6 hours apart',
    );
  });

  test("the README names the folder the browser tests' screenshots land in", () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const named = /`(test-artifacts\/screenshots\/)sqlite\/` \(or `postgres\/`\)/.exec(readme);
    assert.ok(named, 'the README names the folder');
    assert.ok(
      [`${named[1]}sqlite`, `${named[1]}postgres`].includes(SCREENSHOT_FOLDER.split(sep).join('/')),
      SCREENSHOT_FOLDER,
    );
  });

  test('docs/customers.md does not say that payment tokens are still to come', () => {
    const text = doc('customers.md').replace(/\s+/g, ' ');
    assert.ok(!/every token value is refused|arrive with card binding \(a later issue\)/.test(text));
    assert.ok(text.includes('docs/payment-tokens.md'));
  });
});
