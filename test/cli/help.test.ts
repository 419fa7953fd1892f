import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { leafCommands } from '../../src/cli/help.js';
import { COMMANDS } from '../../src/modules.js';
import { runInProcess } from '../support/cli.js';
import { inParallel, runCli } from '../support/processes.js';

// `--help`, `-h` and `help` at every level of `paygate` (the program, a group such as `merchant`, a command such
// as `merchant create`): the usage on stdout, exit 0, nothing else run. Every form is tried in-process (fast);
// every command's `--help` also in a process of its own, as an operator types it.

const LEAVES = leafCommands(COMMANDS);
const GROUPS = COMMANDS.filter((entry) => entry.kind === 'group');
/** Help must open nothing: a database here would refuse, and the data folder must not appear. */
const NOWHERE = {
  PAYGATE_DATA_DIR: join(tmpdir(), `paygate-help-${randomUUID()}`),
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
};
const flat = (text: string) => text.replace(/\s+/g, ' ');

function assertCommandHelp(path: string[], result: { code: number; stdout: string; stderr: string }) {
  const { command } = LEAVES.find((leaf) => leaf.path.join(' ') === path.join(' '))!;
  const shown = `${path.join(' ')}: ${result.stderr}`;
  assert.equal(result.code, 0, shown);
  assert.equal(result.stderr, '', shown);
  assert.ok(result.stdout.startsWith(`Usage: paygate ${path.join(' ')}`), result.stdout);
  assert.ok(
    flat(result.stdout).toLowerCase().includes(flat(command.summary).toLowerCase()),
    `${path.join(' ')} shows its summary`,
  );
  for (const [name, spec] of Object.entries(command.options)) {
    assert.ok(result.stdout.includes(`--${name}`), `${path.join(' ')} --help shows --${name}`);
    assert.ok(flat(result.stdout).includes(flat(spec.description)), `${path.join(' ')} --help describes --${name}`);
  }
  for (const argument of command.arguments) {
    assert.ok(
      flat(result.stdout).includes(flat(argument.description)),
      `${path.join(' ')} --help describes ${argument.name}`,
    );
  }
}

describe('every paygate command answers --help', () => {
  test('the program, every group and every command, with --help, -h or help, in-process', async () => {
    assert.ok(LEAVES.length >= 12 && GROUPS.length >= 3, 'the commands are declared');
    for (const args of [[], ['--help'], ['-h'], ['help']]) {
      const result = await runInProcess(args);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout, /^paygate: .*\n\nUsage: paygate COMMAND/);
      for (const { path, command } of LEAVES)
        assert.ok(flat(result.stdout).includes(`${path.join(' ')} ${flat(command.summary)}`), path.join(' '));
    }
    for (const group of GROUPS) {
      for (const args of [
        [group.name, '--help'],
        [group.name, '-h'],
        [group.name, 'help'],
        ['help', group.name],
      ]) {
        const result = await runInProcess(args);
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.ok(result.stdout.startsWith(`Usage: paygate ${group.name} COMMAND`), result.stdout);
        for (const { path, command } of leafCommands(group.commands))
          assert.ok(
            flat(result.stdout).includes(`${path.join(' ')} ${flat(command.summary)}`),
            `${group.name} ${path.join(' ')}`,
          );
      }
    }
    for (const { path } of LEAVES) {
      for (const args of [
        [...path, '--help'],
        [...path, '-h'],
        [...path, 'help'],
        ['help', ...path],
      ]) {
        assertCommandHelp(path, await runInProcess(args));
      }
    }
  });

  test('--help wins over any other mistake on the line, but not after --', async () => {
    assertCommandHelp(
      ['merchant', 'create'],
      await runInProcess(['merchant', 'create', '--bogus', '--name', '--help']),
    );
    assertCommandHelp(['app', 'webhook'], await runInProcess(['app', 'webhook', 'a', 'b', 'c', '-h']));
    const afterTerminator = await runInProcess(['app', 'disable', '--', '--help', 'more']);
    assert.equal(afterTerminator.code, 2, 'after -- it is an argument like any other');
  });

  test('in a process of its own, every command and group answers --help with its usage on stdout, and opens nothing', async () => {
    const cases = [[], ...GROUPS.map((group) => [group.name]), ...LEAVES.map(({ path }) => path)];
    const results = await inParallel(cases, 4, (path) => runCli([...path, '--help'], NOWHERE));
    cases.forEach((path, index) => {
      const result = results[index]!;
      const shown = `paygate ${path.join(' ')} --help: ${result.stderr}`;
      assert.equal(result.code, 0, shown);
      assert.equal(result.stderr, '', shown);
      assert.doesNotMatch(result.stdout, /^\s+at /m, shown);
      if (path.length === 0) assert.match(result.stdout, /^paygate: /);
      else if (GROUPS.some((group) => group.name === path[0] && path.length === 1))
        assert.ok(result.stdout.startsWith(`Usage: paygate ${path[0]} COMMAND`), shown);
      else assertCommandHelp(path, result);
    });
    assert.ok(!existsSync(NOWHERE.PAYGATE_DATA_DIR), 'no command made the data folder');
  });

  test('paygate call --help describes its arguments and options instead of a parser error', async () => {
    const result = await runCli(['call', '--help'], NOWHERE);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.match(result.stdout, /^Usage: paygate call METHOD PATH \[JSON \| @FILE \| -\]/);
    for (const option of [
      '--app APP_ID',
      '--key PRIVATE_KEY.pem',
      '--base-url URL',
      '--idempotency-key KEY',
      '-i, --include',
      '--json',
    ]) {
      assert.ok(result.stdout.includes(option), option);
    }
  });
});
