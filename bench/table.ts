/**
 * Writes the table of every scenario of the last runs into docs/benchmarks.md (between its bench-table markers):
 *
 *   npm run bench:table                          # the newest results of each database in bench/results/
 *   npm run bench:table -- bench/results/a.json  # these results files
 *
 * One line per scenario and database: throughput, p50 and p99, the baseline it is measured against and the ratio
 * to it, paygate's peak resident memory, and the goal when the issue sets one; then the machine, Node and date of
 * each run. The table is regenerated from the results alone: nothing in it is typed by hand.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './results.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const RESULTS = join(root, 'bench', 'results');
const DOC = join(root, 'docs', 'benchmarks.md');
export const START = '<!-- bench-table:start (npm run bench:table writes what follows) -->';
export const END = '<!-- bench-table:end -->';

interface Line {
  scenario: string;
  database: string;
  throughput: string;
  p50: string;
  p99: string;
  baseline: string;
  ratio: string;
  memory: string;
  goal: string;
}

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (n: number | undefined) => (n === undefined ? '' : `${fmt(n)} MiB`);
const dbName = (database: string) => (database.startsWith('PostgreSQL') ? 'PostgreSQL' : 'SQLite');

/** Every scenario of one results file, as table lines. */
export function linesOf(results: BenchResults): Line[] {
  const database = dbName(results.database);
  const lines: Line[] = results.rows.map((row) => ({
    scenario: row.scenario,
    database,
    throughput: `${fmt(row.paygate.operationsPerSecond)} ops/s`,
    p50: `${row.paygate.latencyMs.p50} ms`,
    p99: `${row.paygate.latencyMs.p99} ms`,
    baseline: `bare ${fmt(row.baseline.operationsPerSecond)}; floor ${fmt(row.floor.operationsPerSecond)}`,
    ratio: `${row.ratio} (floor: ${Math.round((row.paygate.operationsPerSecond / row.floor.operationsPerSecond) * 100)}%)`,
    memory: mib(row.peakRssMiB),
    goal: row.meetsTarget === undefined ? '' : row.meetsTarget ? 'met' : 'missed',
  }));
  for (const row of results.rows) {
    const across = row.acrossProcesses;
    if (!across) continue;
    lines.push({
      scenario: `${row.scenario}, ${across.processes} processes`,
      database,
      throughput: `${fmt(across.paygate.operationsPerSecond)} ops/s`,
      p50: `${across.paygate.latencyMs.p50} ms`,
      p99: `${across.paygate.latencyMs.p99} ms`,
      baseline: `1 process ${fmt(row.paygate.operationsPerSecond)}`,
      ratio: String(across.ratioToOne),
      memory: '',
      goal: '',
    });
  }
  const { ledgerCost, anonymous, webhooks, recurring, batch } = results;
  if (ledgerCost) {
    lines.push({
      scenario: 'order create + card payment, ledger on',
      database,
      throughput: `${fmt(ledgerCost.on)} ops/s`,
      p50: '',
      p99: '',
      baseline: `ledger off ${fmt(ledgerCost.off)}`,
      ratio: fmt(ledgerCost.on / ledgerCost.off, 3),
      memory: '',
      goal: '',
    });
  }
  if (anonymous) {
    const beside = anonymous.beside;
    lines.push({
      scenario: 'orders/check beside anonymous pages',
      database,
      throughput: `${fmt(beside.operationsPerSecond)} ops/s`,
      p50: `${beside.latencyMs.p50} ms`,
      p99: `${beside.latencyMs.p99} ms`,
      baseline: `alone ${fmt((anonymous.alone[0].operationsPerSecond + anonymous.alone[1].operationsPerSecond) / 2)}`,
      ratio: String(anonymous.ratio),
      memory: '',
      goal: '',
    });
  }
  if (webhooks) {
    lines.push({
      scenario: 'webhook deliveries (backlog drained)',
      database,
      throughput: `${fmt(webhooks.backlog.recordedPerSecond)} deliveries/s`,
      p50: '',
      p99: '',
      baseline: '',
      ratio: '',
      memory: mib(results.webhookPeakRssMiB),
      goal: '',
    });
    lines.push({
      scenario: 'webhook deliveries (end to end)',
      database,
      throughput: `${fmt(webhooks.endToEnd.deliveredPerSecond)} deliveries/s`,
      p50: `${webhooks.endToEnd.create.latencyMs.p50} ms`,
      p99: `${webhooks.endToEnd.create.latencyMs.p99} ms`,
      baseline: `orders created ${fmt(webhooks.endToEnd.ordersPerSecond)}/s`,
      ratio: '',
      memory: '',
      goal: '',
    });
  }
  if (recurring) {
    for (const phase of recurring.phases) {
      lines.push({
        scenario: `recurring billing: ${phase.name}`,
        database,
        throughput: `${fmt(phase.plansPerSecond)} plans/s (${phase.seconds} s)`,
        p50: '',
        p99: '',
        baseline: '',
        ratio: '',
        memory: mib(recurring.lifetimePeakRssMiB),
        goal: recurring.meetsTarget ? 'met' : 'missed',
      });
    }
  }
  if (batch) {
    lines.push({
      scenario: `batch of ${fmt(batch.rows)} token payments, upload to success`,
      database,
      throughput: `${fmt(batch.rowsPerSecond)} rows/s (${batch.seconds} s)`,
      p50: '',
      p99: '',
      baseline: '',
      ratio: '',
      memory: mib(batch.peakRssMiB),
      goal: batch.meetsTarget === undefined ? '' : batch.meetsTarget ? 'met' : 'missed',
    });
  }
  return lines;
}

export function renderTable(all: BenchResults[]): string {
  const header =
    '| scenario | database | throughput | p50 | p99 | baseline (ops/s) | ratio to baseline | paygate peak RSS | goal |';
  const rows = all
    .flatMap(linesOf)
    .map(
      (l) =>
        `| ${l.scenario} | ${l.database} | ${l.throughput} | ${l.p50} | ${l.p99} | ${l.baseline} | ${l.ratio} | ${l.memory} | ${l.goal} |`,
    );
  const runs = all.map((r) => {
    const m = r.machine;
    const where = m
      ? `${m.date.slice(0, 10)}, Node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average ${m.loadAverage.start.join(' ')} at the start`
      : 'machine not recorded';
    const cut = r.finished === false ? ' The run stopped before its end: these are the scenarios it finished.' : '';
    return `- ${r.database}: ${r.connections} connections, ${r.seconds} s per scenario; ${where}.${cut}`;
  });
  return [header, '|---|---|---|---|---|---|---|---|---|', ...rows, '', ...runs].join('\n');
}

/** The newest results file of each database. */
export function newestResults(dir = RESULTS): string[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .reverse();
  const seen = new Map<string, string>();
  for (const name of files) {
    const results = JSON.parse(readFileSync(join(dir, name), 'utf8')) as BenchResults;
    if (results.rows.length === 0) continue;
    const database = dbName(results.database);
    if (!seen.has(database)) seen.set(database, join(dir, name));
  }
  return [...seen.values()].sort();
}

export function replaceTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/benchmarks.md has no ${START} ... ${END} section`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : newestResults();
  if (files.length === 0) {
    console.error('No results in bench/results/ with load scenarios: run `npm run bench` first.');
    process.exit(1);
  }
  const table = renderTable(files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResults));
  writeFileSync(DOC, replaceTable(readFileSync(DOC, 'utf8'), table));
  console.log(`${table}\n\ndocs/benchmarks.md updated from ${files.join(', ')}`);
}
