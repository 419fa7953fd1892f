import type { Context, PlatformContext } from '../context/context.js';
import { businessTimeOf, RUNNING } from '../platform/clock.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { readClockSetting } from '../platform/tenants.js';
import { EVENT_ERRORS } from './errors.js';
import { destinationsOf } from './outbox.js';
import {
  type AttemptRow,
  attemptsOfEvents,
  type DeliveryRow,
  deliveriesOfEvents,
  type EventRow,
  eventsOfSubject,
  findEvent,
  insertDeliveries,
  requeueDeliveries,
} from './store.js';

export interface EventHistory {
  event: EventRow;
  deliveries: Array<{ delivery: DeliveryRow; attempts: AttemptRow[] }>;
}

/** A subject's events (an order's), oldest first, each with its deliveries and every attempt made. */
export async function subjectEvents(ctx: Context, subjectId: string): Promise<EventHistory[]> {
  return histories(ctx, ctx.merchant.id, await eventsOfSubject(ctx.db, ctx.merchant.id, subjectId));
}

export async function eventHistory(ctx: PlatformContext, merchantId: string, eventId: string): Promise<EventHistory> {
  return (await histories(ctx, merchantId, [await requireEvent(ctx, merchantId, eventId)]))[0]!;
}

/** The merchant's event so named; another merchant's looks exactly like a missing one. */
async function requireEvent(ctx: PlatformContext, merchantId: string, eventId: string): Promise<EventRow> {
  const event = isUuid(eventId) ? await findEvent(ctx.db, merchantId, eventId) : undefined;
  if (!event) throw new AppError(EVENT_ERRORS.eventNotFound);
  return event;
}

async function histories(ctx: PlatformContext, merchantId: string, events: EventRow[]): Promise<EventHistory[]> {
  const ids = events.map((e) => e.id);
  const [deliveries, attempts] = await Promise.all([
    deliveriesOfEvents(ctx.db, merchantId, ids),
    attemptsOfEvents(ctx.db, merchantId, ids),
  ]);
  return events.map((event) => ({
    event,
    deliveries: deliveries
      .filter((d) => d.event_id === event.id)
      .map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) })),
  }));
}

/**
 * Sends an event again, now, to every destination it has, with a fresh set of retries, plus any app endpoint
 * configured since (a merchant who just set one up can have past events). A delivery being attempted right
 * now is left to finish. The body is the one rendered at the event: the subject as it was then.
 */
export async function redeliverEvent(ctx: PlatformContext, merchantId: string, eventId: string): Promise<EventHistory> {
  const event = await requireEvent(ctx, merchantId, eventId);
  const wallNow = ctx.wallClock.now().getTime();
  await ctx.db.transaction().execute(async (tx) => {
    const dueAt = businessTimeOf(wallNow, (await readClockSetting(tx, merchantId)) ?? RUNNING);
    const destinations = await destinationsOf(tx, merchantId, { notifyUrl: event.notify_url, appId: event.app_id });
    await insertDeliveries(
      tx,
      destinations.map((d) => ({ ...d, eventId: event.id, merchantId, dueAt, dueWallAt: wallNow })),
    );
    await requeueDeliveries(tx, merchantId, event.id, dueAt, wallNow, wallNow);
  });
  ctx.outbox?.wake();
  return eventHistory(ctx, merchantId, event.id);
}
