/**
 * Recurring billing throughput (issue 12: "10,000 monthly plans with tokens, the clock advanced one month, every
 * order generated and charged ... under 10 s on SQLite with synchronous=FULL").
 *
 * Setup, not timed for the target but timed and printed: PLANS customers, each with a card bound as a token
 * (the sandbox's frictionless 3-D Secure card), one item, one monthly automated billing config, and one plan per
 * customer whose first cycle starts at the same instant, one day ahead of the merchant's business clock, so that
 * nothing bills while the plans are made and every plan falls due at one time (one job). All of it goes through
 * the signed API, SETUP_CONCURRENCY requests at a time.
 *
 * Timed: two moves of the sandbox clock, each a `POST sandbox/clock` that returns once every billing due on the way
 * has run and committed.
 *   1. one day and a minute: the first billing of every plan (an order each, charged with the plan's token);
 *   2. from there to a minute past the plans' next billing time, one calendar month after the start: every plan's
 *      second order, charged.
 * After each, the generated orders (operation 3) are counted through the API, in all and paid. The paygate
 * server's CPU time (from /proc/<pid>/stat) and its peak resident memory over each phase (VmHWM in
 * /proc/<pid>/status, reset before the phase through /proc/<pid>/clear_refs) are read on Linux.
 *
 * This scenario runs only when BENCH_ONLY names it: it takes minutes and moves the demo merchant's clock a month.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { PaygateClient, RecurringPlanOrder } from '@paygate/client';
import { processCpuMs } from './webhooks.js';

export const RECURRING_SCENARIO = 'recurring billing';
/** The issue's bound, for each move of the clock, on SQLite. */
export const RECURRING_TARGET_SECONDS = 10;
const PLANS = Number(process.env.BENCH_RECURRING_PLANS ?? 10_000);
const SETUP_CONCURRENCY = Number(process.env.BENCH_RECURRING_CONCURRENCY ?? 48);
const DAY_SECONDS = 86_400;
/** The sandbox's card that binds after a frictionless 3-D Secure check (docs/sandbox.md). */
const FRICTIONLESS_CARD = '4000000000003055';

export interface RecurringBench {
  /** A client whose requests may take as long as the billing does (no retry, a long timeout). */
  client: PaygateClient;
  paygatePid: number | undefined;
  run: string;
  progress(text: string): void;
  /** Before each timed phase: brings the database's planner statistics up to date (PostgreSQL). */
  analyze?: () => Promise<void>;
}

export interface RecurringPhase {
  name: string;
  advancedSeconds: number;
  seconds: number;
  plansPerSecond: number;
  /** Generated orders after the phase: all, and paid. */
  orders: number;
  paid: number;
  /** The server's CPU over the phase: ms, and as a share of one core. */
  cpuMs: number | undefined;
  cpuShare: number | undefined;
  /** Peak resident memory over the phase, and resident memory at its end, in MiB. */
  peakRssMiB: number | undefined;
  rssMiB: number | undefined;
}

export interface RecurringResult {
  scenario: string;
  plans: number;
  setup: {
    seconds: number;
    concurrency: number;
    requests: number;
    requestsPerSecond: number;
    peakRssMiB: number | undefined;
    rssMiB: number | undefined;
  };
  phases: RecurringPhase[];
  /** Peak resident memory of the server over setup and billing, MiB. */
  lifetimePeakRssMiB: number | undefined;
  meetsTarget: boolean;
}

