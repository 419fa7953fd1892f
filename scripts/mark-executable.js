#!/usr/bin/env node
// Makes the compiled commands of package.json's `bin` executable. tsc writes them 0644, and `npx paygate` runs the
// file itself: npm marks it executable only when it links the package, which a rebuilt dist/ no longer has.
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const file of Object.values(bin)) chmodSync(join(root, file), 0o755);
