import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../..', import.meta.url).pathname;

// `npx paygate` runs the compiled file itself; tsc writes it without the executable bit, and npm adds it only when
// it links the package, so a fresh clone whose npx cache already knew the project answered "Permission denied".
test('every command of package.json bin is executable after the build', () => {
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(bin)) {
    assert.ok((statSync(join(root, file)).mode & 0o111) === 0o111, `${name}: ${file} is executable`);
  }
});
