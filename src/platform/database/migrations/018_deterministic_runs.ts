import type { Kysely } from 'kysely';

/**
 * Deterministic runs (docs/lab.md): a merchant's business clock may stand still (it reads `clock_frozen_at` until
 * moved), and its identifiers may come from a seeded sequence (`id_seed`, of which `ids_drawn` have been used). A
 * snapshot keeps both, so a restore goes on from where the save stood.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('clock_frozen_at', 'bigint').execute();
  await db.schema.alterTable('merchants').addColumn('id_seed', 'text').execute();
  await db.schema
    .alterTable('merchants')
    .addColumn('ids_drawn', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('lab_snapshots').addColumn('clock_frozen', 'integer').execute();
  await db.schema.alterTable('lab_snapshots').addColumn('id_seed', 'text').execute();
  await db.schema.alterTable('lab_snapshots').addColumn('ids_drawn', 'bigint').execute();
}
