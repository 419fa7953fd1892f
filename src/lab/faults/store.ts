import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../platform/database/database.js';
import type { LabFaultRulesTable } from '../tables.js';

export type FaultRuleRow = Selectable<LabFaultRulesTable>;

export async function insertRule(db: Db, row: Insertable<LabFaultRulesTable>): Promise<void> {
  await db.insertInto('lab_fault_rules').values(row).execute();
}

/**
 * The rules that may still apply (not expired, not used up), oldest first: the first that matches an attempt shapes it.
 */
export async function rulesOf(db: Db, merchantIds: string[], target: string, now: number): Promise<FaultRuleRow[]> {
  if (merchantIds.length === 0) return [];
  return db
    .selectFrom('lab_fault_rules')
    .selectAll()
    .where('merchant_id', 'in', merchantIds)
    .where('target', '=', target)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('next_count', 'is', null), eb('uses', '<', eb.ref('next_count'))]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listRules(db: Db, merchantId: string, now: number): Promise<FaultRuleRow[]> {
  return db
    .selectFrom('lab_fault_rules')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findRule(db: Db, merchantId: string, id: string): Promise<FaultRuleRow | undefined> {
  return db
    .selectFrom('lab_fault_rules')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteRule(db: Db, merchantId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('lab_fault_rules')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Takes one use of a rule: false when a `--next K` rule has none left (another attempt took the last one). The
 * condition and the increment are one statement, so concurrent attempts never take more than K.
 */
export async function takeUse(db: Db, id: string): Promise<boolean> {
  const result = await db
    .updateTable('lab_fault_rules')
    .set({ uses: sql`uses + 1` })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('next_count', 'is', null), eb('uses', '<', eb.ref('next_count'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes the merchant's expired rules, and says how many it has in force. */
export async function rulesInForce(db: Db, merchantId: string, now: number): Promise<number> {
  await db.deleteFrom('lab_fault_rules').where('merchant_id', '=', merchantId).where('expires_at', '<=', now).execute();
  const row = await db
    .selectFrom('lab_fault_rules')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
