import Type, { type TSchema } from 'typebox';
import Value from 'typebox/value';
import {
  type Context,
  type DueWork,
  inTransaction,
  merchantContext,
  type PlatformContext,
} from '../context/context.js';
import { businessTimeOf, type ClockSetting, RUNNING, wallTimeOf } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { newId } from '../platform/ids.js';
import type { Metrics } from '../platform/metrics.js';
import { findMerchant } from '../platform/tenants.js';
import type { MerchantJobKind, MerchantJobPayloads, PayloadOf } from './job-types.js';
import { claimDue, JOB_QUEUE, nextDueOf, PLATFORM_WORK, realignDue, renewLease, settleLeased } from './lease.js';
import { dropPendingJob, insertJob, type JobRow } from './store.js';

export type PlatformJobHandler = (ctx: PlatformContext, payload: unknown, job: JobRow) => Promise<void>;

/** A kind of job and what runs it: a capability's (declared in its jobs.ts), or the platform's own upkeep. */
export type JobDefinition =
  /**
   * Work for one merchant, due on that merchant's business clock, its payload checked against `payload` before
   * `run` or `giveUp` sees it. `alone`: a long job (a batch's chunk of rows), claimed one at a time, so that processes
   * sharing a database share such jobs, and run one at a time per merchant in a process (its memory is that of one
   * chunk in flight, whatever the lanes). `waitsOnNetwork`: a job that spends its time waiting on another server (a
   * file fetched), run in slots of its own beside the lanes, so that it never keeps a lane from work that could run.
   */
  | {
      kind: string;
      scope: 'merchant';
      payload: TSchema;
      run: (ctx: Context, payload: unknown, job: JobRow) => Promise<void>;
      giveUp: (ctx: Context, payload: unknown) => Promise<void>;
      alone?: boolean;
      waitsOnNetwork?: boolean;
    }
  /** Work for the platform as a whole, due on the wall clock; `everyMs` makes it periodic (and never given up). */
  | { kind: string; scope: 'platform'; run: PlatformJobHandler; everyMs?: number };

/** A merchant job's declaration: what runs it, and what failing for good leaves behind. */
export interface MerchantJobSpec<K extends MerchantJobKind> {
  run(ctx: Context, payload: PayloadOf<K>, job: JobRow): Promise<void>;
  /**
   * Run in the transaction that marks the job dead after its last attempt: the object it worked for in a terminal
   * state with a reason the merchant can read, its sensitive inputs erased, nothing left in progress (or, for work
   * that must happen in the end, that work scheduled again). The error itself goes to the job's `last_error` and the
   * log, never to the merchant. Required: every merchant job says what failing for good leaves behind.
   */
  giveUp(ctx: Context, payload: PayloadOf<K>): Promise<void>;
  alone?: boolean;
  waitsOnNetwork?: boolean;
}

/**
 * Declares a merchant job once: its kind, its payload's schema (the one its capability registered for the kind in
 * `MerchantJobPayloads`) and its handlers, which get the payload typed by that schema.
 */
export function merchantJob<K extends MerchantJobKind>(
  kind: K,
  payload: MerchantJobPayloads[K] & TSchema,
  spec: MerchantJobSpec<K>,
): JobDefinition {
  return {
    kind,
    scope: 'merchant',
    payload,
    // The scheduler checks the payload against the schema before it calls either (a stored row is not typed).
    run: (ctx, value, job) => spec.run(ctx, value as PayloadOf<K>, job),
    giveUp: (ctx, value) => spec.giveUp(ctx, value as PayloadOf<K>),
    ...(spec.alone && { alone: true }),
    ...(spec.waitsOnNetwork && { waitsOnNetwork: true }),
  };
}

export const platformJob = (
  kind: string,
  run: PlatformJobHandler,
  options: { everyMs?: number } = {},
): JobDefinition => ({ kind, scope: 'platform', run, everyMs: options.everyMs });

