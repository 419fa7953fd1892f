import type { PlatformContext } from '../../context/context.js';
import type { RailFault, RailFaults } from '../../rails/rail-faults.js';
import { takeRailFault } from './rules.js';

/** The merchants' rail rules, as the rails see them: each taken once by the call it shapes. */
export function labRailFaults(platform: PlatformContext): RailFaults {
  return {
    async take(merchantId, rail) {
      const taken = await takeRailFault(platform.db, merchantId, rail, platform.wallClock.now().getTime());
      if (!taken) return undefined;
      return { ruleId: taken.ruleId, ...taken.effect } as RailFault;
    },
    async transferFate(merchantId, reference, firstSend) {
      const kept = await platform.db
        .selectFrom('lab_transfer_fates')
        .select('fate')
        .where('merchant_id', '=', merchantId)
        .where('reference', '=', reference)
        .executeTakeFirst();
      if (kept) return kept.fate as 'reject' | 'return';
      if (!firstSend) return undefined;
      const taken = await takeRailFault(platform.db, merchantId, 'payout', platform.wallClock.now().getTime());
      if (!taken || (taken.effect.kind !== 'reject' && taken.effect.kind !== 'return')) return undefined;
      await platform.db
        .insertInto('lab_transfer_fates')
        .values({
          merchant_id: merchantId,
          reference,
          fate: taken.effect.kind,
          rule_id: taken.ruleId,
          created_at: platform.wallClock.now().getTime(),
        })
        .onConflict((oc) => oc.columns(['merchant_id', 'reference']).doNothing())
        .execute();
      return taken.effect.kind;
    },
  };
}
