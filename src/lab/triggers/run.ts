import type { Static, TSchema } from 'typebox';
import { type Context, merchantContext } from '../../context/context.js';
import { eventsOfSubject } from '../../events/store.js';
import { AppError, PLATFORM_ERRORS } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { findMerchant } from '../../platform/tenants.js';
import { advanceClock } from '../../sandbox/index.js';
import { LAB_ERRORS } from '../errors.js';
import { requireSandbox } from '../sandbox-only.js';
import { TRIGGERS } from './catalogue.js';
import { readSet, type SetInput } from './fields.js';
import type { ObjectIdentifiers, Trigger, TriggerRun } from './trigger.js';

/** What a trigger answers: its event, how far it moved the clock, and the objects it made, by their identifiers. */
export interface TriggerOutcome {
  event: string;
  event_id: string;
  clock_moved_s: number;
  objects: Record<string, ObjectIdentifiers>;
}

/** Validates a body against the API's schema for it, as the HTTP layer would (the transport provides it). */
export type BodyCheck = <S extends TSchema>(schema: S, body: unknown) => Static<S>;

/** How long a trigger waits, wall time, for the merchant's work due now that another claim is running. */
const HELD_WORK_WAIT_MS = 10_000;
const EVENT_POLL_MS = 25;

export function findTrigger(kind: string): Trigger {
  const trigger = TRIGGERS.find((candidate) => candidate.kind === kind);
  if (!trigger)
    throw new AppError(
      LAB_ERRORS.triggerUnknown,
      `No trigger for ${JSON.stringify(kind)}: one of ${TRIGGERS.map((t) => t.kind).join(', ')}.`,
    );
  return trigger;
}

/**
 * Makes the real objects that cause an event of `kind`, through the verbs the API uses, with the fields `set`
 * overrides; returns once the event is recorded (committed in the outbox), moving the merchant's clock where time
 * must pass for it.
 */
export async function runTrigger(
  requestCtx: Context,
  input: { event: string; set?: SetInput },
  check: BodyCheck,
): Promise<TriggerOutcome> {
  requireSandbox(requestCtx.config);
  const trigger = findTrigger(input.event);
  const set = readSet(trigger, input.set ?? {});
  // The verbs run as the request's own steps: none of them is the request's reply, which is the trigger's.
  const { outcome: _outcome, idempotency: _idempotency, ...base } = requestCtx;
  let ctx: Context = base;
  let moved = 0;
  const objects: Record<string, ObjectIdentifiers> = {};
  const runId = newId().replace(/-/g, '');

  const recorded = async (subjectId: string) =>
    (await eventsOfSubject(ctx.db, ctx.merchant.id, subjectId)).filter((e) => e.action === trigger.kind).at(-1);

  const passTime = async (seconds: number) => {
    await advanceClock(ctx, seconds);
    moved += seconds;
    const merchant = await findMerchant(ctx.db, ctx.merchant.id);
    ctx = merchantContext(ctx, merchant!, ctx.actor, ctx.requestId, ctx.log);
  };

  /**
   * Runs the merchant's work due now until none is left, waiting for work the scheduler has claimed meanwhile (the
   * clock must not move past work still running at the time it stands).
   */
  const runDueWork = async () => {
    const jobs = ctx.dueWork;
    if (!jobs) return;
    // As the sandbox clock waits for held work: longer than a webhook receiver may take to answer.
    const deadline = performance.now() + Math.max(HELD_WORK_WAIT_MS, ctx.config.webhookTimeoutMs + 5_000);
    for (;;) {
      await jobs.runDue({ merchantId: ctx.merchant.id });
      const next = await jobs.nextDue(ctx.merchant.id);
      if (next === undefined || (next.heldUntil === undefined && next.dueAt > ctx.clock.now().getTime())) return;
      if (performance.now() > deadline)
        throw new AppError(
          PLATFORM_ERRORS.unavailable,
          'Work of this merchant is still running; trigger again shortly.',
        );
      if (next.heldUntil !== undefined) await pause();
    }
  };

  const run: TriggerRun = {
    get ctx() {
      return ctx;
    },
    value: (name, fallback) => (set.has(name) ? set.get(name) : fallback),
    given: (name) => set.has(name),
    unique: (prefix, length = 12) => `${prefix}-${runId.slice(-length)}`,
    digits: (length) => {
      // Decimal digits drawn from a fresh id's random part.
      const hex = newId().replace(/-/g, '').slice(-24);
      return Array.from(hex.slice(0, length), (char) => String(Number.parseInt(char, 16) % 10)).join('');
    },
    check,
    made: (name, identifiers) => {
      objects[name] = identifiers;
    },
    passTime,
    async passTimeUntil(done, limitSeconds, what) {
      const jobs = ctx.dueWork;
      if (!jobs) throw new AppError(PLATFORM_ERRORS.unavailable, 'The scheduler is not running.');
      const notMade = () =>
        new AppError(
          LAB_ERRORS.triggerEventNotMade,
          `${what} did not happen within ${limitSeconds} s of business time.`,
        );
      let spent = 0;
      while (!(await done())) {
        const next = await jobs.nextDue(ctx.merchant.id);
        if (next === undefined) throw notMade();
        const wait = next.dueAt - ctx.clock.now().getTime();
        if (wait <= 0 || next.heldUntil !== undefined) {
          // Due now (a delivery, a job another claim holds): run it where the clock stands.
          await runDueWork();
          continue;
        }
        const seconds = Math.ceil(wait / 1000);
        if (spent + seconds > limitSeconds) throw notMade();
        await passTime(seconds);
        spent += seconds;
      }
    },
    runDueWork,
    eventRecorded: async (subjectId) => (await recorded(subjectId)) !== undefined,
  };

  const subjectId = await trigger.run(run);
  // Work due now (a plan's first billing, a batch's file, a payout's run) runs here rather than at the scheduler's
  // next poll; once none is due or running, nothing more will come of the objects.
  let event = await recorded(subjectId);
  if (!event) {
    await runDueWork();
    event = await recorded(subjectId);
  }
  if (!event)
    throw new AppError(
      LAB_ERRORS.triggerEventNotMade,
      `The objects were made (${describe(objects)}), but no ${trigger.kind} event came of them.`,
    );
  return { event: trigger.kind, event_id: event.id, clock_moved_s: moved, objects };
}

function describe(objects: Record<string, ObjectIdentifiers>): string {
  return Object.entries(objects)
    .map(([name, ids]) => `${name} ${Object.values(ids)[0] ?? ''}`)
    .join(', ');
}

const pause = () => new Promise((resolve) => setTimeout(resolve, EVENT_POLL_MS));
