import { type Context, inTransaction } from '../../context/context.js';
import { findMerchant } from '../../platform/tenants.js';
import { withMerchantClock } from '../../sandbox/index.js';
import { requireSandbox } from '../sandbox-only.js';
import { lockClockOffset, setClockOffset } from './store.js';
import { deleteWorld, resumeDueWork, worldOf } from './world.js';

/** How a reset leaves the merchant; nothing to give for a merchant as a freshly created one is. */
export interface ResetOptions {
  /**
   * The business time the merchant's clock reads once reset (epoch ms); wall time when absent (the clock's offset
   * back to 0). A deterministic merchant's fixed start goes here.
   */
  clockAt?: number;
}

export interface ResetWorld {
  /** Rows of the world removed. */
  removed: number;
  /** Business time once reset. */
  now: number;
}

/**
 * Empties the merchant's world (every row catalogue.ts counts as the world: objects, ledger, inbox captures, fault
 * rules, due work, idempotency keys) and leaves the merchant as a freshly created one is, in one transaction: its
 * clock back to wall time (the one time a merchant's clock goes back, with a restore) and every capability's set-up
 * for a new merchant run again (its first settlement scheduled). Its apps, keys, webhook endpoints, inbox taps and
 * snapshots stay.
 */
export async function resetWorld(ctx: Context, options: ResetOptions = {}): Promise<ResetWorld> {
  requireSandbox(ctx.config);
  const world = await worldOf(ctx);
  return withMerchantClock(ctx.merchant.id, () =>
    inTransaction(ctx, async (tx) => {
      await lockClockOffset(tx.db, tx.merchant.id);
      const removed = await deleteWorld(tx.db, world, tx.merchant.id);
      const wallNow = tx.wallClock.now().getTime();
      const offset = options.clockAt === undefined ? 0 : options.clockAt - wallNow;
      await setClockOffset(tx.db, tx.merchant.id, offset, wallNow);
      const merchant = { ...(await findMerchant(tx.db, tx.merchant.id))!, clockOffsetMs: offset };
      for (const setUp of tx.merchantSetup) await setUp(tx, merchant);
      await resumeDueWork(tx.db, tx.merchant.id, offset);
      tx.afterCommit?.(() => tx.outbox?.wake());
      return { removed, now: wallNow + offset };
    }),
  );
}
