import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineCommand, defineCommandGroup } from '../../src/cli/command.js';
import type { Program } from '../../src/cli/help.js';
import { commandManifest, lazyCommands } from '../../src/cli/manifest.js';
import { runCommandLine } from '../../src/cli/run.js';

/** Groups inside groups (`paygate sandbox snapshot save NAME`): parsed, run and helped at every level. */

const ran: string[] = [];
const SAVE = defineCommand({
  name: 'save',
  summary: 'save a snapshot',
  arguments: [{ name: 'name', description: 'its name' }],
  options: { force: { type: 'boolean', description: 'replace one of that name' } },
  async run({ args, options }) {
    ran.push(`save ${args.name}${options.force ? ' forced' : ''}`);
  },
});
const RESET = defineCommand({
  name: 'reset',
  summary: 'empty the world',
  async run() {
    ran.push('reset');
    return 3;
  },
});
const SNAPSHOT = defineCommandGroup({ name: 'snapshot', summary: 'named snapshots', commands: [SAVE] });
const SANDBOX = defineCommandGroup({ name: 'sandbox', summary: 'the lab', commands: [SNAPSHOT, RESET] });
const program: Program = { name: 'paygate', summary: 'test', commands: [SANDBOX] };
const deps = {} as never;

async function run(argv: string[], on: Program = program) {
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(argv, on, deps, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('nested command groups', () => {
  test('run the command their words name, with its arguments and options, and its exit code', async () => {
    ran.length = 0;
    assert.equal((await run(['sandbox', 'snapshot', 'save', 'before-refund', '--force'])).code, 0);
    assert.equal((await run(['sandbox', 'reset'])).code, 3);
    assert.deepEqual(ran, ['save before-refund forced', 'reset']);
  });

  test('help at every level lists what is below, by its words', async () => {
    const top = await run(['--help']);
    assert.match(top.stdout, /sandbox snapshot save\s+save a snapshot/);
    assert.match(top.stdout, /sandbox reset\s+empty the world/);
    for (const argv of [
      ['sandbox', '--help'],
      ['help', 'sandbox'],
    ]) {
      const group = await run(argv);
      assert.equal(group.code, 0);
      assert.match(group.stdout, /^Usage: paygate sandbox COMMAND/);
      assert.match(group.stdout, /snapshot save\s+save a snapshot/);
    }
    for (const argv of [
      ['sandbox', 'snapshot', '-h'],
      ['help', 'sandbox', 'snapshot'],
      ['sandbox', 'help', 'snapshot'],
    ]) {
      const group = await run(argv);
      assert.equal(group.code, 0, argv.join(' '));
      assert.match(group.stdout, /^Usage: paygate sandbox snapshot COMMAND/, argv.join(' '));
    }
    for (const argv of [
      ['sandbox', 'snapshot', 'save', '--help'],
      ['help', 'sandbox', 'snapshot', 'save'],
    ]) {
      const command = await run(argv);
      assert.match(command.stdout, /^Usage: paygate sandbox snapshot save NAME \[--force\]/, argv.join(' '));
    }
  });

  test('a wrong or missing word is a usage error naming the group and its commands', async () => {
    const unknown = await run(['sandbox', 'snapshot', 'take']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^paygate sandbox snapshot: unknown command "take" \(save\)/);
    const missing = await run(['sandbox', 'snapshot']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /which command\? save/);
    const argument = await run(['sandbox', 'snapshot', 'save']);
    assert.match(argument.stderr, /^paygate sandbox snapshot save: missing NAME/);
  });

  test('the manifest keeps the nesting, and its lazy commands load and run the real one', async () => {
    const manifest = commandManifest([SANDBOX], () => ({ file: './lab.js', exportName: 'SANDBOX' }));
    assert.deepEqual(JSON.parse(JSON.stringify(manifest.entries[0])).commands[0].commands[0].arguments, [
      { name: 'name', description: 'its name' },
    ]);
    const loads: string[] = [];
    const lazy = lazyCommands(JSON.parse(JSON.stringify(manifest)), async (source) => {
      loads.push(source.exportName);
      return SANDBOX;
    });
    ran.length = 0;
    assert.equal((await run(['sandbox', 'snapshot', 'save', 'x'], { ...program, commands: lazy })).code, 0);
    assert.equal((await run(['sandbox', 'reset'], { ...program, commands: lazy })).code, 3);
    assert.deepEqual(ran, ['save x', 'reset']);
    assert.deepEqual(loads, ['SANDBOX']);
  });
});
