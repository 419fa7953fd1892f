import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../src/platform/version.js';

/** scripts/generate-client-types.js, which `npm run generate:client` runs. */
interface Generator {
  OUTPUT: string;
  COMMAND: string;
  generateClientTypes(): Promise<string>;
}

const generator = (await import(
  pathToFileURL(join(PROJECT_ROOT, 'scripts', 'generate-client-types.js')).href
)) as Generator;

test("the client's generated types are what the server's route declarations make today", async () => {
  const generated = await generator.generateClientTypes();
  const committed = readFileSync(generator.OUTPUT, 'utf8');
  if (committed === generated) return;
  const committedLines = committed.split('\n');
  const generatedLines = generated.split('\n');
  const line = generatedLines.findIndex((text, index) => committedLines[index] !== text);
  assert.fail(
    `${relative(PROJECT_ROOT, generator.OUTPUT)} is out of date: run \`${generator.COMMAND}\` and commit the result ` +
      `(a route's schemas changed; the client's types in client/src/types.ts may need to follow).\n` +
      `First difference at line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n` +
      `  generated: ${generatedLines[line] ?? '(end of file)'}`,
  );
});

test('the generated types do not depend on the machine that made them', async () => {
  const committed = readFileSync(generator.OUTPUT, 'utf8');
  assert.ok(!committed.includes(tmpdir()), 'no temporary path');
  assert.doesNotMatch(
    committed,
    /(127\.0\.0\.1|localhost|\[::1\]):\d+/,
    'no address of the server that served the document',
  );
  assert.doesNotMatch(committed, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, 'no time of generation');
});
