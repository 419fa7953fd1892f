/**
 * Measures paygate beside a bare node:http server answering the same bytes, in one run, on this machine.
 *
 *   npm run bench                       # SQLite (synchronous=FULL), 50 connections
 *   DATABASE_URL=postgres://... npm run bench
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=50 npm run bench
 *
 * Prints a table and writes bench/results/<time>.json. Requests are signed ahead of time, each with its own
 * nonce, so the load generator spends nothing on cryptography while it measures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PaygateClient } from '@paygate/client';
import type { LoadPlan, LoadResult } from './load-generator.js';
import type { SignJob } from './sign-worker.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Signed requests prepared per scenario: enough for this rate over warm-up and measurement. */
const EXPECTED_MAX_RPS = Number(process.env.BENCH_MAX_RPS ?? 9_000);

interface Scenario {
  name: string;
  method: string;
  target: string;
  body: string;
  /** Least acceptable share of the baseline's requests per second, and largest p99, when the issue sets them. */
  goal?: { minRatio: number; maxP99Ms: number };
}

interface Row {
  scenario: string;
  baseline: LoadResult;
  floor: LoadResult;
  paygate: LoadResult;
  /** paygate over the bare baseline: the measure. */
  ratio: number;
  /** The signature floor over the bare baseline: the best ratio any signature-checking server reaches here. */
  floorRatio: number;
  meetsTarget?: boolean;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const paygatePort = 18_400 + Math.floor(Math.random() * 500);
  const baselinePort = paygatePort + 1;
  const floorPort = paygatePort + 2;
  const children: ChildProcess[] = [];
  try {
    const paygate = await startProcess(children, [join(root, 'dist', 'src', 'cli.js'), 'serve'], {
      PAYGATE_DATA_DIR: dataDir, PORT: String(paygatePort), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    }, /API reference/);
    void paygate;
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-app.json'), 'utf8')) as { app_id: string; private_key_path: string };
    const privateKeyPem = readFileSync(demo.private_key_path, 'utf8');
    const client = new PaygateClient({ baseUrl: `http://127.0.0.1:${paygatePort}`, appId: demo.app_id, privateKey: privateKeyPem });
    const customer = await client.customers.create({
      reference_number: 'BENCH-1', name: 'Chan Tai Man', phone: '91234567', email: 'chan@example.com', dial_code: '852',
    });

    const scenarios: Scenario[] = [
      { name: 'signed echo', method: 'POST', target: '/svc/payment/api/v1/openapi/echo', body: '{"message":"Hello, paygate"}' },
      {
        name: 'signed customer read', method: 'GET', target: `/svc/payment/api/v1/openapi/customers/${customer.uuid}`, body: '',
        goal: { minRatio: 0.35, maxP99Ms: 25 },
      },
    ];

    // The baseline answers each scenario with exactly what paygate answers it with.
    const replies: Record<string, { status: number; body: string }> = {};
    for (const scenario of scenarios) {
      const reply = await client.send(scenario.method, scenario.target, undefined, { rawBody: scenario.body });
      replies[`${scenario.method} ${scenario.target}`] = { status: reply.status, body: reply.text };
    }
    const repliesFile = join(dataDir, 'baseline-replies.json');
    writeFileSync(repliesFile, JSON.stringify(replies));
    await startProcess(children, [join(here, 'baseline-server.js'), String(baselinePort), repliesFile], {}, /ready/);
    const publicKeyFile = join(dataDir, 'demo-public-key.pem');
    await startProcess(children, [join(here, 'signature-floor-server.js'), String(floorPort), repliesFile, publicKeyFile], {}, /ready/);

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const count = Math.ceil(EXPECTED_MAX_RPS * (SECONDS + WARMUP_SECONDS));
      process.stderr.write(`${scenario.name}: signing ${count} requests... `);
      const requests = await signInWorkers({
        appId: demo.app_id, privateKeyPem, host: `127.0.0.1:${paygatePort}`,
        method: scenario.method, target: scenario.target, body: scenario.body, count,
      });
      process.stderr.write('baseline... ');
      const baseline = await load(dataDir, { port: baselinePort, requests, cycle: true });
      process.stderr.write('signature floor... ');
      const floor = await load(dataDir, { port: floorPort, requests, cycle: true });
      process.stderr.write('paygate... ');
      const measured = await load(dataDir, { port: paygatePort, requests, cycle: false });
      process.stderr.write('done\n');
      const share = (part: LoadResult) => Math.round((part.requestsPerSecond / baseline.requestsPerSecond) * 1000) / 1000;
      const ratio = share(measured);
      const meetsTarget = scenario.goal
        ? ratio >= scenario.goal.minRatio && measured.latencyMs.p99 <= scenario.goal.maxP99Ms
        : undefined;
      rows.push({
        scenario: scenario.name, baseline, floor, paygate: measured, ratio, floorRatio: share(floor),
        ...(meetsTarget !== undefined && { meetsTarget }),
      });
    }
    report(rows);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(rows: Row[]): void {
  const database = process.env.DATABASE_URL ? 'PostgreSQL' : `SQLite (synchronous=${process.env.PAYGATE_SQLITE_SYNCHRONOUS ?? 'FULL'})`;
  const lines = [
    `paygate benchmark: ${database}, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, ${cpus().length} cores, node ${process.version}`,
    '',
    '| scenario | bare node:http req/s | signature floor req/s (ratio) | paygate req/s | paygate ratio | paygate / floor | p50 ms | p99 ms | target |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.scenario} | ${r.baseline.requestsPerSecond} | ${r.floor.requestsPerSecond} (${r.floorRatio}) | ` +
      `${r.paygate.requestsPerSecond} | ${r.ratio} | ${Math.round((r.paygate.requestsPerSecond / r.floor.requestsPerSecond) * 100)}% | ` +
      `${r.paygate.latencyMs.p50} | ${r.paygate.latencyMs.p99} | ${r.meetsTarget === undefined ? '' : r.meetsTarget ? 'met' : 'MISSED'} |`),
    '',
    'ratio: share of the bare server\'s requests per second. signature floor: Fastify answering the same bytes after',
    'verifying the signature and nothing else; no signed server can beat it on this machine.',
  ];
  const failures = rows.filter((r) => Object.keys(r.paygate.statuses).some((s) => s !== '200'));
  for (const row of failures) lines.push(`\n${row.scenario}: non-200 replies ${JSON.stringify(row.paygate.statuses)}`);
  for (const row of rows.filter((r) => r.paygate.exhausted)) lines.push(`\n${row.scenario}: ran out of signed requests; raise BENCH_MAX_RPS`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const resultsDir = join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ database, connections: CONNECTIONS, seconds: SECONDS, rows }, null, 2));
}

async function signInWorkers(job: SignJob): Promise<string[]> {
  const workers = Math.max(1, cpus().length);
  const share = Math.ceil(job.count / workers);
  const parts = await Promise.all(Array.from({ length: workers }, () =>
    new Promise<string[]>((resolve, reject) => {
      const worker = new Worker(join(here, 'sign-worker.js'), { workerData: { ...job, count: share } });
      worker.once('message', resolve);
      worker.once('error', reject);
    })));
  return parts.flat();
}

async function load(dataDir: string, plan: Pick<LoadPlan, 'port' | 'requests' | 'cycle'>): Promise<LoadResult> {
  const planFile = join(dataDir, 'plan.json');
  const full: LoadPlan = {
    host: '127.0.0.1', connections: CONNECTIONS, warmupMs: WARMUP_SECONDS * 1000, durationMs: SECONDS * 1000, ...plan,
  };
  writeFileSync(planFile, JSON.stringify(full));
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'load-generator.js'), planFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited with ${code}`))));
  });
  return JSON.parse(output) as LoadResult;
}

function startProcess(children: ChildProcess[], args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      // Only the start-up output is read; after it, the pipe is drained unread.
      seen += chunk.toString();
      if (ready.test(seen)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
