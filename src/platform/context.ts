import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database, Db } from './database/database.js';
import type { Log } from './logger.js';
import type { PlatformSecrets } from './secrets.js';

/** The tenant: every resource belongs to exactly one merchant. */
export interface Merchant {
  id: string;
  name: string;
  timezone: string;
  clockOffsetMs: number;
}

export type Actor =
  | { kind: 'app'; appId: string }
  | { kind: 'operator' }
  | { kind: 'system'; job: string };

/** What every part of the platform is given instead of reaching for globals. */
export interface PlatformContext {
  wallClock: Clock;
  db: Db;
  database: Database;
  config: Config;
  secrets: PlatformSecrets;
  log: Log;
}

/** The first argument of every domain verb. */
export interface Context extends PlatformContext {
  merchant: Merchant;
  actor: Actor;
  requestId: string;
  /** The merchant's business clock: the only time domain rules read. */
  clock: Clock;
  /** Set by the HTTP layer for a request with an Idempotency-Key: stores the reply in the state change's transaction. */
  outcome?: OutcomeRecorder;
}

export interface OutcomeRecorder {
  record(db: Db, result: unknown): Promise<void>;
}

/**
 * Runs work in a transaction, or inside the one already open, so a verb can call another verb. The outermost
 * transaction also records the request's outcome, unless it is an intermediate step of a two-phase verb.
 */
export async function inTransaction<C extends PlatformContext, T>(
  ctx: C,
  work: (ctx: C) => Promise<T>,
  options: { intermediate?: boolean } = {},
): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return ctx.db.transaction().execute(async (tx) => {
    const inner = { ...ctx, db: tx };
    const result = await work(inner);
    const outcome = (ctx as Partial<Context>).outcome;
    if (outcome && !options.intermediate) await outcome.record(tx, result);
    return result;
  });
}
