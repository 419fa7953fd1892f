/**
 * Webhook deliveries per second to a local receiver (the issue's target: at least 1,000 per second on SQLite).
 *
 * The receiver is a bare node:http server in the bench's own process: it answers 200 at once, counts what
 * arrives (with the time), checks event ids for duplicates and verifies a sample of signatures. The bench
 * process has nothing else to do while deliveries are measured, and it is not the paygate process, so the
 * sender and the receiver can run on a core each; a child process would cost an IPC hop for the counts and the
 * release, and buy nothing. The demo app's endpoint is pointed at it with `paygate app webhook`.
 *
 * Two measurements, one after the other:
 *
 * 1. Drain of a backlog. Orders are created as fast as the API takes them while the receiver holds the
 *    sender's first requests unanswered: the sender claims what is due, posts it, and waits for the answers,
 *    so every later event stays pending in the outbox, due now, with no failed attempt and no rescheduling.
 *    Then the receiver answers the held requests and everything after at once: the sender drains the backlog
 *    as fast as it can, alone on the server. Reported: received per second (release to last arrival, and in
 *    the steady middle, 10% to 90%), and recorded per second (release until the server's
 *    paygate_webhook_attempts_total{outcome="delivered"} counter, raised after each batch's transaction
 *    commits, covers the backlog). The server runs with PAYGATE_WEBHOOK_TIMEOUT_MS=60000 so that the held
 *    requests do not time out while the backlog is written.
 * 2. End to end. Orders are created as fast as the API takes them with the receiver answering at once: orders
 *    created per second beside deliveries received per second over the same window, what was not yet
 *    delivered when the load stopped, and how long the rest took.
 */
import { spawn } from 'node:child_process';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { verifyWebhook } from '@paygate/client';
import type { LoadPlan, LoadResult } from './load-generator.js';
import type { RequestTemplate } from './sign-worker.js';

export const WEBHOOK_SCENARIO = 'webhook deliveries';
/** Deliveries per second the issue asks for, on SQLite. */
export const WEBHOOK_TARGET_PER_SECOND = 1_000;
/** Order creations per second to prepare for, for the end-to-end run (raise BENCH_HEADROOM on a faster machine). */
const MAX_CREATES_PER_SECOND = 2_000;
/** The server's webhook timeout in this bench: the backlog must be written before the held requests give up. */
export const BENCH_WEBHOOK_TIMEOUT_MS = 60_000;
const VERIFY_EVERY = 97;
/**
 * What one claim of the sender takes (WebhookSender's concurrency, src/webhooks/sender.ts). Up to four runs claim
 * at once, so with a backlog the batches seen by the receiver interleave: the per-batch figures are approximate.
 */
const SENDER_BATCH = 100;
const ORDERS = '/svc/payment/api/v1/openapi/orders';

export interface WebhookBench {
  root: string;
  dataDir: string;
  paygatePort: number;
  /** The paygate server's process id, to read its CPU time (on Linux). */
  paygatePid: number | undefined;
  appId: string;
  webhookPublicKeyPem: string;
  /** Makes reference numbers unique to this run. */
  run: string;
  seconds: number;
  warmupSeconds: number;
  headroom: number;
  sign(operations: RequestTemplate[][]): Promise<string[][]>;
  load(
    plan: Pick<LoadPlan, 'port' | 'operations' | 'cycle'> & Partial<Pick<LoadPlan, 'warmupMs' | 'durationMs'>>,
  ): Promise<LoadResult>;
  progress(text: string): void;
}

export interface WebhookResult {
  scenario: string;
  backlog: {
    events: number;
    /** How the backlog was written: the order-create load, with the sender held up by the receiver. */
    create: LoadResult;
    /** Requests the receiver held while the backlog was written, and for how long (must stay under the timeout). */
    held: number;
    heldMs: number;
    receivedSeconds: number;
    receivedPerSecond: number;
    /** From 10% to 90% of the backlog received. */
    steadyPerSecond: number;
    recordedSeconds: number;
    recordedPerSecond: number;
    /**
     * CPU time per delivery over the drain (release to recorded): paygate's (Linux only), and the bench process's (the
     * receiver).
     */
    cpuMicrosPerDelivery: { paygate: number | undefined; receiver: number };
    /** CPU over the drain as a share of one core. */
    cpuShare: { paygate: number | undefined; receiver: number };
    /**
     * The sender's cycle as the receiver sees it, batch by batch (medians): from the first to the last request of
     * a batch, and from there to the first request of the next (recording the batch, claiming the next, and
     * everything else done between posts).
     */
    batchMs: { posting: number; between: number; batches: number };
  };
  endToEnd: {
    create: LoadResult;
    ordersPerSecond: number;
    /** Deliveries received within the load generator's measured window, per second. */
    deliveredPerSecond: number;
    /** Events made but not yet received when the load stopped. */
    undeliveredAtEnd: number;
    /** From the end of the load to the last delivery. */
    drainMs: number;
    missing: number;
  };
  checks: {
    received: number;
    duplicates: number;
    signaturesVerified: number;
    signaturesBad: number;
    /** paygate_webhook_attempts_total over the scenario, by outcome. */
    attempts: Record<string, number>;
    /** `paygate webhooks list --limit 1000`: the newest deliveries to the receiver, by state and attempts. */
    newestDeliveries: Record<string, number>;
  };
  meetsTarget: boolean;
}

