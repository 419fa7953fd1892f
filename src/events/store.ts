import type { Insertable, Selectable } from 'kysely';
import { businessTimeOf, type ClockSetting, RUNNING, wallTimeOf } from '../platform/clock.js';
import { type Db, preparedInsertRows } from '../platform/database/database.js';
import type { EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable } from '../platform/database/schema.js';
import { newId, newSortableId } from '../platform/ids.js';
import { readClockSetting } from '../platform/tenants.js';
import { DELIVERY_QUEUE, settleLeased } from '../scheduler/lease.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type EventRow = Selectable<EventsTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export const insertEvents = preparedInsertRows('events', {
  id: true,
  merchant_id: true,
  subject_id: true,
  action: true,
  payload: true,
  notify_url: true,
  app_id: true,
  created_at: true,
  wall_created_at: true,
});

export interface NewDelivery {
  eventId: string;
  merchantId: string;
  appId: string;
  destination: string;
  url: string;
  dueAt: number;
  dueWallAt: number;
}

/** Adds deliveries; one an event already has for the same destination is left as it is. */
export async function insertDeliveries(db: Db, deliveries: NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((d) => ({
        id: newSortableId(d.dueWallAt),
        event_id: d.eventId,
        merchant_id: d.merchantId,
        app_id: d.appId,
        destination: d.destination,
        url: d.url,
        state: 'pending' as const,
        attempts: 0,
        attempts_before_redelivery: 0,
        due_at: d.dueAt,
        due_wall_at: d.dueWallAt,
        lease_owner: null,
        lease_token: null,
        lease_expires_at: null,
        last_status: null,
        last_error: null,
        delivered_at: null,
        created_at: d.dueWallAt,
        updated_at: d.dueWallAt,
      })),
    )
    .onConflict((oc) => oc.columns(['event_id', 'destination']).doNothing())
    .execute();
}

export async function eventsByIds(
  db: Db,
  ids: string[],
): Promise<Map<string, Pick<EventRow, 'id' | 'action' | 'payload' | 'subject_id'>>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'action', 'payload', 'subject_id'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export interface AttemptResult {
  delivery: DeliveryRow;
  /** Wall time the request began. */
  startedAt: number;
  durationMs: number;
  status: number | undefined;
  error: string | undefined;
  outcome: 'delivered' | 'retry' | 'failed';
  /** For `retry`: how long until the next attempt. */
  retryInMs?: number;
  /** The fault a rule injected into this attempt (the sandbox lab). */
  fault?: { rule_id: string; effect: string };
}

/**
 * Records attempts and moves their deliveries on, in one transaction. A result whose claim was lost (another
 * process took the delivery over after the lease ran out) is dropped: that process records its own attempt.
 */
/** Twelve columns each: well inside SQLite's and PostgreSQL's limits on a statement's parameters. */
const ATTEMPTS_PER_INSERT = 500;

/**
 * Records a round's attempts, and whatever else must commit with them (`alongside`, in the same transaction, told which
 * deliveries were recorded: an attempt whose claim was lost meanwhile, to a restore or an expired lease, is not).
 */
export async function recordAttempts(
  db: Db,
  results: AttemptResult[],
  now: number,
  alongside?: (tx: Db, settled: ReadonlySet<string>) => Promise<void>,
): Promise<void> {
  if (results.length === 0) return;
  await db.transaction().execute(async (tx) => {
    // Business times (of the attempt, the delivery, the next attempt) from the merchant's clock as it is now, read
    // under a share lock: a sandbox clock move (which realigns the pending deliveries) cannot commit in between.
    const clocks = new Map<string, ClockSetting>();
    for (const merchantId of new Set(results.map((r) => r.delivery.merchant_id))) {
      clocks.set(merchantId, (await readClockSetting(tx, merchantId)) ?? RUNNING);
    }
    // One INSERT for the batch's attempts: on PostgreSQL each statement is a round trip, and the sender waits for all.
    const attempts: Insertable<WebhookAttemptsTable>[] = [];
    for (const r of results) {
      const d = r.delivery;
      const clock = clocks.get(d.merchant_id)!;
      const businessAt = businessTimeOf(r.startedAt, clock);
      const retryAt = r.retryInMs === undefined ? undefined : businessTimeOf(now, clock) + r.retryInMs;
      const next = retryAt === undefined ? undefined : { due_at: retryAt, due_wall_at: wallTimeOf(retryAt, clock) };
      const moved = await settleLeased(
        tx,
        DELIVERY_QUEUE,
        d,
        r.outcome === 'delivered' ? 'delivered' : r.outcome === 'failed' ? 'failed' : 'pending',
        {
          ...next,
          last_status: r.status ?? null,
          last_error: r.error ?? null,
          delivered_at: r.outcome === 'delivered' ? businessAt + r.durationMs : null,
          updated_at: now,
        },
      );
      if (!moved) continue;
      attempts.push({
        id: newId(),
        delivery_id: d.id,
        event_id: d.event_id,
        merchant_id: d.merchant_id,
        attempt: d.attempts,
        url: d.url,
        started_at: r.startedAt,
        business_at: businessAt,
        duration_ms: r.durationMs,
        status_code: r.status ?? null,
        error: r.error ?? null,
        outcome: r.outcome,
        fault: r.fault ? JSON.stringify(r.fault) : null,
      });
    }
    for (let i = 0; i < attempts.length; i += ATTEMPTS_PER_INSERT) {
      await tx
        .insertInto('webhook_attempts')
        .values(attempts.slice(i, i + ATTEMPTS_PER_INSERT))
        .execute();
    }
    await alongside?.(tx, new Set(attempts.map((attempt) => attempt.delivery_id)));
  });
}

