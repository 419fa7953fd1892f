import { merchantContext, type Context, type DueWork, type PlatformContext } from '../context/context.js';
import { businessTimeOf } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { newId } from '../platform/ids.js';
import type { Metrics } from '../platform/metrics.js';
import { findMerchant } from '../platform/tenants.js';
import { claimDue, JOB_QUEUE, nextDueOf, realignDue, renewLease, settleLeased } from './lease.js';
import { dropPendingJob, insertJob, type JobRow } from './store.js';

export type PlatformJobHandler = (ctx: PlatformContext, payload: unknown, job: JobRow) => Promise<void>;
export type MerchantJobHandler = (ctx: Context, payload: unknown, job: JobRow) => Promise<void>;

/** A kind of job and what runs it: a capability's (in its module), or the platform's own upkeep. */
export type JobDefinition =
  /**
   * Work for one merchant, due on that merchant's business clock. `alone`: a long job (a batch's chunk of rows),
   * claimed one at a time, so that processes sharing a database share such jobs, and none waits out its lease in
   * another's claim.
   */
  | { kind: string; scope: 'merchant'; run: MerchantJobHandler; alone?: boolean }
  /** Work for the platform as a whole, due on the wall clock; `everyMs` makes it periodic. */
  | { kind: string; scope: 'platform'; run: PlatformJobHandler; everyMs?: number };

export const merchantJob = (kind: string, run: MerchantJobHandler, options: { alone?: boolean } = {}): JobDefinition =>
  ({ kind, scope: 'merchant', run, ...(options.alone && { alone: true }) });
export const platformJob = (kind: string, run: PlatformJobHandler, options: { everyMs?: number } = {}): JobDefinition =>
  ({ kind, scope: 'platform', run, everyMs: options.everyMs });

export interface SchedulerOptions {
  platform: PlatformContext;
  /** Identifies this process in leases, for operators. */
  owner?: string;
  pollMs: number;
  leaseMs?: number;
  batchSize?: number;
  maxAttempts?: number;
  metrics?: Metrics;
}

/**
 * Runs due work from the jobs table. A claim leases its jobs and fences them with a token: processes sharing one
 * PostgreSQL never run a job at the same time, a running job's lease is renewed while it runs, and a job of a
 * process that died is taken over once its lease runs out. Within a process, one run at a time. Handlers must
 * still tolerate running twice (a process that stalls past its lease loses the job while still running it).
 */
