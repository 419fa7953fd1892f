import { type Kysely, sql } from 'kysely';

/**
 * Two indexes of the billing engine, each read thousands of times when many plans bill at once:
 * - a plan's billings are read by merchant and plan. With the plan index alone SQLite's planner preferred the
 *   order index's merchant prefix and read every billing of the merchant for each plan (a few milliseconds at ten
 *   thousand plans, more with every month billed); this index answers the whole query, in billing order;
 * - due plans are read in (due time, id) order, a hundred at a time. Plans due at one instant (all that started
 *   together) were all read and sorted by id for each hundred; with the id in the index they are read in order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('recurring_billings_of_plan')
    .on('recurring_billings')
    .columns(['merchant_id', 'plan_id', 'billing_at', 'sequence'])
    .execute();
  await db.schema.dropIndex('recurring_billings_plan').execute();
  await db.schema
    .createIndex('recurring_plans_due_order')
    .on('recurring_plans')
    .columns(['merchant_id', 'next_due_at', 'id'])
    .where(sql.ref('next_due_at'), 'is not', null)
    .execute();
  await db.schema.dropIndex('recurring_plans_due').execute();
}
