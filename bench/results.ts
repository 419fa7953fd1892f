import type { AnonymousResult } from './anonymous-pages.js';
import type { BatchResult } from './batch.js';
import type { LedgerCostResult } from './ledger-cost.js';
import type { RecurringResult } from './recurring.js';
import type { Row } from './run.js';
import type { WebhookResult } from './webhooks.js';

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
}
