#!/usr/bin/env node
// `npm start`'s prestart: builds (npm run build) only when a source is newer than the build's last output, the
// command manifest. `npm ci && npm start` built twice before (npm ci's prepare, then prestart), about 30 s here for
// nothing the second time. The build itself is incremental (tsc -b) and always right; this only skips starting it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const built = join(root, 'dist', 'src', 'commands.json');
const SOURCES = ['src', 'test', 'bench', 'client/src', 'scripts'];
const FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'client/tsconfig.json',
  'client/package.json',
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sourcesChanged = () => {
  const builtAt = statSync(built).mtimeMs;
  return [...SOURCES, ...FILES].some((path) => newest(join(root, path)) > builtAt);
};

if (!existsSync(built) || sourcesChanged()) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
