#!/usr/bin/env node
// The first step of `npm run build`: marks when the build started (dist/.build-started), so that npm start's
// prestart (scripts/build-if-changed.js) sees a source saved while the build ran as newer than the build.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist', import.meta.url));
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, '.build-started'), `${new Date().toISOString()}\n`);
