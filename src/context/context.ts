import { businessClock, type Clock, type ClockSetting } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database, Db } from '../platform/database/database.js';
import { isUniqueViolation } from '../platform/database/database-errors.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { type IdSource, randomIds, SeededIdSource } from '../platform/ids.js';
import type { Log } from '../platform/logger.js';
import type { PlatformSecrets } from '../platform/secrets.js';
import type { Merchant } from '../platform/tenants.js';
import type { Rails } from '../rails/acquirer.js';

/** What the rest of the platform may ask of the process's due work (scheduled jobs, webhook deliveries). */
export interface DueWork {
  /** Runs the work due now (one merchant's only, when given) until none is left; returns how much ran. */
  runDue(filter?: { merchantId?: string }): Promise<number>;
  /** The merchant's next piece of work this process can run, and whether another claim holds it now. */
  nextDue(merchantId: string): Promise<{ dueAt: number; heldUntil: number | undefined } | undefined>;
  /**
   * The merchant's clock changed (in `db`'s transaction): keep its work due at the same business time (only the work
   * due by `dueBy`, business time, when given).
   */
  realign(db: Db, merchantId: string, clock: ClockSetting, dueBy?: number): Promise<void>;
}

export type Actor =
  | { kind: 'app'; appId: string }
  | { kind: 'operator' }
  /** Someone holding a link to a hosted page (the payer of a payment link). */
  | { kind: 'payer'; page: string }
  | { kind: 'system'; job: string }
  /** Someone signed in to the merchant's dashboard (docs/dashboard.md). */
  | { kind: 'person'; personId: string; email: string };

/** What every part of the platform is given instead of reaching for globals. */
export interface PlatformContext {
  wallClock: Clock;
  db: Db;
  database: Database;
  config: Config;
  secrets: PlatformSecrets;
  log: Log;
  /** The acquirer and the other rails: the sandbox's simulations, or real connectors. */
  rails: Rails;
  /** The process's due work (jobs and webhook deliveries), once it runs: the sandbox clock runs it as it moves. */
  dueWork?: DueWork;
  /** The process's webhook sender, once it runs: told when new events have committed. */
  outbox?: { wake(): void };
  /**
   * What each capability sets up for a new merchant, in the transaction that creates it (its first settlement, say).
   */
  merchantSetup: ReadonlyArray<(ctx: PlatformContext, merchant: Merchant) => Promise<void>>;
  /**
   * What capabilities do when another's event happens, by action, run in the transaction that records the event
   * (a plan waiting for a card starts billing when the customer's token binds): the event's `data` as rendered.
   */
  eventReactions?: ReadonlyMap<string, ReadonlyArray<EventReaction>>;
  /** The records of every capability that post to the ledger, as the ledger's check reads them. */
  ledgerSources?: readonly LedgerSource[];
  /** Inside a transaction: runs `callback` once the transaction has committed (never if it rolls back). */
  afterCommit?(callback: () => void): void;
  /**
   * Inside a transaction: runs `work` in it at its end, just before it commits, once per `key` however often it is
   * asked. For writes to rows many transactions share (a merchant's ledger balances): taken last, their locks are
   * held the shortest, and always after the transaction's other locks, so they never invert another order of locking.
   */
  beforeCommit?(key: string, work: () => Promise<void>): void;
}

/** A capability's response to an event of the platform, in that event's transaction. */
export type EventReaction = (ctx: Context, data: unknown) => Promise<void>;

/**
 * A kind of record that moves money (a transaction, a card transaction, a payout), as the ledger's check reads it:
 * a capability supplies it in its module, so that the ledger knows no capability.
 */
export interface LedgerSource {
  /** The `source_type` its entries carry. */
  readonly type: string;
  /** Every record of the merchant that posts, a page at a time. */
  pages(ctx: Context): AsyncIterable<LedgerRecord[]>;
  /** Which of these entry names (`source_id`s) a record of this kind posts under. */
  among(ctx: Context, names: string[]): Promise<Set<string>>;
}

/** One record, as the check compares it with what was posted under its names. */
export interface LedgerRecord {
  /** Names it in a difference: `payout_request:<id>`. */
  subject: string;
  currency: string;
  /** The `source_id`s of its entries (its own id, and its steps' where it posts more than once). */
  entryNames: string[];
  /** What its entries should sum to, account by account, as it stands now (given its entries, for a fee it took). */
  expected(entries: ReadonlyArray<{ type: string; fee: number }>): Readonly<Record<string, number>>;
}

/** The first argument of every domain verb. */
export interface Context extends PlatformContext {
  merchant: Merchant;
  actor: Actor;
  requestId: string;
  /** The merchant's business clock: the only time domain rules read. */
  clock: Clock;
  /** Where the identifiers and tokens of the merchant's objects come from: random, or seeded (a deterministic run). */
  ids: IdSource;
  /**
   * The request's Idempotency-Key, if it has one, and the wall time its record expires: until then it is a
   * natural key for what the request creates (a payment, a capture, a refund, a void).
   */
  idempotency?: { key: string; expiresAt: number };
  /**
   * Set by the HTTP layer for a request with an Idempotency-Key: stores the reply in the state change's transaction.
   */
  outcome?: OutcomeRecorder;
}

export interface OutcomeRecorder {
  /** Stores the reply that `result` presents as; throws if the request's claim was lost, or on a second call. */
  record(db: Db, result: unknown): Promise<void>;
}

/** The context of one merchant's work, built the same way for a request and for a scheduled job. */
export function merchantContext(
  platform: PlatformContext,
  merchant: Merchant,
  actor: Actor,
  requestId: string,
  log = platform.log,
): Context {
  return {
    ...platform,
    log,
    merchant,
    actor,
    requestId,
    clock: businessClock(platform.wallClock, merchant.clock),
    ids: merchant.ids ? new SeededIdSource(merchant.id, merchant.ids) : randomIds,
  };
}

/**
 * Runs work in a transaction, or inside the one already open, so a verb can call another verb. The verb's last
 * transaction says `completesRequest`: with an Idempotency-Key, the request's reply is then stored in that same
 * transaction, so the change and the reply a retry will see commit together (or not at all).
 */
export async function inTransaction<C extends PlatformContext, T>(
  ctx: C,
  work: (ctx: C) => Promise<T>,
  options: { completesRequest?: boolean } = {},
): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  const committed: Array<() => void> = [];
  const finishing = new Map<string, () => Promise<void>>();
  const seeded = (ctx as Partial<Context>).ids;
  const ids = seeded instanceof SeededIdSource ? seeded : undefined;
  let result: T;
  try {
    result = await ctx.db.transaction().execute(async (tx) => {
      const result = await work({
        ...ctx,
        db: tx,
        afterCommit: (callback) => committed.push(callback),
        beforeCommit: (key, last) => void (finishing.has(key) || finishing.set(key, last)),
      });
      for (const last of finishing.values()) await last();
      const outcome = (ctx as Partial<Context>).outcome;
      if (outcome && options.completesRequest) await outcome.record(tx, result);
      if (ids?.unsaved) await ids.saveDrawn(tx);
      return result;
    });
  } catch (error) {
    const overtaken = ids?.unsaved && isUniqueViolation(error) && (await ids.overtaken(ctx.db).catch(() => false));
    ids?.rolledBack();
    if (overtaken) throw new AppError(PLATFORM_ERRORS.deterministicWriteConflict);
    throw error;
  }
  ids?.committed();
  for (const callback of committed) callback();
  return result;
}
