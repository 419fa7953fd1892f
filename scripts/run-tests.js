#!/usr/bin/env node
// Runs the compiled test files with node's test runner: `npm test` (everything) or `npm test -- customers auth`
// (files whose name contains one of the words); `--except=fuzz,crash` leaves out the files whose name contains one
// of those. Set DATABASE_URL to run the same suite on PostgreSQL.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesUnder } from './files.js';

const root = new URL('..', import.meta.url).pathname;
const compiled = join(root, 'dist', 'test');

const args = process.argv.slice(2);
const except = args
  .filter((arg) => arg.startsWith('--except='))
  .flatMap((arg) => arg.slice('--except='.length).split(','))
  .filter(Boolean);
const words = args.filter((arg) => !arg.startsWith('--except='));
const files = filesUnder(compiled)
  .filter((file) => file.endsWith('.test.js'))
  // A test deleted from test/ may still have its compiled copy in dist/: skip those.
  .filter((file) => existsSync(join(root, 'test', relative(compiled, file).replace(/\.js$/, '.ts'))))
  // Match the name under dist/test only: the checkout's own folder name (say wt-client) must not match every file.
  .filter((file) => words.length === 0 || words.some((word) => relative(compiled, file).includes(word)))
  .filter((file) => !except.some((word) => relative(compiled, file).includes(word)))
  .sort();

if (files.length === 0) {
  console.error('No test files matched.');
  process.exit(1);
}
console.error(`Running ${files.length} test files on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, PAYGATE_TEST: '1' } },
);
process.exit(result.status ?? 1);
