/**
 * A closed-loop HTTP/1.1 load generator over raw keep-alive sockets, run as its own process. Each connection
 * sends one request, waits for the whole reply, records the latency, and sends the next. Requests come
 * pre-built (signed ahead of time, each with its own nonce) and each is used once unless cycling is asked for.
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
  /** Reuse requests when they run out (only for servers that do not check nonces). */
  cycle: boolean;
  requests: string[];
}

export interface LoadResult {
  completed: number;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  /** True when the pre-built requests ran out before the duration ended. */
  exhausted: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');

async function run(plan: LoadPlan): Promise<LoadResult> {
  const requests = plan.requests.map((text) => Buffer.from(text, 'latin1'));
  let next = 0;
  let exhausted = false;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const start = performance.now();
  const measureFrom = start + plan.warmupMs;
  const stopAt = measureFrom + plan.durationMs;
  let measuredEnd = stopAt;

  const take = (): Buffer | undefined => {
    if (next >= requests.length) {
      if (!plan.cycle) {
        if (!exhausted) measuredEnd = performance.now();
        exhausted = true;
        return undefined;
      }
      next = 0;
    }
    return requests[next++];
  };

  const drive = (socket: Socket) =>
    new Promise<void>((resolve, reject) => {
      let buffer: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        const request = performance.now() < stopAt ? take() : undefined;
        if (!request) {
          socket.end();
          resolve();
          return;
        }
        sentAt = performance.now();
        socket.write(request);
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
        const now = performance.now();
        if (sentAt >= measureFrom && now <= stopAt) {
          latencies.push(now - sentAt);
          const status = head.slice(9, 12);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        send();
      });
      socket.on('error', reject);
      socket.once('connect', send);
    });

  await Promise.all(Array.from({ length: plan.connections }, () => drive(connect(plan.port, plan.host))));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const seconds = Math.max(0.001, (Math.min(measuredEnd, stopAt) - measureFrom) / 1000);
  return {
    completed: latencies.length,
    seconds: round(seconds),
    requestsPerSecond: Math.round(latencies.length / seconds),
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(latencies.at(-1) ?? 0) },
    statuses,
    exhausted,
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
