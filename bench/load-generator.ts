/**
 * A closed-loop HTTP/1.1 load generator over raw keep-alive sockets, run as its own process. An operation is a
 * sequence of requests (one, or several that depend on each other, such as create an order then pay it): a
 * connection sends them one after the other, each after the whole reply to the last, and records the latency
 * of the whole operation. Requests come pre-built (signed ahead of time, each with its own nonce) and each
 * operation is used once unless cycling is asked for.
 *
 * Usage: node load-generator.js PLAN.json   (prints a JSON result on stdout)
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

export interface LoadPlan {
  host: string;
  port: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Reuse operations when they run out (only for servers that do not check nonces). */
  cycle: boolean;
  /** Each operation: its requests, in order. */
  operations: string[][];
  /** Ports of several server processes sharing one database, one per connection in turn (instead of `port`). */
  ports?: number[];
  /** Source addresses, one per connection in turn (many callers from one machine: 127.0.0.x on loopback). */
  localAddresses?: string[];
  /** A pause after each operation's reply before the connection sends the next (a person at a browser). */
  pauseMs?: number;
}

export interface LoadResult {
  completed: number;
  seconds: number;
  operationsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  /** True when the pre-built requests ran out before the duration ended. */
  exhausted: boolean;
  /** Operations completed over the whole run, warm-up and stragglers after the window included. */
  total: number;
  /** The measured window on the wall clock (ms since the epoch), to line it up with other processes' counts. */
  window: { fromEpochMs: number; toEpochMs: number };
}

const HEADER_END = Buffer.from('\r\n\r\n');

async function run(plan: LoadPlan): Promise<LoadResult> {
  const operations = plan.operations.map((sequence) => sequence.map((text) => Buffer.from(text, 'latin1')));
  let next = 0;
  let exhausted = false;
  const latencies: number[] = [];
  let finished = 0;
  const statuses: Record<string, number> = {};
  const start = performance.now();
  const measureFrom = start + plan.warmupMs;
  const stopAt = measureFrom + plan.durationMs;
  let measuredEnd = stopAt;

  const take = (): Buffer[] | undefined => {
    if (next >= operations.length) {
      if (!plan.cycle) {
        if (!exhausted) measuredEnd = performance.now();
        exhausted = true;
        return undefined;
      }
      next = 0;
    }
    return operations[next++];
  };

  const drive = (socket: Socket) =>
    new Promise<void>((resolve, reject) => {
      let buffer: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      let sequence: Buffer[] = [];
      let step = 0;
      let worst = '200';
      const send = () => {
        const operation = performance.now() < stopAt ? take() : undefined;
        if (!operation) {
          socket.end();
          resolve();
          return;
        }
        sequence = operation;
        step = 0;
        worst = '200';
        sentAt = performance.now();
        socket.write(sequence[0]!);
      };
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        const headerEnd = buffer.indexOf(HEADER_END);
        if (headerEnd < 0) return;
        const head = buffer.subarray(0, headerEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        const total = headerEnd + HEADER_END.length + length;
        if (buffer.length < total) return;
        buffer = buffer.subarray(total);
        const status = head.slice(9, 12);
        if (status !== '200') worst = status;
        step += 1;
        if (step < sequence.length) {
          socket.write(sequence[step]!);
          return;
        }
        const now = performance.now();
        finished += 1;
        if (sentAt >= measureFrom && now <= stopAt) {
          latencies.push(now - sentAt);
          statuses[worst] = (statuses[worst] ?? 0) + 1;
        }
        if (plan.pauseMs) setTimeout(send, plan.pauseMs);
        else send();
      });
      socket.on('error', reject);
      socket.once('connect', send);
    });

  const addresses = plan.localAddresses ?? [];
  await Promise.all(
    Array.from({ length: plan.connections }, (_, i) =>
      drive(
        connect({
          port: plan.ports ? plan.ports[i % plan.ports.length]! : plan.port,
          host: plan.host,
          ...(addresses.length > 0 && { localAddress: addresses[i % addresses.length] }),
        }),
      ),
    ),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const measuredTo = Math.min(measuredEnd, stopAt);
  const seconds = Math.max(0.001, (measuredTo - measureFrom) / 1000);
  return {
    completed: latencies.length,
    seconds: round(seconds),
    operationsPerSecond: Math.round(latencies.length / seconds),
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(latencies.at(-1) ?? 0) },
    statuses,
    exhausted,
    total: finished,
    window: {
      fromEpochMs: Math.round(performance.timeOrigin + measureFrom),
      toEpochMs: Math.round(performance.timeOrigin + measuredTo),
    },
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

const planFile = process.argv[2];
if (planFile) {
  run(JSON.parse(readFileSync(planFile, 'utf8')) as LoadPlan).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
