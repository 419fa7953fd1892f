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
    async markReturned(merchantId, reference, ruleId) {
      await platform.db
        .insertInto('lab_returned_transfers')
        .values({ merchant_id: merchantId, reference, rule_id: ruleId, created_at: platform.wallClock.now().getTime() })
        .onConflict((oc) => oc.columns(['merchant_id', 'reference']).doNothing())
        .execute();
    },
    async isReturned(merchantId, reference) {
      const row = await platform.db
        .selectFrom('lab_returned_transfers')
        .select('reference')
        .where('merchant_id', '=', merchantId)
        .where('reference', '=', reference)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