class Receiver {
  /** When each request had arrived whole, in ms since the epoch (comparable with other processes'). */
  readonly arrivals: number[] = [];
  readonly eventIds = new Set<string>();
  duplicates = 0;
  verified = 0;
  bad = 0;
  held: ServerResponse[] = [];
  heldSince: number | undefined;
  private answering = false;
  private readonly server: Server;
  private readonly key: KeyObject;
  private base = '';

  constructor(webhookPublicKeyPem: string) {
    this.key = createPublicKey(webhookPublicKeyPem);
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const count = this.arrivals.push(performance.timeOrigin + performance.now());
        const id = request.headers['x-event-id'];
        if (typeof id === 'string') {
          if (this.eventIds.has(id)) this.duplicates += 1;
          else this.eventIds.add(id);
        }
        if (count % VERIFY_EVERY === 1) {
          try {
            verifyWebhook(request.headers, Buffer.concat(chunks), this.key, `${this.base}${request.url ?? '/'}`);
            this.verified += 1;
          } catch {
            this.bad += 1;
          }
        }
        if (this.answering) answer(response);
        else {
          this.heldSince ??= Date.now();
          this.held.push(response);
        }
      });
    });
    // The sender keeps its connections; so does the receiver, also while it holds requests.
    this.server.keepAliveTimeout = 2 * BENCH_WEBHOOK_TIMEOUT_MS;
  }

  get url(): string {
    return `${this.base}/paygate-webhooks`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers the held requests, and every later one at once. */
  release(): void {
    this.answering = true;
    for (const response of this.held) answer(response);
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

function answer(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  response.end('ok');
}

export async function webhookScenario(b: WebhookBench): Promise<WebhookResult> {
  const receiver = new Receiver(b.webhookPublicKeyPem);
  await receiver.listen();
  const now = () => performance.timeOrigin + performance.now();
  const createOrder =
    (prefix: string) =>
    (i: number): RequestTemplate[] => [
      {
        method: 'POST',
        target: ORDERS,
        body: JSON.stringify({
          order: { reference_number: `${prefix}-${b.run}-${i}`, currency: 'HKD', charge_fee: '21.00' },
        }),
      },
    ];
  const backlogSize = Number(
    process.env.BENCH_WEBHOOK_EVENTS ?? Math.ceil(MAX_CREATES_PER_SECOND * b.headroom * (b.seconds + b.warmupSeconds)),
  );
  const flowSize = Math.ceil(MAX_CREATES_PER_SECOND * b.headroom * (b.seconds + b.warmupSeconds));
  try {
    b.progress(`${WEBHOOK_SCENARIO}: signing ${backlogSize + flowSize} order creations... `);
    const backlogOperations = await b.sign(Array.from({ length: backlogSize }, (_, i) => createOrder('WB')(i)));
    const flowOperations = await b.sign(Array.from({ length: flowSize }, (_, i) => createOrder('WE')(i)));
    await paygateCli(b, ['app', 'webhook', b.appId, receiver.url, '--json']);
    const before = await attemptsByOutcome(b.paygatePort);

    // 1. A backlog, written while the receiver holds the sender's first requests; then drained.
    b.progress('backlog (receiver holding)... ');
    const create = await b.load({
      port: b.paygatePort,
      operations: backlogOperations,
      cycle: false,
      warmupMs: 0,
      durationMs: BENCH_WEBHOOK_TIMEOUT_MS / 2,
    });
    const events = create.statuses['200'] ?? 0;
    const held = receiver.held.length;
    const heldMs = receiver.heldSince === undefined ? 0 : Date.now() - receiver.heldSince;
    if (create.exhausted === false)
      throw new Error(
        `the backlog of ${backlogSize} orders took more than ${BENCH_WEBHOOK_TIMEOUT_MS / 2000} s; lower BENCH_WEBHOOK_EVENTS`,
      );
    if (events === 0) throw new Error(`no order was created for the backlog: ${JSON.stringify(create.statuses)}`);
    b.progress('draining... ');
    const cpuBefore = { paygate: processCpuMs(b.paygatePid), receiver: ownCpuMs() };
    const releasedAt = now();
    receiver.release();
    const recordedAt = await waitFor(
      async () => (await attemptsByOutcome(b.paygatePort)).delivered! - (before.delivered ?? 0) >= events,
      600_000,
      100,
    );
    const paygateCpuAfter = processCpuMs(b.paygatePid);
    const cpuMs = {
      paygate:
        paygateCpuAfter === undefined || cpuBefore.paygate === undefined
          ? undefined
          : paygateCpuAfter - cpuBefore.paygate,
      receiver: ownCpuMs() - cpuBefore.receiver,
    };
    await waitFor(async () => receiver.arrivals.length >= events, 10_000, 50);
    const arrival = (share: number) => receiver.arrivals[Math.max(0, Math.ceil(share * events) - 1)]!;
    // The held requests were the first claims (up to four runs' worth); every claim after them takes a full batch
    // until the tail.
    const posting: number[] = [];
    const between: number[] = [];
    for (let i = held; i + SENDER_BATCH < events; i += SENDER_BATCH) {
      posting.push(receiver.arrivals[i + SENDER_BATCH - 1]! - receiver.arrivals[i]!);
      between.push(receiver.arrivals[i + SENDER_BATCH]! - receiver.arrivals[i + SENDER_BATCH - 1]!);
    }
    const receivedSeconds = (arrival(1) - releasedAt) / 1000;
    const recordedSeconds = ((recordedAt ?? now()) - releasedAt) / 1000;

    // 2. End to end: orders as fast as the API takes them, delivered as they come.
    b.progress('orders with deliveries... ');
    const receivedBefore = receiver.arrivals.length;
    const flow = await b.load({ port: b.paygatePort, operations: flowOperations, cycle: false });
    const expected = receivedBefore + flow.total;
    let last = receiver.arrivals.length;
    let lastChange = Date.now();
    await waitFor(
      async () => {
        if (receiver.arrivals.length !== last) [last, lastChange] = [receiver.arrivals.length, Date.now()];
        return receiver.arrivals.length >= expected || Date.now() - lastChange > 5_000;
      },
      600_000,
      50,
    );
    // And recorded: the last batch's transaction may still be open.
    await waitFor(
      async () =>
        (await attemptsByOutcome(b.paygatePort)).delivered! - (before.delivered ?? 0) >= receiver.arrivals.length,
      10_000,
      50,
    );
    const flowArrivals = receiver.arrivals.slice(receivedBefore);
    const inWindow = flowArrivals.filter((t) => t >= flow.window.fromEpochMs && t <= flow.window.toEpochMs).length;
    const byEnd = flowArrivals.filter((t) => t <= flow.window.toEpochMs).length;
    const after = await attemptsByOutcome(b.paygatePort);
    const attempts = Object.fromEntries(
      Object.entries(after).map(([outcome, n]) => [outcome, n - (before[outcome] ?? 0)]),
    );
    const newestDeliveries = await newestStates(b, receiver.url);
    b.progress('done\n');

    const perSecond = (count: number, seconds: number) => Math.round(count / Math.max(seconds, 0.001));
    const perDelivery = (ms: number | undefined) =>
      ms === undefined ? undefined : Math.round((ms * 1000) / Math.max(events, 1));
    const share = (ms: number | undefined) =>
      ms === undefined ? undefined : round(ms / 1000 / Math.max(recordedSeconds, 0.001));
    const recordedPerSecond = perSecond(events, recordedSeconds);
    return {
      scenario: WEBHOOK_SCENARIO,
      backlog: {
        events,
        create,
        held,
        heldMs,
        receivedSeconds: round(receivedSeconds),
        receivedPerSecond: perSecond(events, receivedSeconds),
        steadyPerSecond: perSecond(
          Math.ceil(0.9 * events) - Math.ceil(0.1 * events),
          (arrival(0.9) - arrival(0.1)) / 1000,
        ),
        recordedSeconds: round(recordedSeconds),
        recordedPerSecond,
        cpuMicrosPerDelivery: { paygate: perDelivery(cpuMs.paygate), receiver: perDelivery(cpuMs.receiver)! },
        cpuShare: { paygate: share(cpuMs.paygate), receiver: share(cpuMs.receiver)! },
        batchMs: { posting: round(median(posting)), between: round(median(between)), batches: posting.length },
      },
      endToEnd: {
        create: flow,
        ordersPerSecond: flow.operationsPerSecond,
        deliveredPerSecond: perSecond(inWindow, flow.seconds),
        undeliveredAtEnd: flow.total - byEnd,
        drainMs: Math.max(0, Math.round((flowArrivals.at(-1) ?? flow.window.toEpochMs) - flow.window.toEpochMs)),
        missing: Math.max(0, expected - receiver.arrivals.length),
      },
      checks: {
        received: receiver.arrivals.length,
        duplicates: receiver.duplicates,
        signaturesVerified: receiver.verified,
        signaturesBad: receiver.bad,
        attempts,
        newestDeliveries,
      },
      meetsTarget: recordedAt !== undefined && recordedPerSecond >= WEBHOOK_TARGET_PER_SECOND,
    };
  } finally {
    await paygateCli(b, ['app', 'webhook', b.appId, '--clear', '--json']).catch(() => undefined);
    receiver.close();
  }
}

export function webhookReport(r: WebhookResult): string[] {
  const { backlog: k, endToEnd: e, checks: c } = r;
  const states = Object.entries(c.newestDeliveries)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  return [
    `${WEBHOOK_SCENARIO}: one app endpoint, a node:http receiver answering 200 at once (in the bench process)`,
    '',
    '| measure | value |',
    '|---|---|',
    `| backlog: order.created events waiting | ${k.events} (written at ${k.create.operationsPerSecond} orders/s while the receiver held ${k.held} request(s) for ${round(k.heldMs / 1000)} s) |`,
    `| backlog: received per second, release to last | ${k.receivedPerSecond} (${k.receivedSeconds} s) |`,
    `| backlog: received per second, 10% to 90% | ${k.steadyPerSecond} |`,
    `| backlog: recorded delivered per second | ${k.recordedPerSecond} (${k.recordedSeconds} s) |`,
    `| target (${WEBHOOK_TARGET_PER_SECOND}/s recorded) | ${r.meetsTarget ? 'met' : 'MISSED'} |`,
    `| backlog: CPU per delivery, paygate / receiver | ${k.cpuMicrosPerDelivery.paygate ?? '?'} µs / ${k.cpuMicrosPerDelivery.receiver} µs ` +
      `(${k.cpuShare.paygate ?? '?'} / ${k.cpuShare.receiver} of a core) |`,
    `| backlog: sender cycle per batch of ${SENDER_BATCH} (medians of ${k.batchMs.batches}) | ${k.batchMs.posting} ms posting, ${k.batchMs.between} ms between batches |`,
    `| end to end: orders created per second | ${e.ordersPerSecond} (p50 ${e.create.latencyMs.p50} ms, p99 ${e.create.latencyMs.p99} ms) |`,
    `| end to end: deliveries received per second, same window | ${e.deliveredPerSecond} |`,
    `| end to end: not yet delivered when the load stopped | ${e.undeliveredAtEnd} (all in ${round(e.drainMs / 1000)} s more${e.missing > 0 ? `; ${e.missing} never arrived` : ''}) |`,
    `| checks | ${c.received} received, ${c.duplicates} duplicates, signatures ${c.signaturesVerified} verified / ${c.signaturesBad} bad, ` +
      `attempts ${JSON.stringify(c.attempts)}, newest 1000 deliveries: ${states} |`,
  ];
}

/** Runs the paygate command line against the bench's data folder (and DATABASE_URL, if set), as an operator would. */
function paygateCli(b: WebhookBench, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(b.root, 'dist', 'src', 'paygate.js'), ...args], {
      env: { ...process.env, PAYGATE_DATA_DIR: b.dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`paygate ${args.join(' ')} exited with ${code}`)),
    );
  });
}

