import type { Database, Db } from '../platform/database/database.js';
import { AppError } from '../platform/errors.js';
import type { Log } from '../platform/logger.js';
import { RAIL_ERRORS } from './errors.js';

/**
 * Every operation on a rail (an authorisation, a capture, a binding's verification, later a payout) happens in
 * two phases, so that a crash never loses what the outside world did:
 *
 * 1. `begin`: the operation is recorded pending, with the wall time its call begins, and committed;
 * 2. the rail is called with no database transaction open, once that record is durable;
 * 3. `finish`: the rail's answer is recorded in a second transaction.
 *
 * A call that gives no answer leaves the operation pending and answers the caller with a 5xx, which leaves its
 * Idempotency-Key free for the retry that will find the operation by its natural key. What a crash or a lost
 * answer leaves pending is recovered: each kind of operation declares how to find its interrupted ones and how
 * to ask the rail what became of them ({@link RailOperationKind}), and recovery runs them all.
 */
export async function runRailOperation<P, A, R>(
  caller: RailCaller,
  steps: {
    /** The first phase, in a transaction of its own: the pending record, or the answer of an operation made before. */
    begin(): Promise<{ pending: P; reference: string } | AnsweredBefore<R>>;
    call(pending: P): Promise<A>;
    /** The second phase: records the rail's answer. */
    finish(pending: P, answer: A): Promise<R>;
  },
): Promise<R> {
  const begun = await steps.begin();
  if (begun instanceof AnsweredBefore) return begun.reply();
  const answer = await callRail(caller, begun.reference, () => steps.call(begun.pending));
  return steps.finish(begun.pending, answer);
}

/** An operation made before (a retry of its request): answered as it stands, with no call to the rail. */
export class AnsweredBefore<R> {
  constructor(readonly reply: () => Promise<R>) {}
}

/** What a rail operation needs of its caller's context. */
export interface RailCaller {
  database: Pick<Database, 'durable'>;
  log: Log;
}

/**
 * The middle phase alone: the pending record made durable, then the call, its failure left for recovery. Callers
 * that begin several operations in one transaction call it once for each after that transaction commits.
 */
export async function callRail<A>(caller: RailCaller, reference: string, call: () => Promise<A>): Promise<A> {
  await caller.database.durable();
  try {
    return await call();
  } catch (error) {
    caller.log.error({ err: error, rail_reference: reference }, 'rail call failed; left for recovery');
    throw new AppError(RAIL_ERRORS.acquirerNoAnswer);
  }
}

/** A kind of two-phase operation, as recovery sees it; `C` is the context a merchant's work runs with. */
export interface RailOperationKind<C> {
  /** Names the kind in logs. */
  readonly name: string;
  /**
   * Operations of every merchant whose rail call began before `startedBefore` (wall time) and has no recorded
   * answer: the rows that record them, named by their id.
   */
  interrupted(db: Db, startedBefore: number, limit: number): Promise<Array<{ id: string; merchant_id: string }>>;
  /** Asks the rail what became of the operation (cancelling it there if it never arrived) and records that answer. */
  recover(ctx: C, reference: string): Promise<void>;
}

/**
 * Settles what a stopped (or stalled) process left between the two phases, for every kind of operation. One
 * operation that cannot be recovered now (the rail is down) is logged and tried again next time.
 */
export async function recoverInterrupted<C>(
  platform: { db: Db; log: Log },
  kinds: ReadonlyArray<RailOperationKind<C>>,
  startedBefore: number,
  contextFor: (merchantId: string, reference: string) => Promise<C | undefined>,
): Promise<number> {
  let recovered = 0;
  for (const kind of kinds) {
    const tried = new Set<string>();
    for (;;) {
      const batch = (await kind.interrupted(platform.db, startedBefore, 100)).filter((row) => !tried.has(row.id));
      if (batch.length === 0) break;
      for (const { id: reference, merchant_id: merchantId } of batch) {
        tried.add(reference);
        try {
          const ctx = await contextFor(merchantId, reference);
          if (ctx === undefined) continue;
          await kind.recover(ctx, reference);
          platform.log.warn(
            { kind: kind.name, rail_reference: reference, merchant_id: merchantId },
            'recovered an interrupted rail operation',
          );
          recovered += 1;
        } catch (error) {
          platform.log.error(
            { err: error, kind: kind.name, rail_reference: reference },
            'recovery of an interrupted rail operation failed; will try again',
          );
        }
      }
    }
  }
  return recovered;
}
