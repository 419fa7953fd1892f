// The files under a folder, for the scripts: every path (not folders), absolute, in no particular order.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => statSync(path).isFile());
}
