import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInProcess } from '../support/cli.js';
import { runCli } from '../support/processes.js';

// How `paygate` fails. A usage error (unknown option, missing value, argument or command) is one line and the help
// command to run, exit 2.

const hint = (at: string) => `Run "paygate ${at} --help" for its usage.\n`;

describe('usage errors', () => {
  test('an unknown option, a missing value, a missing or extra argument: one line, the help to run, exit 2', async () => {
    const cases: Array<[string[], string, string]> = [
      [['serve', '--bogus'], 'serve', 'unknown option --bogus'],
      [['call', 'GET', '/x', '-x'], 'call', 'unknown option -x'],
      [['merchant', 'create', '--name'], 'merchant create', '--name needs a value'],
      [['merchant', 'create', '--name', '--json'], 'merchant create', '--name needs a value'],
      [['merchant', 'create'], 'merchant create', '--name is required'],
      [['merchant', 'list', '--json=yes'], 'merchant list', '--json takes no value'],
      [['app', 'disable'], 'app disable', 'missing APP_ID'],
      [['app', 'disable', 'a', 'b'], 'app disable', 'unexpected argument "b"'],
      [['call', 'GET'], 'call', 'missing PATH'],
      [['app', 'webhook', 'a'], 'app webhook', 'give either URL or --clear'],
      [['webhooks', 'list', '--limit', '0'], 'webhooks list', '--limit must be a whole number from 1 to 1000'],
      [['app'], 'app', 'which command? create, list, disable, enable, webhook'],
      [['app', 'frob'], 'app', 'unknown command "frob" (create, list, disable, enable, webhook)'],
    ];
    for (const [args, at, message] of cases) {
      const result = await runInProcess(args);
      assert.deepEqual(result, { code: 2, stdout: '', stderr: `paygate ${at}: ${message}\n${hint(at)}` }, args.join(' '));
    }
    assert.deepEqual(await runInProcess(['frobnicate']),
      { code: 2, stdout: '', stderr: 'paygate: unknown command "frobnicate"\nRun "paygate --help" for the commands.\n' });
  });

  test('in a process: an unknown option of paygate serve or paygate call, exit 2 and no stack', async () => {
    for (const [args, at] of [[['serve', '--bogus'], 'serve'], [['call', '--bogus', 'GET', '/'], 'call']] as const) {
      const result = await runCli([...args], {});
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `paygate ${at}: unknown option --bogus\n${hint(at)}`);
    }
  });
});
