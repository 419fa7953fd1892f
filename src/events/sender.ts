import type { DueWork, PlatformContext } from '../context/context.js';
import type { ClockSetting } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { yieldToEventLoop } from '../platform/event-loop.js';
import { newId } from '../platform/ids.js';
import type { Metrics } from '../platform/metrics.js';
import { VERSION } from '../platform/version.js';
import { claimDue, DELIVERY_QUEUE, nextDueOf, realignDue } from '../scheduler/lease.js';
import type { AttemptPlan, DeliveryHooks, ObservedRequest, OutgoingEvent } from './delivery-hooks.js';
import { createPoster, type Poster } from './post.js';
import { judgeAttempt, retryDelayMs } from './retry-schedule.js';
import { signedAsApp } from './signing.js';
import { type AttemptResult, type DeliveryRow, eventsByIds, recordAttempts, releaseClaims } from './store.js';

const MAX_PARALLEL_RUNS = 4;

export interface WebhookSenderOptions {
  platform: PlatformContext;
  owner?: string;
  /** How often to look for due deliveries when nothing woke the sender (other processes' events, retries). */
  pollMs: number;
  timeoutMs: number;
  leaseMs?: number;
  /** Requests in flight at once: also how many deliveries one claim takes. */
  concurrency?: number;
  metrics?: Metrics;
  poster?: Poster;
  /** What a capability adds around deliveries: the sandbox lab's faults and captures. */
  hooks?: DeliveryHooks;
}

/**
 * Delivers the outbox: claims due deliveries (leased and fenced, so processes sharing one PostgreSQL never make
 * the same attempt), waits until the events are durable, signs every attempt anew with the app's webhook key,
 * posts, and records each attempt with what comes next: delivered, a retry on the merchant's business clock, or
 * failed for good. Delivery is at least once: a process that dies mid-attempt leaves the lease to run out, and
 * the attempt is made again.
 */
export class WebhookSender implements DueWork {
  readonly owner: string;
  private readonly poster: Poster;
  private timer: NodeJS.Timeout | undefined;
  /** Background runs under way: more than one, so that a receiver that never answers holds up only its own round. */
  private readonly runs = new Set<Promise<unknown>>();
  /** Deliveries held back on purpose (a lab fault), sent apart: not counted among the runs, which they must not slow. */
  private readonly heldRuns = new Set<Promise<unknown>>();
  private wokenWhileBusy = false;
  private stopping = false;

  constructor(private readonly options: WebhookSenderOptions) {
    this.owner = options.owner ?? `webhooks-${newId()}`;
    this.poster = options.poster ?? createPoster({ timeoutMs: options.timeoutMs, mode: options.platform.config.mode });
  }

  start(): void {
    this.schedule(0);
  }