export interface SchedulerOptions {
  platform: PlatformContext;
  /** Identifies this process in leases, for operators. */
  owner?: string;
  pollMs: number;
  leaseMs?: number;
  /** Jobs run at once (the configuration's by default); one merchant's take at most half of them. */
  lanes?: number;
  /** Jobs that wait on the network run at once, beside the lanes; one merchant's take at most a quarter of them. */
  networkSlots?: number;
  /** How many jobs a merchant's own run (the sandbox clock) claims at once. */
  batchSize?: number;
  maxAttempts?: number;
  metrics?: Metrics;
}

type Pool = 'lanes' | 'network';
const POOLS: readonly Pool[] = ['network', 'lanes'];
const poolOf = (definition: JobDefinition): Pool =>
  definition.scope === 'merchant' && definition.waitsOnNetwork ? 'network' : 'lanes';

/**
 * Runs due work from the jobs table. A claim leases its jobs and fences them with a token: processes sharing one
 * PostgreSQL never run a job at the same time, a running job's lease is renewed while it runs, and a job of a
 * process that died is taken over once its lease runs out. Handlers must still tolerate running twice (a process
 * that stalls past its lease loses the job while still running it).
 *
 * Within a process, jobs run in lanes, several at once, and claims are fair: a free lane goes first to a merchant
 * with nothing running, and no merchant holds more than half of them, so one merchant's slow work never keeps
 * another's waiting. Jobs that wait on the network run in slots of their own. A merchant's own run (the sandbox
 * clock moving) runs that merchant's due work itself, beside the lanes: it never waits behind another merchant.
 */
