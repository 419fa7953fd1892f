/**
 * Measures paygate beside a bare node:http server answering the same bytes, in one run, on this machine.
 *
 *   npm run bench                       # SQLite (synchronous=FULL), 50 connections
 *   DATABASE_URL=postgres://... npm run bench
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=50 npm run bench
 *   BENCH_ONLY=create npm run bench     # the scenarios whose name contains the text
 *   BENCH_ONLY=authorization npm run bench  # simulated card authorisations against cards with limits (docs/issuing.md)
 *   BENCH_ONLY=webhook npm run bench    # webhook deliveries per second to a local receiver (bench/webhooks.ts)
 *   BENCH_ONLY=anonymous npm run bench  # orders/check beside anonymous receipt and payment-page traffic
 *   (bench/anonymous-pages.ts)
 *   BENCH_ONLY=recurring npm run bench  # 10,000 monthly plans billed twice by moving the clock (bench/recurring.ts;
 *   only when named)
 *   BENCH_ONLY=batch npm run bench      # a CSV batch of 100,000 token payments, upload to success (bench/batch.ts;
 *   only when named)
 *   BENCH_ONLY=ledger npm run bench     # create + pay on two fresh servers, ledger on and off, in alternating rounds
 *   (bench/ledger-cost.ts)
 *   BENCH_ONLY=hostile npm run bench    # fair job lanes beside ten stalled files, and memory under hostile files
 *   (bench/hostile-files.ts; only when named)
 *   BENCH_ONLY=snapshots npm run bench  # save and restore a merchant of 10,000 paid orders (bench/snapshots.ts; only
 *   when named)
 *   BENCH_CPU_PROF=/tmp/prof npm run bench   # also writes a V8 CPU profile of the paygate server there
 *
 * Prints a table and writes bench/results/<time>.json. Requests are signed ahead of time, each with its own
 * nonce, so the load generator spends nothing on cryptography while it measures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PaygateClient } from '@paygate/client';
import pg from 'pg';
import { ANONYMOUS_SCENARIO, type AnonymousResult, anonymousReport, anonymousScenario } from './anonymous-pages.js';
import { BATCH_SCENARIO, type BatchResult, batchReport, batchScenario } from './batch.js';
import {
  HOSTILE_SCENARIO,
  type HostileResult,
  hostileReport,
  hostileScenario,
  paygateCommand,
} from './hostile-files.js';
import { LEDGER_SCENARIO, type LedgerCostResult, ledgerCostReport, ledgerCostScenario } from './ledger-cost.js';
import type { LoadPlan, LoadResult } from './load-generator.js';
import { startProcess, stop, stopProcess } from './processes.js';
import {
  clearPeak,
  memory,
  RECURRING_SCENARIO,
  type RecurringResult,
  recurringReport,
  recurringScenario,
} from './recurring.js';
import type { BenchMachine, BenchResults, Row } from './results.js';
import type { RequestTemplate, SignJob } from './sign-worker.js';
import { SNAPSHOT_SCENARIO, type SnapshotResult, snapshotScenario } from './snapshots.js';
import {
  BENCH_WEBHOOK_TIMEOUT_MS,
  WEBHOOK_SCENARIO,
  type WebhookResult,
  webhookReport,
  webhookScenario,
} from './webhooks.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** The cards the authorisation scenario spreads its purchases over. */
const CARDS = Number(process.env.BENCH_CARDS ?? 100);
const BENCH_SHOP = { id: 'MID-BENCH', name: 'Bench Shop', city: 'Hong Kong', country: 'HK', category: '5999' };
/** Multiplies every scenario's prepared operations (raise it on a faster machine: a run must not run out). */
const HEADROOM = Number(process.env.BENCH_HEADROOM ?? 1);
/**
 * Other processes on the machine (other engineers' test suites) change every figure: the report says how busy it was.
 */
const LOAD_AT_START = loadavg();
/**
 * On PostgreSQL, more paygate processes on the same database: the reads and create + pay measured again across them.
 */
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 1);
const DATABASE = process.env.DATABASE_URL
  ? 'PostgreSQL'
  : `SQLite (synchronous=${process.env.PAYGATE_SQLITE_SYNCHRONOUS ?? 'FULL'})`;
/** The database the issues' targets are set for: SQLite with synchronous=FULL. */
const ON_TARGET_DATABASE = !process.env.DATABASE_URL && (process.env.PAYGATE_SQLITE_SYNCHRONOUS ?? 'FULL') === 'FULL';
const RESULTS_DIR = join(root, 'bench', 'results');
const CARD = {
  number: '4242424242424242',
  exp_month: '12',
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: '123',
  holder_name: 'Bench',
};