export async function recurringScenario(b: RecurringBench): Promise<RecurringResult> {
  const { client } = b;
  const clock = await client.sandbox.clock();
  // Whole seconds, one day ahead: every plan's first billing is at this one instant.
  const start = new Date((Math.floor(Date.parse(clock.now) / 1000) + DAY_SECONDS) * 1000).toISOString();
  const expiry = { exp_month: '12', exp_year: String(new Date(clock.now).getUTCFullYear() + 3) };

  b.progress(
    `${RECURRING_SCENARIO}: setting up ${PLANS} customers, tokens and plans (${SETUP_CONCURRENCY} at a time)... `,
  );
  clearPeak(b.paygatePid);
  const setupStarted = performance.now();
  const item = await client.recurring.createItem({ label: 'Bench membership', price: '99.90', currency: 'HKD' });
  const config = await client.recurring.createBillingConfig({ billing_interval: 'monthly', billing_type: 'automated' });
  let made = 0;
  await pool(PLANS, SETUP_CONCURRENCY, async (i) => {
    const customer = await client.customers.create({
      reference_number: `RB-${b.run}-${i}`,
      name: 'Chan Tai Man',
      phone: '91234567',
    });
    const token = await client.customers.bindCard(customer.uuid, {
      number: FRICTIONLESS_CARD,
      ...expiry,
      cvv: '123',
      holder_name: 'Chan Tai Man',
    });
    if (token.state !== 'success') throw new Error(`binding the card of customer ${i} ended ${token.state}`);
    const plan = await client.recurring.createPlan({
      name: 'Bench monthly',
      reference_number: `RB-${b.run}-${i}`,
      customer_uuid: customer.uuid,
      default_payment_token: token.token,
      cycles: [
        { recurring_items: [{ id: item.id }], recurring_billing_config: config.id, estimated_start_date: start },
      ],
    });
    if (plan.cycles[0]!.next_execute_time !== start)
      throw new Error(`plan ${i} bills first at ${plan.cycles[0]!.next_execute_time}, not ${start}`);
    made += 1;
    if (made % 1000 === 0) b.progress(`${made} `);
  });
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const setupMemory = memory(b.paygatePid);
  const requests = 2 + 3 * PLANS;

  const phases: RecurringPhase[] = [];
  const phase = async (name: string, seconds: number, expected: number) => {
    b.progress(`${name}... `);
    await b.analyze?.();
    clearPeak(b.paygatePid);
    const cpuBefore = processCpuMs(b.paygatePid);
    const began = performance.now();
    await client.sandbox.advanceClock(seconds);
    const took = (performance.now() - began) / 1000;
    const cpuAfter = processCpuMs(b.paygatePid);
    const mem = memory(b.paygatePid);
    const counts = await countOrders(client);
    if (counts.orders !== expected || counts.paid !== expected) {
      b.progress(`(expected ${expected} orders, all paid; found ${counts.orders}, ${counts.paid} paid) `);
    }
    const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    phases.push({
      name,
      advancedSeconds: seconds,
      seconds: round(took),
      plansPerSecond: Math.round(PLANS / took),
      ...counts,
      cpuMs,
      cpuShare: cpuMs === undefined ? undefined : round(cpuMs / 1000 / took),
      peakRssMiB: mem.peak,
      rssMiB: mem.rss,
    });
  };

  // 1. A day and a minute: the plans' first billing, all at the start instant.
  await phase('first billing (clock +1 day 1 min)', DAY_SECONDS + 60, PLANS);
  // 2. To a minute past the second billing time, a calendar month after the start, read from a plan.
  const [one] = (await client.recurring.listPlans({ limit: 1 })).plans;
  const next = Date.parse((await client.recurring.getPlan(one!.id)).cycles[0]!.next_execute_time!);
  const now = Date.parse((await client.sandbox.clock()).now);
  await phase('one month later', Math.ceil((next - now) / 1000) + 60, 2 * PLANS);
  b.progress('done\n');

  return {
    scenario: RECURRING_SCENARIO,
    plans: PLANS,
    setup: {
      seconds: round(setupSeconds),
      concurrency: SETUP_CONCURRENCY,
      requests,
      requestsPerSecond: Math.round(requests / setupSeconds),
      peakRssMiB: setupMemory.peak,
      rssMiB: setupMemory.rss,
    },
    phases,
    lifetimePeakRssMiB: maxOf([setupMemory.peak, ...phases.map((p) => p.peakRssMiB)]),
    meetsTarget: phases.every((p, i) => p.seconds < RECURRING_TARGET_SECONDS && p.paid === (i + 1) * PLANS),
  };
}

export function recurringReport(r: RecurringResult): string[] {
  const mib = (n: number | undefined) => (n === undefined ? '?' : `${n} MiB`);
  return [
    `${RECURRING_SCENARIO}: ${r.plans} monthly plans (one item, a frictionless-card token each), all due at one instant`,
    '',
    '| phase | clock moved | seconds | plans/s | orders / paid after | paygate CPU (share of a core) | peak RSS / RSS at end | target |',
    '|---|---|---|---|---|---|---|---|',
    `| setup: ${r.setup.requests} signed requests, ${r.setup.concurrency} at a time | | ${r.setup.seconds} | ${Math.round(r.plans / r.setup.seconds)} ` +
      `(${r.setup.requestsPerSecond} requests/s) | | | ${mib(r.setup.peakRssMiB)} / ${mib(r.setup.rssMiB)} | |`,
    ...r.phases.map(
      (p) =>
        `| ${p.name} | ${p.advancedSeconds} s | ${p.seconds} | ${p.plansPerSecond} | ${p.orders} / ${p.paid} | ` +
        `${p.cpuMs === undefined ? '?' : `${Math.round(p.cpuMs)} ms (${p.cpuShare})`} | ${mib(p.peakRssMiB)} / ${mib(p.rssMiB)} | ` +
        `${p.seconds < RECURRING_TARGET_SECONDS ? 'met' : 'MISSED'} (< ${RECURRING_TARGET_SECONDS} s) |`,
    ),
    '',
    `paygate peak RSS over setup and billing: ${mib(r.lifetimePeakRssMiB)}. Target: each move of the clock bills every plan in under ` +
      `${RECURRING_TARGET_SECONDS} s, every order paid: ${r.meetsTarget ? 'met' : 'MISSED'}.`,
  ];
}

/** Runs `task(0..count-1)` with at most `concurrency` at once; the first failure stops the rest. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count && failed === undefined) {
        const i = next++;
        try {
          await task(i);
        } catch (error) {
          failed ??= error;
        }
      }
    }),
  );
  if (failed !== undefined) throw failed;
}

/** Generated orders (operation 3), in all and paid, read through the API a thousand at a time. */
async function countOrders(client: PaygateClient): Promise<{ orders: number; paid: number }> {
  let orders = 0;
  let paid = 0;
  for (let offset = 0; ; offset += 1000) {
    const page: RecurringPlanOrder[] = await client.recurring.listOrders({ offset, limit: 1000 });
    orders += page.length;
    paid += page.filter((record) => record.order.correspondence_state === 'paid').length;
    if (page.length < 1000) return { orders, paid };
  }
}

/** Resets the process's peak resident memory (VmHWM) to what it holds now (Linux; the bench started the process). */
export function clearPeak(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not Linux, or not allowed: the peak then covers the process's life so far.
  }
}

/** VmHWM (peak since the last reset) and VmRSS of a process, in MiB, from /proc (Linux). */
export function memory(pid: number | undefined): { peak: number | undefined; rss: number | undefined } {
  if (pid === undefined) return { peak: undefined, rss: undefined };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => {
      const kb = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
      return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
    };
    return { peak: field('VmHWM'), rss: field('VmRSS') };
  } catch {
    return { peak: undefined, rss: undefined };
  }
}

export function maxOf(values: Array<number | undefined>): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

export function round(value: number): number {
  return Math.round(value * 100) / 100;
}
