import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { CommandEntry } from '../../src/cli/command.js';
import type { CommandManifest } from '../../src/cli/manifest.js';
import { COMMANDS } from '../../src/modules.js';

// Issue 35: the command line loads only what a command needs. The build writes the manifest (every command's
// declaration, and the file holding its code); `paygate` answers --help from it and loads one command's file to run
// it. Here: the manifest says what the commands declare, each source is the command itself, and what the process
// loads for --help and for `call` (recorded by a module hook, not timed: the bench times it, bench/cli-start.ts).

const root = new URL('../../..', import.meta.url).pathname;
const compiled = join(root, 'dist', 'src');
const manifest = JSON.parse(readFileSync(join(compiled, 'commands.json'), 'utf8')) as CommandManifest;
const declared = (entry: CommandEntry): unknown => {
  if (entry.kind === 'group') return { ...entry, commands: entry.commands.map(declared) };
  const { run: _run, ...declaration } = entry;
  return declaration;
};

describe('the command manifest', () => {
  test('declares every command as its code does, in order', () => {
    const fromCode = COMMANDS.map(declared);
    const fromManifest = manifest.entries.map(({ source: _source, ...entry }) => entry);
    assert.deepEqual(JSON.parse(JSON.stringify(fromManifest)), JSON.parse(JSON.stringify(fromCode)));
  });

  test("names, for each entry, the compiled file and export that are the command's code", async () => {
    for (const [index, entry] of manifest.entries.entries()) {
      const loaded = (await import(pathToFileURL(join(compiled, entry.source.file)).href)) as Record<string, unknown>;
      assert.equal(loaded[entry.source.exportName], COMMANDS[index], `paygate ${entry.name}`);
    }
  });
});

describe('what a command loads', () => {
  const folder = mkdtempSync(join(tmpdir(), 'paygate-loads-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const hook = join(folder, 'hook.mjs');
  const register = join(folder, 'register.mjs');
  writeFileSync(
    hook,
    `export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      process.stderr.write('LOADED ' + resolved.url + '\\n');
      return resolved;
    }\n`,
  );
  writeFileSync(
    register,
    // In-thread hooks where Node has them (22.15 and later; on 26 the off-thread ones no longer saw the entry's
    // imports), the off-thread ones on Node 20.
    `import * as module from 'node:module';
if (module.registerHooks) {
  module.registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      process.stderr.write('LOADED ' + resolved.url + '\\n');
      return resolved;
    },
  });
} else {
  module.register(${JSON.stringify(pathToFileURL(hook).href)});
}\n`,
  );

  /** The files of dist/src and the packages a `paygate ARGS` process imported. */
  function loadedBy(args: string[]): string[] {
    const result = spawnSync(process.execPath, ['--import', register, join(compiled, 'paygate.js'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, PAYGATE_DATA_DIR: folder, PAYGATE_PUBLIC_BASE_URL: 'http://127.0.0.1:9' },
    });
    return [...result.stderr.matchAll(/^LOADED (\S+)$/gm)].map(([, url]) =>
      url!.replace(pathToFileURL(compiled).href, 'src').replace(/^.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, '$1'),
    );
  }

  const CAPABILITIES =
    /^src\/(batches|customers|echo|issuing|ledger|merchants|orders|payment-tokens|payouts|recurring|sandbox|users|webhooks)\//;
  const PLATFORM_AT_LARGE = ['src/modules.js', 'src/server.js', 'better-sqlite3', 'kysely', 'pg', 'fastify'];

  test('--help: the manifest only, no capability, database driver or server', () => {
    const loaded = loadedBy(['--help']);
    assert.ok(loaded.includes('src/cli/manifest.js'), loaded.join('\n'));
    assert.deepEqual(
      loaded.filter((file) => CAPABILITIES.test(file) || PLATFORM_AT_LARGE.includes(file)),
      [],
    );
  });

  test('call: its own files and the SDK, nothing of the platform beyond its configuration', () => {
    const loaded = loadedBy([
      'call',
      'GET',
      '/svc/payment/api/v1/openapi/customers/nobody',
      '--app',
      'A',
      '--key',
      hook,
    ]);
    assert.ok(loaded.includes('src/merchants/cli/call.js'), loaded.join('\n'));
    assert.deepEqual(
      loaded.filter(
        (file) =>
          (CAPABILITIES.test(file) &&
            !file.startsWith('src/merchants/cli/') &&
            file !== 'src/merchants/demo-file.js') ||
          PLATFORM_AT_LARGE.includes(file),
      ),
      [],
    );
  });

  test('an operator command loads the platform when it runs (the manifest defers, it does not cut)', () => {
    const loaded = loadedBy(['merchant', 'list']);
    assert.ok(loaded.includes('src/modules.js'), loaded.join('\n'));
  });
});
