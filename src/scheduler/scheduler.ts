import { findMerchant } from '../merchants/store.js';
import { businessClock } from '../platform/clock.js';
import type { Context, PlatformContext } from '../platform/context.js';
import { newId } from '../platform/ids.js';
import type { Metrics } from '../platform/metrics.js';
import { claimDueJobs, finishJob, insertJob, rescheduleJob, type JobRow } from './store.js';

/** A job for the platform as a whole gets the platform context; a merchant's job gets that merchant's context. */
export type JobHandler = (ctx: PlatformContext | Context, payload: unknown, job: JobRow) => Promise<void>;

interface Registration {
  handler: JobHandler;
  /** Set for periodic jobs: run again this long after each run. */
  everyMs?: number;
}

export interface SchedulerOptions {
  platform: PlatformContext;
  /** Identifies this process in leases. */
  owner?: string;
  pollMs: number;
  leaseMs?: number;
  batchSize?: number;
  maxAttempts?: number;
  metrics?: Metrics;
}

/**
 * Runs due work from the jobs table. Claims are leased, so processes sharing one PostgreSQL never run the
 * same job at the same time, and a job of a process that died is picked up once its lease runs out.
 */
export class Scheduler {
  readonly owner: string;
  private readonly jobs = new Map<string, Registration>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly options: SchedulerOptions) {
    this.owner = options.owner ?? `scheduler-${newId()}`;
  }

  register(kind: string, handler: JobHandler, options: { everyMs?: number } = {}): this {
    this.jobs.set(kind, { handler, everyMs: options.everyMs });
    return this;
  }

  /** Adds a one-off job; `merchantId` makes `dueAt` a time on that merchant's business clock. */
  async enqueue(job: { kind: string; merchantId: string | null; dueAt: number; payload?: unknown; dedupeKey?: string }, db = this.options.platform.db): Promise<boolean> {
    return insertJob(db, { id: newId(), payload: null, ...job }, this.now());
  }

  async start(): Promise<void> {
    for (const [kind, registration] of this.jobs) {
      if (registration.everyMs !== undefined) {
        await insertJob(this.options.platform.db, {
          id: newId(), kind, merchantId: null, dueAt: this.now(), payload: null, dedupeKey: `periodic:${kind}`,
        }, this.now());
      }
    }
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Runs due jobs until none is left; returns how many ran. */
  async runDue(filter: { merchantId?: string } = {}): Promise<number> {
    let count = 0;
    for (;;) {
      const claimed = await claimDueJobs(this.options.platform.db, {
        owner: this.owner,
        now: this.now(),
        leaseMs: this.options.leaseMs ?? 60_000,
        limit: this.options.batchSize ?? 20,
        kinds: [...this.jobs.keys()],
        merchantId: filter.merchantId,
      });
      if (claimed.length === 0) return count;
      for (const job of claimed) {
        await this.run(job);
        count += 1;
      }
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runDue()
        .then(() => undefined)
        .catch((error: unknown) => this.options.platform.log.error({ err: error }, 'scheduler tick failed'))
        .finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  private async run(job: JobRow): Promise<void> {
    const { platform } = this.options;
    const registration = this.jobs.get(job.kind);
    const started = this.now();
    // "Now" on the job's own clock: a merchant's job is due, and retried, in that merchant's business time.
    let jobNow = () => this.now();
    try {
      if (!registration) throw new Error(`no handler for job kind ${job.kind}`);
      const ctx = await this.contextFor(job);
      if ('clock' in ctx) jobNow = () => ctx.clock.now().getTime();
      await registration.handler(ctx, JSON.parse(job.payload) as unknown, job);
      if (registration.everyMs !== undefined) {
        const change = { dueAt: jobNow() + registration.everyMs, state: 'pending' as const, error: null, resetAttempts: true };
        await rescheduleJob(platform.db, job, change, this.now());
      } else {
        await finishJob(platform.db, job, this.now());
      }
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: 'done' });
      platform.log.debug({ job_id: job.id, kind: job.kind, duration_ms: this.now() - started }, 'job done');
    } catch (error) {
      const periodic = registration?.everyMs !== undefined;
      const giveUp = !periodic && job.attempts >= (this.options.maxAttempts ?? 5);
      const retryInMs = registration?.everyMs ?? Math.min(2 ** job.attempts * 5_000, 3_600_000);
      const message = error instanceof Error ? error.message : String(error);
      await rescheduleJob(platform.db, job, {
        dueAt: jobNow() + retryInMs,
        state: giveUp ? 'dead' : 'pending',
        error: message.slice(0, 2000),
        resetAttempts: periodic,
      }, this.now());
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: giveUp ? 'dead' : 'retry' });
      platform.log.error(
        { job_id: job.id, kind: job.kind, attempts: job.attempts, err: error },
        giveUp ? 'job failed for good' : 'job failed, will retry',
      );
    }
  }

  private async contextFor(job: JobRow): Promise<PlatformContext | Context> {
    const { platform } = this.options;
    if (job.merchant_id === null) return platform;
    const merchant = await findMerchant(platform.db, job.merchant_id);
    if (!merchant) throw new Error(`merchant ${job.merchant_id} of job ${job.id} not found`);
    return {
      ...platform,
      merchant,
      actor: { kind: 'system', job: job.kind },
      requestId: `job:${job.id}`,
      clock: businessClock(platform.wallClock, merchant.clockOffsetMs),
    };
  }

  private now(): number {
    return this.options.platform.wallClock.now().getTime();
  }
}