interface Scenario {
  name: string;
  /** The requests of operation `i`, in order (a create and a pay, say). */
  operation(i: number): RequestTemplate[];
  /** Operations to prepare: enough for the fastest this scenario may run, over warm-up and measurement. */
  maxPerSecond: number;
  /** What the issue asks: a share of the bare server's rate and a p99, or operations per second. */
  goal?: { minRatio?: number; maxP99Ms?: number; minPerSecond?: number };
  /** Measured again across BENCH_PROCESSES processes when there are several. */
  acrossProcesses?: boolean;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const paygatePort = 18_400 + Math.floor(Math.random() * 500);
  const baselinePort = paygatePort + 1;
  const floorPort = paygatePort + 2;
  const children: ChildProcess[] = [];
  const extraDirs: string[] = [];
  try {
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const serve = (folder: string, port: number, env: Record<string, string> = {}) =>
      startProcess(
        children,
        [...profile, join(root, 'dist', 'src', 'paygate.js'), 'serve'],
        {
          PAYGATE_DATA_DIR: folder,
          PORT: String(port),
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
          PAYGATE_WEBHOOK_TIMEOUT_MS: String(BENCH_WEBHOOK_TIMEOUT_MS),
          ...env,
        },
        /API reference/,
      );
    const paygate = await serve(dataDir, paygatePort);
    if (PROCESSES > 1 && !process.env.DATABASE_URL)
      throw new Error('BENCH_PROCESSES needs DATABASE_URL: processes share a PostgreSQL database');
    // The others serve the same database (the demo merchant the first made), each from a data folder of its own.
    const ports = [paygatePort];
    const others: ChildProcess[] = [];
    for (let k = 1; k < PROCESSES; k += 1) {
      const folder = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
      extraDirs.push(folder);
      const port = paygatePort + 10 + k;
      others.push(await serve(folder, port, { PAYGATE_DEMO: '0' }));
      ports.push(port);
    }
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-app.json'), 'utf8')) as {
      app_id: string;
      private_key_path: string;
      webhook_public_key_path: string;
    };
    const privateKeyPem = readFileSync(demo.private_key_path, 'utf8');
    /** The demo app's client for a scenario whose requests are each sent once and may take this long. */
    const onceClient = (timeoutMs: number) =>
      new PaygateClient({
        baseUrl: `http://127.0.0.1:${paygatePort}`,
        appId: demo.app_id,
        privateKey: privateKeyPem,
        timeoutMs,
        retry: { maxAttempts: 1 },
      });
    const client = new PaygateClient({
      baseUrl: `http://127.0.0.1:${paygatePort}`,
      appId: demo.app_id,
      privateKey: privateKeyPem,
    });
    const customer = await client.customers.create({
      reference_number: 'BENCH-1',
      name: 'Chan Tai Man',
      phone: '91234567',
      email: 'chan@example.com',
      dial_code: '852',
    });