  /** New events committed: look now rather than at the next poll. */
  wake(): void {
    if (this.stopping) return;
    if (this.runs.size >= MAX_PARALLEL_RUNS) {
      this.wokenWhileBusy = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await Promise.all([...this.runs, ...this.heldRuns]);
    this.poster.close();
  }

  /**
   * Sends what is due now (one merchant's only, when given) until nothing due is left; returns how many attempts.
   * Claims at most as many deliveries as are sent at once, so a claim lasts one round: at most the timeout, plus
   * the time to record the round, well inside the lease.
   */
  async runDue(filter: { merchantId?: string } = {}): Promise<number> {
    let count = 0;
    while (!this.stopping || filter.merchantId !== undefined) {
      const claimed = await claimDue<DeliveryRow>(this.options.platform.db, DELIVERY_QUEUE, {
        owner: this.owner,
        token: newId(),
        now: this.now(),
        leaseMs: this.leaseMs,
        limit: this.concurrency,
        merchantId: filter.merchantId,
      });
      if (claimed.length === 0) break;
      await this.send(claimed);
      count += claimed.length;
      await yieldToEventLoop();
    }
    return count;
  }

  realign(db: Db, merchantId: string, clock: ClockSetting, dueBy?: number): Promise<void> {
    return realignDue(db, DELIVERY_QUEUE, merchantId, clock, dueBy);
  }

  nextDue(merchantId: string): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined> {
    return nextDueOf(this.options.platform.db, DELIVERY_QUEUE, merchantId, this.now());
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delayMs);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopping) return;
    if (this.runs.size >= MAX_PARALLEL_RUNS) {
      this.schedule(this.options.pollMs);
      return;
    }
    this.wokenWhileBusy = false;
    const run = this.runDue()
      .catch((error: unknown) => this.options.platform.log.error({ err: error }, 'webhook delivery run failed'))
      .finally(() => {
        this.runs.delete(run);
        if (this.wokenWhileBusy) this.schedule(0);
      });
    this.runs.add(run);
    // Keep looking while this run goes on: new work goes to another run rather than waiting behind a slow one.
    this.schedule(this.options.pollMs);
  }

  private async send(deliveries: DeliveryRow[]): Promise<void> {
    const { platform, hooks } = this.options;
    let plans: Map<string, AttemptPlan>;
    let events: Awaited<ReturnType<typeof eventsByIds>>;
    try {
      // Never tell a merchant about a change that a power cut could still take back.
      await platform.database.durable();
      events = await eventsByIds(
        platform.db,
        deliveries.map((d) => d.event_id),
      );
      plans = hooks ? await hooks.plan(platform.db, deliveries, events) : new Map<string, AttemptPlan>();
    } catch (error) {
      await this.release(deliveries);
      throw error;
    }
    // An attempt held back on purpose (a lab fault's delay) is sent on its own: the round, and every other
    // merchant's deliveries in it, do not wait for it.
    const held = deliveries.filter((d) => plans.get(d.id)?.before !== undefined);
    if (held.length > 0) {
      const run = this.complete(held, events, plans)
        .catch((error: unknown) => platform.log.error({ err: error }, 'held webhook deliveries failed'))
        .finally(() => this.heldRuns.delete(run));
      this.heldRuns.add(run);
    }
    await this.complete(held.length > 0 ? deliveries.filter((d) => !held.includes(d)) : deliveries, events, plans);
  }

  /** Attempts a group of claimed deliveries and records what came of them (or gives their claims back). */
  private async complete(
    deliveries: DeliveryRow[],
    events: Awaited<ReturnType<typeof eventsByIds>>,
    plans: Map<string, AttemptPlan>,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    const { hooks } = this.options;
    let recorded = false;
    try {
      const observed: ObservedRequest[] = [];
      const results = await Promise.all(
        deliveries.map((d) => this.attempt(d, events.get(d.event_id), plans.get(d.id) ?? {}, observed)),
      );
      await this.record(
        results,
        hooks && observed.length > 0
          ? (tx, settled) =>
              hooks.recorded(
                tx,
                observed.filter((request) => settled.has(request.delivery.id)),
              )
          : undefined,
      );
      recorded = true;
      for (const result of results) this.options.metrics?.webhookAttempts.inc({ outcome: result.outcome });
    } finally {
      // Whatever stopped this round (the database, most likely) must not leave the deliveries claimed until the
      // lease runs out: they go back in line at once, their attempt uncounted (it may have been made: at least once).
      if (!recorded) await this.release(deliveries);
    }
  }

  private async release(deliveries: DeliveryRow[]): Promise<void> {
    const { platform } = this.options;
    await releaseClaims(platform.db, deliveries, this.now()).catch((error: unknown) =>
      platform.log.error(
        { err: error },
        'could not release webhook deliveries; they are retried once their lease runs out',
      ),
    );
  }

  /** The results are in memory only: worth a few tries before giving them up. */
  private async record(
    results: AttemptResult[],
    alongside?: (tx: Db, settled: ReadonlySet<string>) => Promise<void>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await recordAttempts(this.options.platform.db, results, this.now(), alongside);
        return;
      } catch (error) {
        if (attempt === 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  private async attempt(
    delivery: DeliveryRow,
    event: OutgoingEvent | undefined,
    plan: AttemptPlan,
    observed: ObservedRequest[],
  ): Promise<AttemptResult> {
    const startedAt = this.now();
    const base = { delivery, startedAt, ...(plan.fault && { fault: plan.fault }) };
    const verdict = (
      status: number | undefined,
      error: string | undefined,
      durationMs: number,
      final = false,
    ): AttemptResult => {
      let outcome = judgeAttempt(status, final);
      let retryInMs: number | undefined;
      if (outcome === 'retry') {
        retryInMs = retryDelayMs(delivery.attempts - delivery.attempts_before_redelivery);
        if (retryInMs === undefined) outcome = 'failed';
      }
      if (outcome !== 'delivered') {
        this.options.platform.log.info(
          {
            event_id: delivery.event_id,
            delivery_id: delivery.id,
            attempt: delivery.attempts,
            status,
            error,
            outcome,
          },
          'webhook not delivered',
        );
      }
      return { ...base, durationMs, status, error, outcome, retryInMs };
    };
    if (!event) return verdict(undefined, 'the event is gone', 0, true);
    try {
      await plan.before?.();
      let answer: { status?: number; error?: string; final?: boolean; body?: string; durationMs: number } = {
        durationMs: 0,
      };
      for (let time = 1; time <= (plan.times ?? 1); time += 1) {
        const sentAt = this.now();
        const signed = await signedAsApp(this.options.platform, {
          appId: delivery.app_id,
          url: delivery.url,
          body: event.payload,
          at: new Date(sentAt),
        });
        const headers = {
          'content-type': 'application/json',
          'user-agent': `paygate-webhooks/${VERSION}`,
          ...signed,
          'x-action': event.action,
          'x-event-id': delivery.event_id,
        };
        answer = plan.instead
          ? { ...plan.instead, durationMs: 0 }
          : plan.answeredHere
            ? { ...plan.answeredHere, durationMs: 0 }
            : await this.poster.post(delivery.url, headers, event.payload, { readBody: plan.observe === true });
        if (plan.observe)
          observed.push({
            delivery,
            event,
            headers,
            startedAt: sentAt,
            status: answer.status,
            error: answer.error,
            bodyExcerpt: answer.body?.slice(0, 500),
            answeredAt: this.now(),
            fault: plan.fault,
          });
      }
      return verdict(answer.status, answer.error, answer.durationMs, answer.final);
    } catch (error) {
      // A fault of ours (the key could not be read, say), not the receiver's: worth trying again later.
      return verdict(
        undefined,
        `not sent: ${(error as Error).message}`.slice(0, 500),
        Math.max(0, this.now() - startedAt),
      );
    }
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? this.options.timeoutMs + 30_000;
  }

  private get concurrency(): number {
    return this.options.concurrency ?? 100;
  }

  private now(): number {
    return this.options.platform.wallClock.now().getTime();
  }
}
