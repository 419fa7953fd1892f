import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/version.js';

export const CLI = join(PROJECT_ROOT, 'dist', 'src', 'paygate.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `paygate ...` as a separate process, the way an operator would. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, cwd: PROJECT_ROOT },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Runs a command line with `sh` in the project folder, in exactly `env` (nothing of this process's environment). */
export function runShell(command: string, env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', command], { env, cwd: PROJECT_ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs `work` on every item, at most `limit` at a time (a CLI process costs a Node start and the modules' load). */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * A port free now, for a server the test starts later. Drawn at random below Linux's ephemeral range (32768 and up):
 * a port the kernel chose for a listener on port 0 (a test receiver) could be handed out again to the next such
 * listener between this probe and the server's start (CI once saw `serve` refused its port so).
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; ; tries += 1) {
    const port = FIRST_TEST_PORT + Math.floor(Math.random() * (LAST_TEST_PORT - FIRST_TEST_PORT));
    if (await isFree(port)) return port;
    if (tries >= 100) throw new Error(`no free port between ${FIRST_TEST_PORT} and ${LAST_TEST_PORT} after 100 tries`);
  }
}

const FIRST_TEST_PORT = 20_000;
const LAST_TEST_PORT = 32_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `paygate serve` in its own process; resolves once `ready` appears in its output. */
export async function startServe(
  env: Record<string, string>,
  ready = /API reference: /,
  args: string[] = [],
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { ...process.env, ...env },
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not become ready:\n${stdout}\n${stderr}`)), 30_000);
    const check = () => {
      if (ready.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before it was ready:\n${stdout}\n${stderr}`));
    });
  });
  return {
    child,
    output: () => stdout,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