export async function findEvent(db: Db, merchantId: string, eventId: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', eventId)
    .executeTakeFirst();
}

/** For operators only (`paygate webhooks list --event`): whose event this is, across merchants. */
export async function merchantOfEvent(db: Db, eventId: string): Promise<string | undefined> {
  return (await db.selectFrom('events').select('merchant_id').where('id', '=', eventId).executeTakeFirst())
    ?.merchant_id;
}

export async function eventsOfSubject(db: Db, merchantId: string, subjectId: string): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('subject_id', '=', subjectId)
    .orderBy('id')
    .execute();
}

export async function deliveriesOfEvents(db: Db, merchantId: string, eventIds: string[]): Promise<DeliveryRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('event_id', 'in', eventIds)
    .orderBy('created_at')
    .orderBy('destination')
    .execute();
}

export async function attemptsOfEvents(db: Db, merchantId: string, eventIds: string[]): Promise<AttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('event_id', 'in', eventIds)
    .orderBy('started_at')
    .orderBy('attempt')
    .execute();
}

/** Gives claimed deliveries back, due as they were, their attempt uncounted; fenced by each claim's token. */
export async function releaseClaims(db: Db, deliveries: DeliveryRow[], now: number): Promise<void> {
  for (const d of deliveries)
    await settleLeased(db, DELIVERY_QUEUE, d, 'pending', { attempts: d.attempts - 1, updated_at: now });
}

/**
 * Puts an event's deliveries back in line, due at once, with fresh retries: all but one being attempted right
 * now (a claim whose lease ran out, its process gone, is taken back).
 */
export async function requeueDeliveries(
  db: Db,
  merchantId: string,
  eventId: string,
  dueAt: number,
  dueWallAt: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: 'pending' as const,
      due_at: dueAt,
      due_wall_at: dueWallAt,
      attempts_before_redelivery: eb.ref('attempts'),
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      updated_at: now,
    }))
    .where('merchant_id', '=', merchantId)
    .where('event_id', '=', eventId)
    .where((eb) => eb.or([eb('state', '!=', 'sending'), eb('lease_expires_at', '<', now)]))
    .execute();
}

/** For operators only (`paygate webhooks list`): the most recent deliveries, across merchants. */
export async function recentDeliveries(
  db: Db,
  limit: number,
): Promise<Array<DeliveryRow & { action: string; event_created_at: number; event_wall_created_at: number }>> {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select([
      'events.action',
      'events.created_at as event_created_at',
      'events.wall_created_at as event_wall_created_at',
    ])
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id')
    .limit(limit)
    .execute();
}

/**
 * Forgets events older than `before` (wall time) with everything recorded about their delivery, once none of
 * their deliveries is still to be sent; a batch at a time, each in its own transaction. Returns how many went.
 */
export async function purgeSettledEvents(db: Db, before: number, batch = 500): Promise<number> {
  let purged = 0;
  for (;;) {
    const ids = (
      await db
        .selectFrom('events')
        .select('id')
        .where('wall_created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries')
                .select('webhook_deliveries.id')
                .whereRef('webhook_deliveries.event_id', '=', 'events.id')
                .where('webhook_deliveries.state', 'in', ['pending', 'sending']),
            ),
          ),
        )
        .orderBy('wall_created_at')
        .limit(batch)
        .execute()
    ).map((row) => row.id);
    if (ids.length === 0) return purged;
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('webhook_attempts').where('event_id', 'in', ids).execute();
      // A delivery redelivered meanwhile is pending again: its event stays.
      await tx
        .deleteFrom('webhook_deliveries')
        .where('event_id', 'in', ids)
        .where('state', 'not in', ['pending', 'sending'])
        .execute();
      await tx
        .deleteFrom('events')
        .where('id', 'in', ids)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries')
                .select('webhook_deliveries.id')
                .whereRef('webhook_deliveries.event_id', '=', 'events.id'),
            ),
          ),
        )
        .execute();
    });
    purged += ids.length;
    if (ids.length < batch) return purged;
  }
}
