import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The retention purge looks for old events by wall time.
  await db.schema.createIndex('events_wall_created').on('events').column('wall_created_at').execute();
}