    await client.orders.create({ reference_number: 'BENCH-CHECK', currency: 'HKD', charge_fee: '21.00' });
    await client.orders.pay({ reference_number: 'BENCH-CHECK' }, { credit_card: CARD });
    const run = Date.now().toString(36);
    // Cards with every kind of limit, far above what the run spends, on a funded balance: each authorisation checks
    // them all, holds its amount and counts it in three limit periods.
    await client.sandbox.topUp({ currency: 'HKD', amount: '100000000.00' });
    const cardholder = await client.users.create({
      reference_id: `BENCH-${run}`,
      calling_code: '852',
      phone_number: '61234567',
      document_type: 'PASSPORT',
      document_number: `B${run}`,
      first_name: 'Bench',
      last_name: 'Chan',
      date_of_birth: '1990-01-01',
      issuing_country: 'HKG',
    });
    const cards: string[] = [];
    for (let i = 0; i < CARDS; i += 1) {
      cards.push(
        (
          await client.cards.create({
            user_id: cardholder,
            reference_id: `BENCH-${run}-${i}`,
            title: 'Bench',
            settlement_currency: 'HKD',
            limits: ['transaction', 'daily', 'monthly', 'lifetime'].map((period) => ({
              period: period as 'daily',
              limit_amount: '10000000.00',
            })),
          })
        ).id,
      );
    }
    const scenarios: Scenario[] = [
      {
        name: 'signed echo',
        maxPerSecond: 12_000,
        operation: () => [
          { method: 'POST', target: '/svc/payment/api/v1/openapi/echo', body: '{"message":"Hello, paygate"}' },
        ],
      },
      {
        name: 'signed customer read',
        acrossProcesses: true,
        maxPerSecond: 12_000,
        goal: { minRatio: 0.35, maxP99Ms: 25 },
        operation: () => [
          { method: 'GET', target: `/svc/payment/api/v1/openapi/customers/${customer.uuid}`, body: '' },
        ],
      },
      {
        name: 'order create + card payment',
        acrossProcesses: true,
        maxPerSecond: 1_500,
        goal: { minPerSecond: 500 },
        operation: (i) => [
          {
            method: 'POST',
            target: '/svc/payment/api/v1/openapi/orders',
            body: JSON.stringify({
              order: { reference_number: `B-${run}-${i}`, currency: 'HKD', charge_fee: '21.00' },
            }),
          },
          {
            method: 'POST',
            target: '/svc/payment/api/v1/openapi/open_payments',
            body: JSON.stringify({ reference_number: `B-${run}-${i}`, payment: { credit_card: CARD } }),
          },
        ],
      },
      {
        name: 'card authorization (simulator)',
        maxPerSecond: 2_000,
        goal: { minPerSecond: 1_000 },
        operation: (i) => [
          {
            method: 'POST',
            target: '/svc/sandbox/api/v1/issuing/authorizations',
            body: JSON.stringify({
              card_id: cards[Math.abs(i) % cards.length],
              amount: '1.00',
              currency: 'HKD',
              merchant: BENCH_SHOP,
            }),
          },
        ],
      },
      {
        name: 'orders/check',
        acrossProcesses: true,
        maxPerSecond: 12_000,
        goal: { minRatio: 0.3 },
        operation: () => [
          {
            method: 'POST',
            target: '/svc/payment/api/v1/openapi/orders/check',
            body: '{"order":{"reference_number":"BENCH-CHECK"}}',
          },
        ],
      },
    ];

    // The baseline answers each request with exactly what paygate answers it with (one sample per path).
    const replies: Record<string, { status: number; body: string }> = {};
    for (const scenario of scenarios) {
      for (const request of scenario
        .operation(-1)
        .map((r) => ({ ...r, body: r.body.replace(`B-${run}--1`, `B-${run}-sample`) }))) {
        const reply = await client.send(request.method, request.target, undefined, { rawBody: request.body });
        replies[`${request.method} ${request.target}`] = { status: reply.status, body: reply.text };
      }
    }
    const repliesFile = join(dataDir, 'baseline-replies.json');
    writeFileSync(repliesFile, JSON.stringify(replies));
    await startProcess(children, [join(here, 'baseline-server.js'), String(baselinePort), repliesFile], {}, /ready/);
    const publicKeyFile = join(dataDir, 'demo-public-key.pem');
    await startProcess(
      children,
      [join(here, 'signature-floor-server.js'), String(floorPort), repliesFile, publicKeyFile],
      {},
      /ready/,
    );

