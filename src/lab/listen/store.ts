import type { Db } from '../../platform/database/database.js';

export interface StreamedEventRow {
  id: string;
  action: string;
  payload: string;
  wall_created_at: number;
}

/** The merchant's events made (wall time) at or after `from`, in the order they were made, a page at a time. */
export function eventsSince(db: Db, merchantId: string, from: number, limit: number): Promise<StreamedEventRow[]> {
  return db
    .selectFrom('events')
    .select(['id', 'action', 'payload', 'wall_created_at'])
    .where('merchant_id', '=', merchantId)
    .where('wall_created_at', '>=', from)
    .orderBy('wall_created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function eventTime(db: Db, merchantId: string, id: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('events')
    .select('wall_created_at')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.wall_created_at;
}
