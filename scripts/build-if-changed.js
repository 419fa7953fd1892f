#!/usr/bin/env node
// `npm start`'s prestart: builds (npm run build) unless the last build finished and no source is newer than its
// start. `npm ci && npm start` built twice before (npm ci's prepare, then prestart), about 30 s here for nothing the
// second time. The build itself is incremental (tsc -b) and always right; this only skips starting it. Sources
// copied with their old times (cp -p, rsync -a, an archive) are not seen as changed: run `npm run build` after such
// a copy.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = join(root, 'dist', '.build-started');
const finished = join(root, 'dist', 'src', 'commands.json');
const OUTPUTS = [join(root, 'dist', 'src', 'paygate.js'), join(root, 'dist', '.tsbuildinfo'), finished];
const SOURCES = ['src', 'test', 'bench', 'client/src', 'scripts'];
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'client/tsconfig.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function upToDate() {
  if (!existsSync(started) || !OUTPUTS.every((output) => existsSync(output))) return false;
  const startedAt = statSync(started).mtimeMs;
  if (statSync(finished).mtimeMs < startedAt) return false; // the last build did not finish
  return [...SOURCES, ...FILES].every((path) => newest(join(root, path)) < startedAt);
}

if (!upToDate()) {
  // npm runs this script with npm_execpath set: npm's own CLI, run by this Node (no shell, on any platform).
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(result.status ?? 1);
}
