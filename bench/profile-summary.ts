/**
 * Where a paygate server's CPU time went, from the V8 CPU profile that `BENCH_CPU_PROF=<dir> npm run bench` makes
 * it write when it stops:
 *
 *   npm run bench:profile -- /tmp/prof/CPU.<...>.cpuprofile
 *   npm run bench:profile -- --last=9 /tmp/prof/CPU.<...>.cpuprofile   # only the last 9 s: one scenario's load
 *
 * Every sample's time goes to what the sampled function belongs to: a V8 built-in or native function (a SQLite
 * step, an RSA verification) counts for the nearest caller that has a source file, so that `run` inside
 * better-sqlite3 counts as SQL and `verify` inside node:crypto as the signature. Printed as shares of the busy time
 * (idle left out), largest first.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What a source file is, for the reader of docs/benchmarks.md. */
export function categoryOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle';
    return 'V8 and Node internals';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) {
    if (['better-sqlite3', 'kysely', 'pg', 'pg-protocol', 'pg-pool'].includes(pkg))
      return 'SQL: driver and query builder';
    if (
      [
        'fastify',
        'find-my-way',
        'avvio',
        '@fastify/error',
        'light-my-request',
        'fast-querystring',
        'toad-cache',
      ].includes(pkg)
    )
      return 'Fastify: routing, hooks, reply';
    if (['ajv', 'typebox', 'fast-uri', 'ajv-formats'].includes(pkg)) return 'validation (ajv)';
    if (pkg === 'fast-json-stringify') return 'serialisation (fast-json-stringify)';
    if (['pino', 'sonic-boom', 'thread-stream', 'pino-std-serializers'].includes(pkg)) return 'logging (pino)';
    return `package ${pkg}`;
  }
  if (url.startsWith('node:internal/crypto') || url === 'node:crypto') return 'crypto: signature verification, hashing';
  // paygate's own database layer: its time is the driver's (a native SQLite step counts for its caller, here).
  if (url.includes('/dist/src/platform/database/')) return 'SQL: driver and query builder';
  if (url.includes('/client/dist/signing')) return 'crypto: signature verification, hashing';
  if (/^node:(internal\/)?(http|_http|net|stream|streams|tls|dns|timers|url|querystring|buffer)/.test(url))
    return 'Node: HTTP, sockets, streams, timers';
  const own = /\/dist\/src\/([^/]+)\//.exec(url)?.[1];
  if (own !== undefined) {
    if (['platform', 'context', 'http'].includes(own)) return `paygate ${own}/`;
    return `paygate ${own}/ (a capability)`;
  }
  if (url.startsWith('node:')) return 'Node: other built-in modules';
  return 'other';
}

/**
 * Milliseconds of busy time by category, largest first, and the idle time beside them; with `lastSeconds`, only
 * the samples of the profile's last seconds (a bench scenario's load is the last thing its server does).
 */
export function summarize(
  profile: CpuProfile,
  lastSeconds = 0,
): { busyMs: number; idleMs: number; categories: Array<{ category: string; ms: number; share: number }> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const attributed = new Map<number, string>();
  const categoryFor = (id: number): string => {
    const known = attributed.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const { url, functionName } = node.callFrame;
    let category: string;
    if (
      url === '' &&
      !['(garbage collector)', '(idle)', '(program)', '(root)'].includes(functionName) &&
      parent.has(id)
    ) {
      // A native or built-in function: its caller says what it was for.
      let up = parent.get(id);
      while (up !== undefined && byId.get(up)!.callFrame.url === '') up = parent.get(up);
      category =
        up === undefined
          ? 'V8 and Node internals'
          : categoryOf(byId.get(up)!.callFrame.url, byId.get(up)!.callFrame.functionName);
    } else {
      category = categoryOf(url, functionName);
    }
    attributed.set(id, category);
    return category;
  };
  const totals = new Map<string, number>();
  let elapsed = 0;
  const at = profile.timeDeltas.map((delta) => (elapsed += delta));
  const from = lastSeconds > 0 ? elapsed - lastSeconds * 1e6 : -Infinity;
  profile.samples.forEach((id, i) => {
    if (at[i]! < from) return;
    const category = categoryFor(id);
    totals.set(category, (totals.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const idleMs = totals.get('idle') ?? 0;
  totals.delete('idle');
  const busyMs = [...totals.values()].reduce((a, b) => a + b, 0);
  const categories = [...totals.entries()]
    .map(([category, ms]) => ({
      category,
      ms: Math.round(ms),
      share: busyMs === 0 ? 0 : Math.round((ms / busyMs) * 1000) / 10,
    }))
    .sort((a, b) => b.ms - a.ms);
  return { busyMs: Math.round(busyMs), idleMs: Math.round(idleMs), categories };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const last = Number(args.find((arg) => arg.startsWith('--last='))?.slice('--last='.length) ?? 0);
  const files = args.filter((arg) => !arg.startsWith('--last='));
  if (files.length === 0 || !(last >= 0)) {
    console.error('usage: npm run bench:profile -- [--last=SECONDS] <file.cpuprofile> ...');
    process.exit(2);
  }
  for (const file of files) {
    const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, last);
    console.log(`${file}: ${summary.busyMs} ms busy, ${summary.idleMs} ms idle`);
    console.log('| where | ms | share of busy time |\n|---|---|---|');
    for (const { category, ms, share } of summary.categories) console.log(`| ${category} | ${ms} | ${share}% |`);
  }
}
