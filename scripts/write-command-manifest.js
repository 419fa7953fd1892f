#!/usr/bin/env node
// Part of `npm run build`: writes dist/src/commands.json, the command manifest (src/cli/manifest.ts) that lets
// `paygate` answer --help and run a command without loading every capability. Each top-level command or group is
// found in the compiled file that exports it: a capability declares its commands in its cli.ts or cli/ folder,
// and the platform's own in src/cli/; a command found nowhere there fails the build.
import { writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { filesUnder } from './files.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist', 'src');
const { COMMANDS } = await import(pathToFileURL(join(compiled, 'modules.js')).href);
const { commandManifest } = await import(pathToFileURL(join(compiled, 'cli', 'manifest.js')).href);

const candidates = filesUnder(compiled)
  .map((file) => relative(compiled, file).split(sep).join('/'))
  .filter((file) => /(^|\/)(cli\.js|cli\/[^/]+\.js)$/.test(file));
const sources = new Map();
for (const file of candidates) {
  const exports = await import(pathToFileURL(join(compiled, file)).href);
  for (const [exportName, value] of Object.entries(exports)) {
    if (COMMANDS.includes(value) && !sources.has(value)) sources.set(value, { file: `./${file}`, exportName });
  }
}
const manifest = commandManifest(COMMANDS, (entry) => {
  const source = sources.get(entry);
  if (!source) throw new Error(`paygate ${entry.name}: not exported by any cli.js or cli/*.js under dist/src`);
  return source;
});
writeFileSync(join(compiled, 'commands.json'), `${JSON.stringify(manifest, null, 1)}\n`);
