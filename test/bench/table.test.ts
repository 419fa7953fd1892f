import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { LoadResult } from '../../bench/load-generator.js';
import type { BenchResults } from '../../bench/results.js';
import { END, newestResults, renderTable, replaceTable, START } from '../../bench/table.js';

const load = (operationsPerSecond: number, p50 = 1.5, p99 = 9.25): LoadResult => ({
  completed: operationsPerSecond * 5,
  seconds: 5,
  operationsPerSecond,
  latencyMs: { p50, p90: p99 / 2, p99, max: p99 * 2 },
  statuses: { 200: operationsPerSecond * 5 },
  exhausted: false,
  total: operationsPerSecond * 7,
  window: { fromEpochMs: 0, toEpochMs: 5000 },
});

const results = (database: string, date: string, rate: number): BenchResults => ({
  database,
  connections: 50,
  seconds: 5,
  machine: {
    date,
    node: 'v20.20.2',
    cpus: 2,
    cpuModel: 'Test CPU',
    loadAverage: { start: [0.5, 0.4, 0.3], end: [2, 1, 1] },
  },
  rows: [
    {
      scenario: 'signed customer read',
      baseline: load(30_000),
      floor: load(9_000),
      paygate: load(rate),
      ratio: Math.round((rate / 30_000) * 1000) / 1000,
      floorRatio: 0.3,
      meetsTarget: rate >= 6_000,
      peakRssMiB: 121,
    },
  ],
});

describe('npm run bench:table', () => {
  test('one line per scenario and database, with its baseline, ratio, memory and goal, and where each run ran', () => {
    const table = renderTable([
      results('SQLite (synchronous=FULL)', '2026-11-29T10:00:00.000Z', 6_150),
      results('PostgreSQL', '2026-11-29T10:10:00.000Z', 3_000),
    ]);
    const lines = table.split('\n');
    assert.equal(
      lines[0],
      '| scenario | database | throughput | p50 | p99 | baseline (ops/s) | ratio to baseline | paygate peak RSS | goal |',
    );
    assert.equal(
      lines[2],
      '| signed customer read | SQLite | 6,150 ops/s | 1.5 ms | 9.25 ms | bare 30,000; floor 9,000 | 0.205 (floor: 68%) | 121 MiB | met |',
    );
    assert.equal(
      lines[3],
      '| signed customer read | PostgreSQL | 3,000 ops/s | 1.5 ms | 9.25 ms | bare 30,000; floor 9,000 | 0.1 (floor: 33%) | 121 MiB | missed |',
    );
    assert.ok(
      lines.includes(
        '- SQLite (synchronous=FULL): 50 connections, 5 s per scenario; 2026-11-29, Node v20.20.2, 2 × Test CPU, load average 0.5 0.4 0.3 at the start.',
      ),
    );
  });

  test('on PostgreSQL with several processes, a line of the same load across them, against one process', () => {
    const two = results('PostgreSQL', '2026-11-29T10:10:00.000Z', 3_000);
    two.rows[0]!.acrossProcesses = { processes: 2, paygate: load(4_500, 2, 12), ratioToOne: 1.5 };
    const lines = renderTable([two]).split('\n');
    assert.equal(
      lines[3],
      '| signed customer read, 2 processes | PostgreSQL | 4,500 ops/s | 2 ms | 12 ms | 1 process 3,000 | 1.5 |  |  |',
    );
  });

  test('a run that stopped half-way (its file written after each scenario) says so under the table', () => {
    const table = renderTable([{ ...results('PostgreSQL', '2026-11-29T10:10:00.000Z', 3_000), finished: false }]);
    assert.ok(
      table
        .split('\n')
        .includes(
          '- PostgreSQL: 50 connections, 5 s per scenario; 2026-11-29, Node v20.20.2, 2 × Test CPU, load average 0.5 0.4 0.3 at the start. ' +
            'The run stopped before its end: these are the scenarios it finished.',
        ),
      table,
    );
  });

  test('the newest results of each database are read, and only the section between the markers is replaced', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-table-'));
    try {
      writeFileSync(
        join(dir, '2026-11-28T10-00-00-000Z.json'),
        JSON.stringify(results('SQLite (synchronous=FULL)', '2026-11-28T10:00:00.000Z', 5_000)),
      );
      writeFileSync(
        join(dir, '2026-11-29T10-00-00-000Z.json'),
        JSON.stringify(results('SQLite (synchronous=FULL)', '2026-11-29T10:00:00.000Z', 6_000)),
      );
      writeFileSync(
        join(dir, '2026-11-29T11-00-00-000Z.json'),
        JSON.stringify({ ...results('SQLite (synchronous=FULL)', '2026-11-29T11:00:00.000Z', 1), rows: [] }),
      );
      writeFileSync(
        join(dir, '2026-11-27T10-00-00-000Z.json'),
        JSON.stringify(results('PostgreSQL', '2026-11-27T10:00:00.000Z', 2_000)),
      );
      assert.deepEqual(newestResults(dir), [
        join(dir, '2026-11-27T10-00-00-000Z.json'),
        join(dir, '2026-11-29T10-00-00-000Z.json'),
      ]);
      const doc = `# Benchmarks\n\nbefore\n${START}\nold table\n${END}\nafter\n`;
      assert.equal(replaceTable(doc, 'new table'), `# Benchmarks\n\nbefore\n${START}\nnew table\n${END}\nafter\n`);
      assert.throws(() => replaceTable('# no markers', 'x'), /no <!-- bench-table:start/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('docs/benchmarks.md carries the section the command writes', () => {
    const doc = readFileSync(new URL('../../../docs/benchmarks.md', import.meta.url), 'utf8');
    assert.ok(doc.indexOf(START) !== -1 && doc.indexOf(END) > doc.indexOf(START));
  });
});
