import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../..', import.meta.url).pathname;

// Issue 35: `npm ci && npm start` built the TypeScript twice (npm ci's prepare, then prestart). npm start's prestart
// now builds only when a source is newer than the build's last output: right after `npm test`'s own build (pretest),
// it must leave the build alone.
test('npm start builds nothing when nothing changed since the last build', () => {
  const manifest = join(root, 'dist', 'src', 'commands.json');
  const before = statSync(manifest).mtimeMs;
  const result = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'prestart'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, '', 'prestart printed nothing: no build ran');
  assert.equal(statSync(manifest).mtimeMs, before, 'the build output was not written again');
});
