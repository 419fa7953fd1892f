/**
 * How long the command line takes, start to exit (issue 35: `paygate --help` and `paygate call` under 250 ms of
 * wall time): `npm run bench:cli`. Each command runs ROUNDS times, one after another, as a person or a script runs
 * it (a new Node process each time); the report gives the median and the slowest, beside `node -e ''` (Node's own
 * start, the floor) on the same machine at the same moment. `call` signs an echo as the demo app against a server
 * started here on a fresh data folder. NODE_EXTRA_CA_CERTS is left out of the commands' environment: where it is set
 * (this machine sets it), every Node process reads and parses the certificates at start, about 60 ms that belong to
 * the machine, not to paygate.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, stop } from './processes.js';

const ROOT = new URL('../..', import.meta.url).pathname;
// CLI_BENCH_PAYGATE: another build's paygate.js, to compare (an older checkout built in a worktree).
const PAYGATE = process.env.CLI_BENCH_PAYGATE ?? join(ROOT, 'dist', 'src', 'paygate.js');
const ROUNDS = Number(process.env.CLI_BENCH_ROUNDS ?? 15);
const TARGET_MS = 250;

function timeRun(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function measure(name: string, args: string[], env: NodeJS.ProcessEnv) {
  timeRun(args, env); // the first run fills the file cache; it is not counted
  const times = Array.from({ length: ROUNDS }, () => timeRun(args, env)).sort((a, b) => a - b);
  return { name, median: times[Math.floor(times.length / 2)]!, slowest: times[times.length - 1]! };
}

const dataDir = mkdtempSync(join(tmpdir(), 'paygate-cli-bench-'));
const { NODE_EXTRA_CA_CERTS: _machineCertificates, ...machine } = process.env;
const port = String(18_900 + Math.floor(Math.random() * 500));
const env = { ...machine, PAYGATE_DATA_DIR: dataDir, PORT: port, LOG_LEVEL: 'info' };
const children: ChildProcess[] = [];
const server = await startProcess(
  children,
  [PAYGATE, 'serve'],
  { PAYGATE_DATA_DIR: dataDir, PORT: port },
  /API reference/,
);
try {
  const callEnv = { ...env, PAYGATE_PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
  const rows = [
    measure("node -e '' (the floor)", ['-e', ''], env),
    measure('paygate --help', [PAYGATE, '--help'], env),
    measure(
      'paygate call POST …/echo',
      [PAYGATE, 'call', 'POST', '/svc/payment/api/v1/openapi/echo', '{"message":"hello"}'],
      callEnv,
    ),
    measure('paygate merchant list', [PAYGATE, 'merchant', 'list'], env),
  ];
  console.log(
    `paygate command line: ${ROUNDS} runs each, Node ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
  console.log('| command | median ms | slowest ms | target |');
  console.log('|---|---|---|---|');
  for (const row of rows) {
    const judged = row.name.startsWith('paygate --help') || row.name.startsWith('paygate call');
    const verdict = judged ? (row.median < TARGET_MS ? `met (< ${TARGET_MS} ms)` : `MISSED (< ${TARGET_MS} ms)`) : '';
    console.log(`| ${row.name} | ${row.median.toFixed(0)} | ${row.slowest.toFixed(0)} | ${verdict} |`);
  }
} finally {
  await stop(server);
  rmSync(dataDir, { recursive: true, force: true });
}
