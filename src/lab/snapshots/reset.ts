import { type Context, inTransaction, merchantContext } from '../../context/context.js';
import { type Determinism, deterministic, RANDOM, setDeterminism } from '../../platform/deterministic.js';
import { SeededIdSource } from '../../platform/ids.js';
import { findMerchant } from '../../platform/tenants.js';
import { withMerchantClock } from '../../sandbox/index.js';
import { requireSandbox } from '../sandbox-only.js';
import { lockClockOffset } from './store.js';
import { deleteWorld, resumeDueWork, worldOf } from './world.js';

/** How a reset leaves the merchant; nothing to give for a merchant as a freshly created one is. */
export interface ResetOptions {
  /**
   * Deterministic from now on, with this seed (docs/lab.md, "Deterministic runs"): identifiers from the seeded
   * sequence, the clock standing still at the fixed start. `false`: random, the clock running with wall time. Absent:
   * deterministic with the server's seed when it has one (PAYGATE_DETERMINISTIC_SEED), random otherwise.
   */
  deterministic?: { seed: string } | false;
}

export interface ResetWorld {
  /** Rows of the world removed. */
  removed: number;
  /** Business time once reset. */
  now: number;
  /** The seed the merchant's identifiers now come from, if they are deterministic. */
  seed: string | undefined;
}

/**
 * Empties the merchant's world (every row catalogue.ts counts as the world: objects, ledger, inbox captures, fault
 * rules, due work, idempotency keys) and leaves the merchant as a freshly created one is, in one transaction: its
 * clock back to wall time (the one time a merchant's clock goes back, with a restore), or standing at the fixed start
 * when deterministic, and every capability's set-up for a new merchant run again (its first settlement scheduled).
 * Its apps, keys, webhook endpoints, inbox taps and snapshots stay.
 */
export async function resetWorld(ctx: Context, options: ResetOptions = {}): Promise<ResetWorld> {
  requireSandbox(ctx.config);
  const world = await worldOf(ctx);
  return withMerchantClock(ctx.merchant.id, () =>
    inTransaction(ctx, async (tx) => {
      await lockClockOffset(tx.db, tx.merchant.id);
      const removed = await deleteWorld(tx.db, world, tx.merchant.id);
      const wallNow = tx.wallClock.now().getTime();
      const determinism = determinismOf(options, tx.config.deterministicSeed, wallNow);
      await setDeterminism(tx.db, tx.merchant.id, determinism, wallNow);
      const merchant = (await findMerchant(tx.db, tx.merchant.id))!;
      // The set-up draws from the merchant's new sequence (its first settlement's job, say), not the request's.
      const fresh = merchantContext(tx, merchant, tx.actor, tx.requestId, tx.log);
      for (const setUp of tx.merchantSetup) await setUp(fresh, merchant);
      if (fresh.ids instanceof SeededIdSource && fresh.ids.unsaved) await fresh.ids.saveDrawn(tx.db);
      await resumeDueWork(tx.db, tx.merchant.id, determinism.clock);
      tx.afterCommit?.(() => tx.outbox?.wake());
      return {
        removed,
        now: determinism.clock.frozenAt ?? wallNow + determinism.clock.offsetMs,
        seed: determinism.ids?.seed,
      };
    }),
  );
}

function determinismOf(options: ResetOptions, serverSeed: string | undefined, wallNow: number): Determinism {
  if (options.deterministic === false) return RANDOM;
  const seed = options.deterministic?.seed ?? serverSeed;
  return seed === undefined ? RANDOM : deterministic(seed, wallNow);
}