async function newestStates(b: WebhookBench, url: string): Promise<Record<string, number>> {
  const { deliveries } = JSON.parse(await paygateCli(b, ['webhooks', 'list', '--limit', '1000', '--json'])) as {
    deliveries: Array<{ url: string; state: string; attempts: number }>;
  };
  const states: Record<string, number> = {};
  for (const d of deliveries.filter((candidate) => candidate.url === url)) {
    const key = `${d.state} after ${d.attempts} attempt(s)`;
    states[key] = (states[key] ?? 0) + 1;
  }
  return states;
}

/** A process's user + system CPU time in ms, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : cpuMsOf(`/proc/${pid}/stat`);
}

/** The same for the process's main thread alone (its event loop), whose thread id is the process id. */
export function mainThreadCpuMs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOf(statFile: string): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function attemptsByOutcome(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts: Record<string, number> = { delivered: 0 };
  for (const match of text.matchAll(/^paygate_webhook_attempts_total\{outcome="(\w+)"\} (\d+)$/gm))
    counts[match[1]!] = Number(match[2]);
  return counts;
}

/** Polls until the condition holds; returns when (ms since the epoch), or undefined after the timeout. */
async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  everyMs: number,
): Promise<number | undefined> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await condition()) return performance.timeOrigin + performance.now();
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