export class Scheduler implements DueWork {
  readonly owner: string;
  private readonly jobs = new Map<string, JobDefinition>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** Jobs running in each pool, by merchant (the platform's own under PLATFORM_WORK). */
  private readonly busy: Record<Pool, Map<string, number>> = { lanes: new Map(), network: new Map() };
  /** Long jobs (`alone`) running, by merchant: one at a time each, as a batch's chunks ran before there were lanes. */
  private readonly runningAlone = new Map<string, number>();
  /** Every job running now, in the pools or in a merchant's own run. */
  private readonly active = new Set<Promise<void>>();
  /** Jobs the pools have finished since the process started. */
  private finished = 0;
  private filling: Promise<void> | undefined;
  private fillAgain = false;

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

  /** A merchant job without a module (tests): any payload; failing for good leaves its object as it is, unless told. */
  registerMerchantJob(
    kind: string,
    run: (ctx: Context, payload: unknown, job: JobRow) => Promise<void>,
    options: {
      giveUp?: (ctx: Context, payload: unknown) => Promise<void>;
      alone?: boolean;
      waitsOnNetwork?: boolean;
    } = {},
  ): this {
    return this.register({
      kind,
      scope: 'merchant',
      payload: Type.Unknown(),
      run,
      giveUp: options.giveUp ?? (async () => {}),
      alone: options.alone,
      waitsOnNetwork: options.waitsOnNetwork,
    });
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
        await insertJob(
          this.options.platform.db,
          {
            id: newId(),
            kind,
            merchantId: null,
            dueAt: now,
            payload: null,
            dedupeKey: `periodic:${kind}`,
          },
          now,
        );
      }
    }
  }

  /** Stops taking work; waits for the jobs running now, not for the rest of what is due. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.filling?.catch(() => undefined);
    await Promise.allSettled([...this.active]);
  }

  /**
   * Runs the work due now until none is left, and answers how many jobs ran: one merchant's, by the caller itself,
   * beside the lanes (the sandbox clock); everyone's, through the lanes.
   */
  runDue(filter: { merchantId?: string } = {}): Promise<number> {
    return filter.merchantId === undefined ? this.drainLanes() : this.drainMerchant(filter.merchantId);
  }

  realign(db: Db, merchantId: string, clock: ClockSetting, dueBy?: number): Promise<void> {
    return realignDue(db, JOB_QUEUE, merchantId, clock, dueBy);
  }

  nextDue(merchantId: string): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined> {
    return nextDueOf(this.options.platform.db, JOB_QUEUE, merchantId, this.now(), [...this.jobs.keys()]);
  }

  private async drainLanes(): Promise<number> {
    const before = this.finished;
    for (;;) {
      await this.fill();
      if (this.active.size === 0 || this.stopping) break;
      await Promise.race(this.active);
    }
    await Promise.allSettled([...this.active]);
    return this.finished - before;
  }

  /** One merchant's due work, run here one job after another: a merchant's run finishes even while stopping. */
  private async drainMerchant(merchantId: string): Promise<number> {
    let count = 0;
    for (;;) {
      const claim = { owner: this.owner, now: this.now(), leaseMs: this.leaseMs, merchantId };
      const kinds = [...this.jobs.values()];
      const claimed = [
        ...(await claimDue<JobRow>(this.options.platform.db, JOB_QUEUE, {
          ...claim,
          token: newId(),
          limit: this.options.batchSize ?? 20,
          kinds: kinds.filter((job) => !(job.scope === 'merchant' && job.alone)).map((job) => job.kind),
        })),
        ...(await claimDue<JobRow>(this.options.platform.db, JOB_QUEUE, {
          ...claim,
          token: newId(),
          limit: 1,
          kinds: kinds.filter((job) => job.scope === 'merchant' && job.alone).map((job) => job.kind),
        })),
      ];
      if (claimed.length === 0) return count;
      for (const job of claimed) {
        const running = this.run(job);
        this.active.add(running);
        await running.finally(() => this.active.delete(running));
        count += 1;
        // On SQLite a job can run start to end without waiting on I/O once: let requests in between jobs.
        await yieldToEventLoop();
      }
    }
  }

  /** Fills the free lanes and slots with due work; one fill at a time, another after it when asked meanwhile. */
  private fill(): Promise<void> {
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    this.filling = (async () => {
      do {
        this.fillAgain = false;
        for (const pool of POOLS) await this.fillPool(pool);
      } while (this.fillAgain && !this.stopping);
    })().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  private async fillPool(pool: Pool): Promise<void> {
    const definitions = [...this.jobs.values()].filter((definition) => poolOf(definition) === pool);
    const alone = (definition: JobDefinition) => definition.scope === 'merchant' && definition.alone === true;
    const kinds = {
      together: definitions.filter((d) => !alone(d)).map((d) => d.kind),
      alone: definitions.filter(alone).map((d) => d.kind),
    };
    while (!this.stopping && this.inUse(pool) < this.capacity(pool)) {
      // Short jobs first; a long one (a batch's chunk) only for a merchant not running one already.
      const job =
        (await this.claimFairly(pool, kinds.together)) ??
        (await this.claimFairly(pool, kinds.alone, new Set(this.runningAlone.keys())));
      if (!job) return;
      this.startInPool(job, pool);
    }
  }

  /**
   * One due job of these kinds, fairly: first of a merchant with nothing running in this pool, else of one below its
   * share (half the lanes, a quarter of the network slots), never of one `barred`. Earliest due first among those.
   */
  private async claimFairly(
    pool: Pool,
    kinds: string[],
    barred: ReadonlySet<string> = new Set(),
  ): Promise<JobRow | undefined> {
    if (kinds.length === 0) return undefined;
    const busy = this.busy[pool];
    const share =
      pool === 'lanes' ? Math.ceil(this.capacity(pool) / 2) : Math.max(1, Math.floor(this.capacity(pool) / 4));
    const running = new Set([...busy.keys(), ...barred]);
    const atShare = new Set([...[...busy].filter(([, count]) => count >= share).map(([key]) => key), ...barred]);
    for (const excluding of running.size === atShare.size ? [atShare] : [running, atShare]) {
      const [job] = await claimDue<JobRow>(this.options.platform.db, JOB_QUEUE, {
        owner: this.owner,
        token: newId(),
        now: this.now(),
        leaseMs: this.leaseMs,
        limit: 1,
        kinds,
        excluding,
      });
      if (job) return job;
    }
    return undefined;
  }

  private startInPool(job: JobRow, pool: Pool): void {
    const key = job.merchant_id ?? PLATFORM_WORK;
    const busy = this.busy[pool];
    busy.set(key, (busy.get(key) ?? 0) + 1);
    const definition = this.jobs.get(job.kind);
    const alone = definition?.scope === 'merchant' && definition.alone === true;
    if (alone) this.runningAlone.set(key, (this.runningAlone.get(key) ?? 0) + 1);
    const running: Promise<void> = this.run(job)
      .then(() => yieldToEventLoop())
      .finally(() => {
        const left = (busy.get(key) ?? 1) - 1;
        if (left === 0) busy.delete(key);
        else busy.set(key, left);
        if (alone) {
          const still = (this.runningAlone.get(key) ?? 1) - 1;
          if (still === 0) this.runningAlone.delete(key);
          else this.runningAlone.set(key, still);
        }
        this.active.delete(running);
        this.finished += 1;
        if (!this.stopping)
          void this.fill().catch((error: unknown) =>
            this.options.platform.log.error({ err: error }, 'scheduler claim failed'),
          );
      });
    this.active.add(running);
  }

  private inUse(pool: Pool): number {
    let total = 0;
    for (const count of this.busy[pool].values()) total += count;
    return total;
  }

  private capacity(pool: Pool): number {
    const { config } = this.options.platform;
    return pool === 'lanes'
      ? (this.options.lanes ?? config.jobLanes)
      : (this.options.networkSlots ?? config.jobNetworkSlots);
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.fill()
        .catch((error: unknown) => this.options.platform.log.error({ err: error }, 'scheduler tick failed'))
        .finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  /** Runs one claimed job to its end: done, rescheduled for a retry, or given up. Never throws. */
  private async run(job: JobRow): Promise<void> {
    const { platform } = this.options;
    const definition = this.jobs.get(job.kind);
    const started = this.now();
    // "Now" on the job's own clock, and how that clock relates to the wall clock: a merchant's job is due,
    // and retried, in that merchant's business time.
    let clock: ClockSetting = RUNNING;
    const heartbeat = setInterval(
      () => {
        renewLease(platform.db, JOB_QUEUE, job, this.now() + this.leaseMs).then(
          (held) => held || platform.log.warn({ job_id: job.id, kind: job.kind }, 'job lease lost while running'),
          (error: unknown) => platform.log.warn({ err: error, job_id: job.id }, 'job lease renewal failed'),
        );
      },
      Math.max(50, this.leaseMs / 3),
    );
    heartbeat.unref();
    let merchantCtx: Context | undefined;
    try {
      if (!definition) throw new Error(`no handler for job kind ${job.kind}`);
      const payload = JSON.parse(job.payload) as unknown;
      if (definition.scope === 'merchant') {
        if (!Value.Check(definition.payload, payload))
          throw new Error(`the payload does not fit the job kind ${job.kind}: ${job.payload.slice(0, 200)}`);
        merchantCtx = await this.merchantContextFor(job);
        clock = merchantCtx.merchant.clock;
        await definition.run(merchantCtx, payload, job);
      } else {
        await definition.run(platform, payload, job);
      }
      if (definition.scope === 'platform' && definition.everyMs !== undefined) {
        const dueAt = this.now() + definition.everyMs;
        await settleLeased(platform.db, JOB_QUEUE, job, 'pending', {
          due_at: dueAt,
          due_wall_at: dueAt,
          last_error: null,
          attempts: 0,
          updated_at: this.now(),
        });
      } else {
        await finishJob(platform.db, job, this.now());
      }
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: 'done' });
      platform.log.debug({ job_id: job.id, kind: job.kind, duration_ms: this.now() - started }, 'job done');
    } catch (error) {
      const periodic = definition?.scope === 'platform' && definition.everyMs !== undefined;
      const giveUp = !periodic && job.attempts >= (this.options.maxAttempts ?? 5);
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
      try {
        if (giveUp) {
          await this.giveUp(job, definition, merchantCtx, message);
        } else {
          const retryInMs = periodic ? definition.everyMs! : Math.min(2 ** job.attempts * 5_000, 3_600_000);
          const dueAt = businessTimeOf(this.now(), clock) + retryInMs;
          await settleLeased(platform.db, JOB_QUEUE, job, 'pending', {
            due_at: dueAt,
            due_wall_at: wallTimeOf(dueAt, clock),
            last_error: message,
            ...(periodic && { attempts: 0 }),
            updated_at: this.now(),
          });
        }
      } catch (settling) {
        // The database refused even that: the lease runs out and the job is claimed again.
        platform.log.error({ err: settling, job_id: job.id, kind: job.kind }, 'a failed job could not be recorded');
      }
      this.options.metrics?.jobs.inc({ kind: job.kind, outcome: giveUp ? 'dead' : 'retry' });
      platform.log.error(
        { job_id: job.id, kind: job.kind, attempts: job.attempts, err: error },
        giveUp ? 'job failed for good' : 'job failed, will retry',
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Marks the job dead and runs its kind's give-up ({@link MerchantJobSpec.giveUp}) in one transaction, so that its
   * object reaches its
   * end exactly when the job does. Its dedupe key is set free: the same work can be scheduled again (a binding that
   * waits for its payer again needs a new expiry). When the handler fails too, the job is marked dead on its own.
   */
  private async giveUp(
    job: JobRow,
    definition: JobDefinition | undefined,
    known: Context | undefined,
    message: string,
  ): Promise<void> {
    const { platform } = this.options;
    const dead = {
      last_error: message,
      updated_at: this.now(),
      dedupe_key: job.dedupe_key === null ? null : `${job.dedupe_key}#dead:${job.id}`,
    };
    try {
      const ctx = definition?.scope === 'merchant' ? (known ?? (await this.merchantContextFor(job))) : undefined;
      const payload = JSON.parse(job.payload) as unknown;
      // A payload that does not fit its kind gives the give-up nothing it could trust: the job is dead, and the log
      // says so.
      const fits = definition?.scope === 'merchant' && Value.Check(definition.payload, payload);
      await inTransaction<PlatformContext, void>(ctx ?? platform, async (tx) => {
        if (!(await settleLeased(tx.db, JOB_QUEUE, job, 'dead', dead))) return;
        if (definition?.scope === 'merchant' && fits) await definition.giveUp(tx as Context, payload);
      });
    } catch (failure) {
      platform.log.error(
        { err: failure, job_id: job.id, kind: job.kind },
        'giving up on a job failed too: its object is left as it was',
      );
      await settleLeased(platform.db, JOB_QUEUE, job, 'dead', dead);
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
 * Schedules a merchant job, in the caller's transaction: the job exists exactly when the change that needs it does.
 * Its payload is checked, at compile time, against the schema its capability declared for its kind. A second job under
 * a dedupe key already written is not added; within one transaction (many plans billed together share one billing
 * job) it is not even sent to the database.
 */
export function scheduleJob<K extends MerchantJobKind>(
  ctx: PlatformContext,
  job: { kind: K; merchantId: string; dueAt: number; payload: PayloadOf<K>; dedupeKey?: string },
): Promise<boolean> {
  return enqueueJob(ctx, job);
}

/**
 * Adds a job of any kind, for any merchant or none: the queue itself, beneath `scheduleJob` (which capabilities use,
 * typed) and for the platform's own and tests' kinds.
 */
export async function enqueueJob(
  ctx: PlatformContext,
  job: { kind: string; merchantId: string | null; dueAt: number; payload?: unknown; dedupeKey?: string },
): Promise<boolean> {
  const key = job.dedupeKey;
  const written =
    key === undefined || !ctx.db.isTransaction ? undefined : (keysWritten.get(ctx.db) ?? new Set<string>());
  if (key !== undefined && written?.has(key)) return false;
  // A deterministic merchant's jobs draw their ids from its sequence: jobs due at one instant run in id order.
  const own = (ctx as Partial<Context>).merchant?.id === job.merchantId ? (ctx as Partial<Context>).ids : undefined;
  const id = own?.uuid() ?? newId();
  const inserted = await insertJob(ctx.db, { id, payload: null, ...job }, ctx.wallClock.now().getTime());
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
