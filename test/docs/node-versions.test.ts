import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import semver from 'semver';
import { PROJECT_ROOT } from '../../src/platform/version.js';

// The README's commands (`npm ci`, `npm start`, `npm test`) must work, without an EBADENGINE warning, on every Node
// version package.json's `engines` names: that range must lie inside the range of every package the lock installs.

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

const read = (name: string) => readFileSync(join(PROJECT_ROOT, name), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  engines: { node: string };
  overrides?: Record<string, string | Record<string, string>>;
};
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockedPackage> };
const supported = manifest.engines.node;

/** The lock's paths of the SQLite driver for Node-API 10 and of the one for Node 20. */
const SQLITE_DRIVERS = ['node_modules/better-sqlite3', 'node_modules/better-sqlite3-12'];

/** What a locked package says of Node: `engines.node`, or the old array form (`["node >= 0.4"]`). */
function nodeRange(engines: LockedPackage['engines']): string | undefined {
  if (Array.isArray(engines)) {
    const entry = engines.find((item) => /^node\b/.test(item.trim()));
    return entry?.trim().replace(/^node\s*/, '');
  }
  return engines?.node;
}

/** The comparator sets of a range, `>=24.0.0 <24.19.0` for its last part: each a stretch of one Node line. */
function lines(range: string): { lowest: semver.SemVer; below?: semver.SemVer }[] {
  return new semver.Range(range).set.map((comparators) => {
    const lowest = semver.minVersion(comparators.map((c) => c.value).join(' '));
    assert.ok(lowest, `${range} has a lowest version in each of its parts`);
    const below = comparators.find((c) => c.operator === '<' && c.semver.prerelease.length === 0)?.semver;
    return below ? { lowest, below } : { lowest };
  });
}

/** How the README says one line: `24` (all of it), `20 (20.19 or newer)`, `24 up to 24.18`. */
function inWords({ lowest, below }: { lowest: semver.SemVer; below?: semver.SemVer }): string {
  const from =
    lowest.minor === 0 && lowest.patch === 0
      ? `${lowest.major}`
      : `${lowest.major} (${lowest.major}.${lowest.minor} or newer)`;
  if (!below || below.major > lowest.major) return from;
  assert.ok(below.minor > 0 && below.patch === 0, `an upper bound the README can say in words: <${below.version}`);
  return `${from} up to ${below.major}.${below.minor - 1}`;
}

describe('the Node versions paygate supports', () => {
  test('package.json names a bounded range of long-term Node lines', () => {
    assert.ok(semver.validRange(supported), `engines.node is a valid range: ${supported}`);
    assert.ok(
      !semver.satisfies('999.0.0', supported),
      `${supported} has an upper bound: a future Node is not supported before it is tested`,
    );
    for (const { lowest } of lines(supported)) {
      assert.equal(lowest.major % 2, 0, `${lowest.version}: odd Node lines are never long-term supported`);
    }
  });

  test('every package the lock installs runs on every Node version package.json names', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => !SQLITE_DRIVERS.includes(path))
      .map(([path, locked]) => ({
        name: path.replace(/^.*node_modules\//, '') || '(root)',
        locked,
        range: nodeRange(locked.engines),
      }))
      .filter(({ range }) => range !== undefined && !semver.subset(supported, range))
      .map(({ name, locked, range }) => `${name}@${locked.version ?? '?'} needs node ${range}`);
    assert.deepEqual(refusing, [], `npm ci warns EBADENGINE on part of ${supported}`);
  });

  test('the two SQLite drivers are optional, skipped by npm where their Node range ends, and cover every Node together', () => {
    // docs/architecture.md, "Node versions": better-sqlite3 13 (Node-API 10, from Node 22.14) and 12 (for Node 20).
    const [modern, legacy] = SQLITE_DRIVERS.map((path) => lock.packages[path]);
    assert.ok(modern?.version && legacy?.version, 'both drivers are in the lock');
    assert.ok(semver.major(modern.version) >= 13, `better-sqlite3 ${modern.version} is built on Node-API`);
    assert.equal(semver.major(legacy.version), 12, 'better-sqlite3-12 is the 12.x line, the last that runs on Node 20');
    for (const driver of [modern, legacy]) assert.equal((driver as { optional?: boolean }).optional, true);
    const together = [modern, legacy].map((driver) => nodeRange(driver.engines) ?? '*').join(' || ');
    assert.ok(semver.subset(supported, together), `${together} covers ${supported}`);
    assert.ok(
      !semver.intersects(nodeRange(modern.engines) ?? '*', '^20.0.0'),
      'npm skips 13 on Node 20, where it crashes',
    );
    for (const newest of ['20.20.2', '22.23.5', '24.22.3', '26.12.1'])
      assert.ok(semver.satisfies(newest, supported), `Node ${newest} is supported`);
  });

  test('the README says which Node versions those are', () => {
    const readme = read('README.md').replace(/\s+/g, ' ');
    const stated = /`"node": "([^"]+)"`/.exec(readme);
    assert.ok(stated, 'the README quotes engines.node');
    assert.equal(stated[1], supported);
    const words = lines(supported).map(inWords);
    const said = `needs Node.js ${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;
    assert.ok(readme.includes(said), `the README says "${said}"`);
  });

  test('docs/architecture.md says why each override in package.json is there', () => {
    const section = read('docs/architecture.md')
      .split('\n## ')
      .find((part) => part.startsWith('Overrides'));
    assert.ok(section, 'docs/architecture.md has an "Overrides" section');
    const overridden = Object.entries(manifest.overrides ?? {}).flatMap(([parent, value]) =>
      typeof value === 'string' ? [parent] : Object.keys(value).map((child) => `${parent} → ${child}`),
    );
    for (const entry of overridden) {
      const [parent, child] = entry.split(' → ');
      assert.ok(
        section.includes(`\`${child ?? parent}\``) && (child === undefined || section.includes(`\`${parent}\``)),
        `${entry} is explained`,
      );
    }
  });

  test('the Node running these tests, and the second one CI runs them on, are supported', () => {
    assert.ok(
      semver.satisfies(process.versions.node, supported),
      `Node ${process.versions.node} is not in ${supported}`,
    );
    const pinned = /^NODE_VERSION="\$\{PAYGATE_CI_NODE_VERSION:-(\d+\.\d+\.\d+)\}"$/m.exec(read('.ci/other-node'))?.[1];
    assert.ok(pinned, '.ci/other-node pins the Node version it installs');
    assert.ok(semver.satisfies(pinned, supported), `.ci/other-node installs Node ${pinned}, outside ${supported}`);
    const inCi = /^for node_version in ([\d. ]+); do$/m.exec(read('.ci/run'))?.[1]?.trim().split(' ') ?? [];
    const lineMajors = lines(supported).map(({ lowest }) => lowest.major);
    assert.deepEqual(
      inCi.map((version) => semver.major(version)),
      lineMajors.slice(1),
      `.ci/run runs the suite on every Node line package.json names but the oldest, the machine's (${inCi.join(', ')})`,
    );
    for (const version of inCi) assert.ok(semver.satisfies(version, supported), `Node ${version} is supported`);
  });
});
