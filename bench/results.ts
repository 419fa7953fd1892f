import type { AnonymousResult } from './anonymous-pages.js';
import type { BatchResult } from './batch.js';
import type { HostileResult } from './hostile-files.js';
import type { LedgerCostResult } from './ledger-cost.js';
import type { LoadResult } from './load-generator.js';
import type { RecurringResult } from './recurring.js';
import type { SnapshotResult } from './snapshots.js';
import type { WebhookResult } from './webhooks.js';

/** One load scenario: paygate beside its bare baseline and the signature floor, on the same machine. */
export interface Row {
  scenario: string;
  baseline: LoadResult;
  floor: LoadResult;
  paygate: LoadResult;
  /** paygate over the bare baseline: the measure. */
  ratio: number;
  /** The signature floor over the bare baseline: the best ratio any signature-checking server reaches here. */
  floorRatio: number;
  meetsTarget?: boolean;
  /** paygate's peak resident memory over its load, MiB (Linux; undefined elsewhere). */
  peakRssMiB?: number;
  /** On PostgreSQL with BENCH_PROCESSES > 1: the same load spread over that many processes, and its rate over one's. */
  acrossProcesses?: { processes: number; paygate: LoadResult; ratioToOne: number };
}

/** Where a run ran: its figures mean nothing without it. */
export interface BenchMachine {
  date: string;
  node: string;
  cpus: number;
  cpuModel: string;
  /** Other processes move every figure: the load average at the start and the end of the run. */
  loadAverage: { start: number[]; end: number[] };
}

/** What one `npm run bench` writes to bench/results/<time>.json, and `npm run bench:table` reads. */
export interface BenchResults {
  /** `SQLite (synchronous=FULL)` or `PostgreSQL`. */
  database: string;
  connections: number;
  seconds: number;
  /** Absent in results written before it was recorded. */
  machine?: BenchMachine;
  rows: Row[];
  ledgerCost?: LedgerCostResult;
  anonymous?: AnonymousResult;
  webhooks?: WebhookResult;
  webhookPeakRssMiB?: number;
  recurring?: RecurringResult;
  batch?: BatchResult;
  hostile?: HostileResult;
  snapshots?: SnapshotResult;
  /** false while the run goes on, or when it stopped half-way (the file is written after every scenario). */
  finished?: boolean;
}