    // Written again after every scenario: a run that hangs or is stopped half-way keeps what it measured.
    const results: BenchResults = {
      database: DATABASE,
      connections: CONNECTIONS,
      seconds: SECONDS,
      machine: machineNow(),
      rows: [],
      finished: false,
    };
    const resultsFile = join(RESULTS_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const save = () => saveResults(resultsFile, results);
    const rows = results.rows;
    const only = process.env.BENCH_ONLY;
    // BENCH_ONLY naming a row scenario exactly runs it alone (`orders/check` is also part of another's name).
    const exact = scenarios.some((row) => row.name === only);
    const named = (scenario: string) => !only || (!exact && scenario.includes(only));
    for (const scenario of scenarios.filter((candidate) => !only || candidate.name.includes(only))) {
      const count = Math.ceil(scenario.maxPerSecond * HEADROOM * (SECONDS + WARMUP_SECONDS));
      process.stderr.write(`${scenario.name}: signing ${count} operations... `);
      const operations = await signInWorkers({
        appId: demo.app_id,
        privateKeyPem,
        host: `127.0.0.1:${paygatePort}`,
        operations: Array.from({ length: count }, (_, i) => scenario.operation(i)),
      });
      process.stderr.write('baseline... ');
      const baseline = await load(dataDir, { port: baselinePort, operations, cycle: true });
      process.stderr.write('signature floor... ');
      const floor = await load(dataDir, { port: floorPort, operations, cycle: true });
      process.stderr.write('paygate... ');
      clearPeak(paygate.pid);
      const measured = await load(dataDir, { port: paygatePort, operations, cycle: false });
      const { peak: peakRssMiB } = memory(paygate.pid);
      let across: LoadResult | undefined;
      if (ports.length > 1 && scenario.acrossProcesses) {
        process.stderr.write(`${ports.length} processes: signing again... `);
        const again = await signInWorkers({
          appId: demo.app_id,
          privateKeyPem,
          host: `127.0.0.1:${paygatePort}`,
          operations: Array.from({ length: count * ports.length }, (_, i) => scenario.operation(count + i)),
        });
        across = await load(dataDir, { port: paygatePort, ports, operations: again, cycle: false });
      }
      process.stderr.write('done\n');
      const share = (part: LoadResult) =>
        Math.round((part.operationsPerSecond / baseline.operationsPerSecond) * 1000) / 1000;
      const ratio = share(measured);
      const goal = scenario.goal;
      const meetsTarget =
        goal === undefined
          ? undefined
          : (goal.minRatio === undefined || ratio >= goal.minRatio) &&
            (goal.maxP99Ms === undefined || measured.latencyMs.p99 <= goal.maxP99Ms) &&
            (goal.minPerSecond === undefined || measured.operationsPerSecond >= goal.minPerSecond);
      rows.push({
        scenario: scenario.name,
        baseline,
        floor,
        paygate: measured,
        ratio,
        floorRatio: share(floor),
        ...(meetsTarget !== undefined && { meetsTarget }),
        ...(peakRssMiB !== undefined && { peakRssMiB }),
        ...(across && {
          acrossProcesses: {
            processes: ports.length,
            paygate: across,
            ratioToOne: Math.round((across.operationsPerSecond / measured.operationsPerSecond) * 100) / 100,
          },
        }),
      });
      save();
    }
    // What follows measures one process. On PostgreSQL the others share its database, so their schedulers would
    // take its due work and webhook deliveries (the webhook scenario, counting the first process's deliveries, then
    // waited for ones another process had made).
    for (const other of others) await stopProcess(children, other);
    let anonymous: AnonymousResult | undefined;
    if (named(ANONYMOUS_SCENARIO)) {
      anonymous = await anonymousScenario({
        client,
        paygatePort,
        run,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        headroom: HEADROOM,
        sign: (operations) =>
          signInWorkers({ appId: demo.app_id, privateKeyPem, host: `127.0.0.1:${paygatePort}`, operations }),
        load: (plan) => load(dataDir, plan),
        progress: (text) => process.stderr.write(text),
      });
      results.anonymous = anonymous;
      save();
    }
    let ledgerCost: LedgerCostResult | undefined;
    if (named(LEDGER_SCENARIO)) {
      const perRound = Math.ceil(1_500 * HEADROOM * (SECONDS + WARMUP_SECONDS));
      const pair: ChildProcess[] = [];
      ledgerCost = await ledgerCostScenario({
        run,
        rounds: Number(process.env.BENCH_LEDGER_ROUNDS ?? 5),
        perRound,
        async start(ledger) {
          const folder = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
          extraDirs.push(folder);
          const port = paygatePort + (ledger === 'on' ? 3 : 4);
          const server = await serve(folder, port, { PAYGATE_LEDGER: ledger });
          pair.push(server);
          if (profile.length > 0) process.stderr.write(`(ledger ${ledger}: pid ${server.pid}) `);
          const app = JSON.parse(readFileSync(join(folder, 'demo-app.json'), 'utf8')) as {
            app_id: string;
            private_key_path: string;
          };
          const key = readFileSync(app.private_key_path, 'utf8');
          return {
            port,
            sign: (operations) =>
              signInWorkers({ appId: app.app_id, privateKeyPem: key, host: `127.0.0.1:${port}`, operations }),
          };
        },
        load: (plan) => load(dataDir, plan),
        progress: (text) => process.stderr.write(text),
      });
      results.ledgerCost = ledgerCost;
      save();
      // Stopped for the same reason: on PostgreSQL the pair shares the first process's database.
      for (const server of pair) await stopProcess(children, server);
    }
    // Only when named: it takes minutes, and moves the demo merchant's clock a month.
    let recurring: RecurringResult | undefined;
    if (only && RECURRING_SCENARIO.includes(only)) {
      recurring = await recurringScenario({
        // Moving the clock returns when the billing is done: no timeout to speak of, and never sent twice.
        client: onceClient(3_600_000),
        paygatePid: paygate.pid,
        run,
        progress: (text) => process.stderr.write(text),
        analyze: process.env.DATABASE_URL ? () => analyzePostgres(process.env.DATABASE_URL!) : undefined,
      });
      results.recurring = recurring;
      save();
    }
    // Only when named: it takes minutes, and leaves BENCH_BATCH_ROWS paid orders behind.
    let batch: BatchResult | undefined;
    if (only && BATCH_SCENARIO.includes(only)) {
      batch = await batchScenario({
        // The upload of the whole file is one request, never sent twice.
        client: onceClient(3_600_000),
        paygatePid: paygate.pid,
        paygatePort,
        run,
        notJudgedOn: ON_TARGET_DATABASE ? undefined : DATABASE,
        progress: (text) => process.stderr.write(text),
        analyze: process.env.DATABASE_URL ? () => analyzePostgres(process.env.DATABASE_URL!) : undefined,
      });
      results.batch = batch;
      save();
    }
    // Only when named: it builds two zip bombs.
    let hostile: HostileResult | undefined;
    if (only && HOSTILE_SCENARIO.includes(only)) {
      hostile = await hostileScenario({
        client: onceClient(600_000),
        baseUrl: `http://127.0.0.1:${paygatePort}`,
        privateKeyPem,
        paygatePid: paygate.pid,
        dataDir,
        cli: paygateCommand(root, { PAYGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
        progress: (text) => process.stderr.write(text),
      });
      results.hostile = hostile;
      save();
    }
    // Only when named: it pays BENCH_SNAPSHOT_ORDERS orders of the demo merchant first.
    let snapshots: SnapshotResult | undefined;
    if (only && SNAPSHOT_SCENARIO.includes(only)) {
      snapshots = await snapshotScenario({
        // A save and a restore are each one request, never sent twice.
        client: onceClient(600_000),
        run,
        progress: (text) => process.stderr.write(text),
      });
      results.snapshots = snapshots;
      save();
    }
    // Last: from here on, every order event of the demo merchant is a delivery to make.
    let webhooks: WebhookResult | undefined;
    let webhookPeakRssMiB: number | undefined;
    if (named(WEBHOOK_SCENARIO)) {
      clearPeak(paygate.pid);
      webhooks = await webhookScenario({
        root,
        dataDir,
        paygatePort,
        paygatePid: paygate.pid,
        appId: demo.app_id,
        webhookPublicKeyPem: readFileSync(demo.webhook_public_key_path, 'utf8'),
        run,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        headroom: HEADROOM,
        sign: (operations) =>
          signInWorkers({ appId: demo.app_id, privateKeyPem, host: `127.0.0.1:${paygatePort}`, operations }),
        load: (plan) => load(dataDir, plan),
        progress: (text) => process.stderr.write(text),
      });
      webhookPeakRssMiB = memory(paygate.pid).peak;
      Object.assign(results, { webhooks, webhookPeakRssMiB });
    }
    report(rows, anonymous, webhooks, recurring, batch, ledgerCost, hostile);
    results.finished = true;
    save();
  } finally {
    await Promise.all(children.map(stop));
    rmSync(dataDir, { recursive: true, force: true });
    for (const dir of extraDirs) rmSync(dir, { recursive: true, force: true });
  }
}

function machineNow(): BenchMachine {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    loadAverage: {
      start: LOAD_AT_START.map((n) => Math.round(n * 100) / 100),
      end: loadavg().map((n) => Math.round(n * 100) / 100),
    },
  };
}

function saveResults(file: string, results: BenchResults): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({ ...results, machine: { ...machineNow(), date: results.machine!.date } }, null, 2),
  );
}