export class Scheduler implements DueWork {
  readonly owner: string;
  private readonly jobs = new Map<string, JobDefinition>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SchedulerOptions) {
    this.owner = options.owner ?? `scheduler-${newId()}`;
  }

  register(...definitions: JobDefinition[]): this {
    for (const definition of definitions) this.jobs.set(definition.kind, definition);
    return this;
  }

  registerPlatformJob(kind: string, run: PlatformJobHandler, options: { everyMs?: number } = {}): this {
    return this.register(platformJob(kind, run, options));
  }

  registerMerchantJob(kind: string, run: MerchantJobHandler): this {
    return this.register(merchantJob(kind, run));
  }

  async start(): Promise<void> {
    await this.ensurePeriodicJobs();
    this.schedule(0);
  }

  /** Each periodic job has one row, created on first start and rescheduled after every run. */
  async ensurePeriodicJobs(): Promise<void> {
    const now = this.now();
    for (const [kind, definition] of this.jobs) {
      if (definition.scope === 'platform' && definition.everyMs !== undefined) {
        await insertJob(this.options.platform.db, {
          id: newId(), kind, merchantId: null, dueAt: now, payload: null, dedupeKey: `periodic:${kind}`,
        }, now);
      }
    }
  }

  /** Stops taking work; waits for the job running now, not for the rest of what is due. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.turn.catch(() => undefined);
  }

  runDue(filter: { merchantId?: string } = {}): Promise<number> {
    const run = this.turn.catch(() => undefined).then(() => this.drain(filter));
    this.turn = run;
    return run;
  }

  realign(db: Db, merchantId: string, offsetMs: number, dueBy?: number): Promise<void> {
    return realignDue(db, JOB_QUEUE, merchantId, offsetMs, dueBy);
  }

  nextDue(merchantId: string): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined> {
    return nextDueOf(this.options.platform.db, JOB_QUEUE, merchantId, this.now(), [...this.jobs.keys()]);
  }

  private async drain(filter: { merchantId?: string }): Promise<number> {
    let count = 0;
    // A merchant's run (the sandbox clock, answering a request) finishes even while stopping.
    while (!this.stopping || filter.merchantId !== undefined) {
      const claim = { owner: this.owner, token: newId(), now: this.now(), leaseMs: this.leaseMs, merchantId: filter.merchantId };
      const kinds = [...this.jobs.values()];
      const claimed = [
        ...await claimDue<JobRow>(this.options.platform.db, JOB_QUEUE, {
          ...claim, limit: this.options.batchSize ?? 20, kinds: kinds.filter((job) => !('alone' in job && job.alone)).map((job) => job.kind),
        }),
        ...await claimDue<JobRow>(this.options.platform.db, JOB_QUEUE, {
          ...claim, token: newId(), limit: 1, kinds: kinds.filter((job) => 'alone' in job && job.alone).map((job) => job.kind),
        }),
      ];
      if (claimed.length === 0) return count;
      for (const job of claimed) {
        if (this.stopping && filter.merchantId === undefined) break;
        await this.run(job);
        count += 1;
        // On SQLite a job can run start to end without waiting on I/O once: let requests in between jobs.
        await yieldToEventLoop();
      }
    }
    return count;
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.runDue()
        .catch((error: unknown) => this.options.platform.log.error({ err: error }, 'scheduler tick failed'))
        .finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  private async run(job: JobRow): Promise<void> {
    const { platform } = this.options;
    const definition = this.jobs.get(job.kind);
    const started = this.now();
    // "Now" on the job's own clock, and how that clock relates to the wall clock: a merchant's job is due,
    // and retried, in that merchant's business time.
    let offsetMs = 0;
    const heartbeat = setInterval(() => {
      renewLease(platform.db, JOB_QUEUE, job, this.now() + this.leaseMs).then(
        (held) => held || platform.log.warn({ job_id: job.id, kind: job.kind }, 'job lease lost while running'),
        (error: unknown) => platform.log.warn({ err: error, job_id: job.id }, 'job lease renewal failed'),
      );
    }, Math.max(50, this.leaseMs / 3));
    heartbeat.unref();
    try {
      if (!definition) throw new Error(`no handler for job kind ${job.kind}`);
      const payload = JSON.parse(job.payload) as unknown;
      if (definition.scope === 'merchant') {
        const ctx = await this.merchantContextFor(job);
        offsetMs = ctx.merchant.clockOffsetMs;
        await definition.run(ctx, payload, job);
      } else {
        await definition.run(platform, payload, job);
      }
      if (definition.scope === 'platform' && definition.everyMs !== undefined) {
        const dueAt = this.now() + definition.everyMs;
        await settleLeased(platform.db, JOB_QUEUE, job, 'pending', { due_at: dueAt, due_wall_at: dueAt, last_error: null, attempts: 0, updated_at: this.now() });
      } else {
        await finishJob(platform.db, job, this.now());
      }
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: 'done' });
      platform.log.debug({ job_id: job.id, kind: job.kind, duration_ms: this.now() - started }, 'job done');
    } catch (error) {
      const periodic = definition?.scope === 'platform' && definition.everyMs !== undefined;
      const giveUp = !periodic && job.attempts >= (this.options.maxAttempts ?? 5);
      const retryInMs = periodic ? definition.everyMs! : Math.min(2 ** job.attempts * 5_000, 3_600_000);
      const dueWallAt = this.now() + retryInMs;
      const message = error instanceof Error ? error.message : String(error);
      await settleLeased(platform.db, JOB_QUEUE, job, giveUp ? 'dead' : 'pending', {
        due_at: businessTimeOf(dueWallAt, offsetMs),
        due_wall_at: dueWallAt,
        last_error: message.slice(0, 2000),
        ...(periodic && { attempts: 0 }),
        updated_at: this.now(),
      });
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: giveUp ? 'dead' : 'retry' });
      platform.log.error(
        { job_id: job.id, kind: job.kind, attempts: job.attempts, err: error },
        giveUp ? 'job failed for good' : 'job failed, will retry',
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async merchantContextFor(job: JobRow): Promise<Context> {
    const { platform } = this.options;
    const merchant = job.merchant_id === null ? undefined : await findMerchant(platform.db, job.merchant_id);
    if (!merchant) throw new Error(`merchant ${job.merchant_id} of job ${job.id} not found`);
    return merchantContext(platform, merchant, { kind: 'system', job: job.kind }, `job:${job.id}`);
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 20_000;
  }

  private now(): number {
    return this.options.platform.wallClock.now().getTime();
  }
}

/** Marks a job done, fenced by its claim's token: a claim that lost the job changes nothing. */
export async function finishJob(db: Db, job: JobRow, now: number): Promise<void> {
  await settleLeased(db, JOB_QUEUE, job, 'done', { last_error: null, updated_at: now });
}

/** The dedupe keys each open transaction (its `db`) has written: asked for again there, a job is not written again. */
const keysWritten = new WeakMap<object, Set<string>>();

/**
 * Adds a one-off job, in the caller's transaction: the job exists exactly when the change that needs it does. A
 * second job under a dedupe key already written is not added; within one transaction (many plans billed together
 * share one billing job) it is not even sent to the database.
 */
export async function scheduleJob(
  ctx: PlatformContext,
  job: { kind: string; merchantId: string | null; dueAt: number; payload?: unknown; dedupeKey?: string },
): Promise<boolean> {
  const key = job.dedupeKey;
  const written = key === undefined || !ctx.db.isTransaction ? undefined : keysWritten.get(ctx.db) ?? new Set<string>();
  if (key !== undefined && written?.has(key)) return false;
  const inserted = await insertJob(ctx.db, { id: newId(), payload: null, ...job }, ctx.wallClock.now().getTime());
  if (key !== undefined && written) keysWritten.set(ctx.db, written.add(key));
  return inserted;
}

/**
 * Drops a merchant's job scheduled under `dedupeKey` that has not started, in the caller's transaction: the change
 * that made it unnecessary and its removal commit together. A job already claimed still runs.
 */
export async function cancelJob(ctx: Context, dedupeKey: string): Promise<boolean> {
  return dropPendingJob(ctx.db, ctx.merchant.id, dedupeKey, ctx.wallClock.now().getTime());
}
