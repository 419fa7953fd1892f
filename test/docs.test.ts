import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ERRORS } from '../src/platform/errors.js';
import { PROJECT_ROOT } from '../src/platform/version.js';

const doc = (name: string) => readFileSync(join(PROJECT_ROOT, 'docs', name), 'utf8');

describe('the docs agree with the code', () => {
  test('docs/errors.md lists exactly the closed list, with statuses and messages', () => {
    const rows = doc('errors.md').split('\n').filter((line) => /^\| `[^`]+` \| \d{3} \|/.test(line));
    assert.deepEqual(rows, Object.values(ERRORS).map((e) => `| \`${e.code}\` | ${e.status} | ${e.message} |`));
  });
});
