import type { Db } from '../../platform/database/database.js';

export interface EventStamp {
  id: string;
  action: string;
  wall_created_at: number;
}

/**
 * A page of the merchant's events made (wall time) at or after `from`, in the order they were made, after the
 * stamp `after` when given (keyset paging: events made in the same millisecond are not read twice, nor skipped).
 */
export function eventStamps(
  db: Db,
  merchantId: string,
  from: number,
  after: Pick<EventStamp, 'id' | 'wall_created_at'> | undefined,
  limit: number,
): Promise<EventStamp[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'action', 'wall_created_at'])
    .where('merchant_id', '=', merchantId)
    .where('wall_created_at', '>=', from);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('wall_created_at', '>', after.wall_created_at),
        eb.and([eb('wall_created_at', '=', after.wall_created_at), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('wall_created_at').orderBy('id').limit(limit).execute();
}

export async function payloadsOf(db: Db, merchantId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'payload'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.payload]));
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