function report(
  rows: Row[],
  anonymous: AnonymousResult | undefined,
  webhooks: WebhookResult | undefined,
  recurring: RecurringResult | undefined,
  batch: BatchResult | undefined,
  ledgerCost: LedgerCostResult | undefined,
  hostile: HostileResult | undefined,
): void {
  const lines = [
    `paygate benchmark: ${DATABASE}, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, ${cpus().length} cores, node ${process.version}`,
    `load average at the start ${LOAD_AT_START.map((n) => n.toFixed(2)).join(' ')}, at the end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (anything above the bench's own share is another process competing)`,
  ];
  if (rows.length > 0)
    lines.push(
      '',
      '| scenario | bare node:http ops/s | signature floor ops/s (ratio) | paygate ops/s | paygate ratio | paygate / floor | p50 ms | p99 ms | target |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.scenario} | ${r.baseline.operationsPerSecond} | ${r.floor.operationsPerSecond} (${r.floorRatio}) | ` +
          `${r.paygate.operationsPerSecond} | ${r.ratio} | ${Math.round((r.paygate.operationsPerSecond / r.floor.operationsPerSecond) * 100)}% | ` +
          `${r.paygate.latencyMs.p50} | ${r.paygate.latencyMs.p99} | ${r.meetsTarget === undefined ? '' : r.meetsTarget ? 'met' : 'MISSED'} |`,
      ),
      '',
      'ops: operations (order create + card payment is two requests, one after the other, on one connection).',
      "ratio: share of the bare server's rate. signature floor: Fastify answering the same bytes after verifying",
      'the signature and nothing else; no signed server can beat it on this machine.',
    );
  for (const row of rows.filter((r) => r.acrossProcesses)) {
    const across = row.acrossProcesses!;
    lines.push(
      `${row.scenario}: ${across.processes} processes ${across.paygate.operationsPerSecond} ops/s, ${across.ratioToOne} × one process (p99 ${across.paygate.latencyMs.p99} ms)`,
    );
  }
  const failures = rows.filter(
    (r) =>
      Object.keys(r.paygate.statuses).some((s) => s !== '200') ||
      Object.keys(r.acrossProcesses?.paygate.statuses ?? {}).some((s) => s !== '200'),
  );
  for (const row of failures)
    lines.push(
      `\n${row.scenario}: non-200 replies ${JSON.stringify([row.paygate.statuses, row.acrossProcesses?.paygate.statuses ?? {}])}`,
    );
  for (const row of rows.filter((r) => r.paygate.exhausted))
    lines.push(`\n${row.scenario}: ran out of prepared operations; raise BENCH_HEADROOM`);
  if (ledgerCost) lines.push('', ...ledgerCostReport(ledgerCost));
  if (anonymous) lines.push('', ...anonymousReport(anonymous));
  if (recurring) lines.push('', ...recurringReport(recurring));
  if (batch) lines.push('', ...batchReport(batch));
  if (hostile) lines.push('', ...hostileReport(hostile));
  if (webhooks) {
    lines.push('', ...webhookReport(webhooks));
    if (webhooks.endToEnd.create.exhausted)
      lines.push(`\n${WEBHOOK_SCENARIO}: ran out of prepared operations; raise BENCH_HEADROOM`);
    const failed =
      Object.keys(webhooks.endToEnd.create.statuses).some((s) => s !== '200') ||
      Object.keys(webhooks.backlog.create.statuses).some((s) => s !== '200');
    if (failed)
      lines.push(
        `\n${WEBHOOK_SCENARIO}: non-200 order creations ${JSON.stringify([webhooks.backlog.create.statuses, webhooks.endToEnd.create.statuses])}`,
      );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function signInWorkers(job: SignJob): Promise<string[][]> {
  const workers = Math.max(1, cpus().length);
  const share = Math.ceil(job.operations.length / workers);
  const parts = await Promise.all(
    Array.from(
      { length: workers },
      (_, w) =>
        new Promise<string[][]>((resolve, reject) => {
          const worker = new Worker(join(here, 'sign-worker.js'), {
            workerData: { ...job, operations: job.operations.slice(w * share, (w + 1) * share) },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  return parts.flat();
}

async function load(
  dataDir: string,
  plan: Pick<LoadPlan, 'port' | 'operations' | 'cycle'> & Partial<Omit<LoadPlan, 'host'>>,
): Promise<LoadResult> {
  // Several generators may run at once: each reads its own plan.
  const planFile = join(dataDir, `plan-${randomUUID()}.json`);
  const full: LoadPlan = {
    host: '127.0.0.1',
    connections: CONNECTIONS,
    warmupMs: WARMUP_SECONDS * 1000,
    durationMs: SECONDS * 1000,
    ...plan,
  };
  writeFileSync(planFile, JSON.stringify(full));
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'load-generator.js'), planFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited with ${code}`))));
  });
  return JSON.parse(output) as LoadResult;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

/**
 * Gathers PostgreSQL's planner statistics, as its autovacuum would have by then in an operator's database (a server
 * run with autovacuum off, as test machines' often are, plans every query on tables it believes empty).
 */
async function analyzePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // paygate's own tables only: the database may hold other schemas (the test suite's).
    const { rows } = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = current_schema()`,
    );
    for (const { name } of rows) await client.query(`ANALYZE ${name}`);
  } finally {
    await client.end();
  }
}
