import type { Context, PlatformContext } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { checkOrder } from '../orders/queries.js';
import type { OrderReference } from '../orders/lookup.js';
import { destinationsOf } from './outbox.js';
import {
  attemptsOfEvents,
  deliveriesOfEvents,
  eventsOfOrder,
  findEvent,
  insertDeliveries,
  requeueDeliveries,
  type AttemptRow,
  type DeliveryRow,
  type EventRow,
} from './store.js';
import { WEBHOOK_ERRORS } from './errors.js';

export interface EventHistory {
  event: EventRow;
  deliveries: Array<{ delivery: DeliveryRow; attempts: AttemptRow[] }>;
}

/** An order's events, oldest first, each with its deliveries and every attempt made. */
export async function orderEvents(ctx: Context, by: { order?: OrderReference; transaction?: { uuid: string } }): Promise<EventHistory[]> {
  const view = await checkOrder(ctx, by);
  return histories(ctx, await eventsOfOrder(ctx.db, ctx.merchant.id, view.order.id));
}

export async function eventHistory(ctx: PlatformContext, eventId: string, merchantId?: string): Promise<EventHistory> {
  return (await histories(ctx, [await requireEvent(ctx, eventId, merchantId)]))[0]!;
}

/** The event so named (of this merchant, when given); another merchant's looks exactly like a missing one. */
async function requireEvent(ctx: PlatformContext, eventId: string, merchantId: string | undefined): Promise<EventRow> {
  const event = isUuid(eventId) ? await findEvent(ctx.db, merchantId, eventId) : undefined;
  if (!event) throw new AppError(WEBHOOK_ERRORS.eventNotFound);
  return event;
}

async function histories(ctx: PlatformContext, events: EventRow[]): Promise<EventHistory[]> {
  const ids = events.map((e) => e.id);
  const [deliveries, attempts] = await Promise.all([deliveriesOfEvents(ctx.db, ids), attemptsOfEvents(ctx.db, ids)]);
  return events.map((event) => ({
    event,
    deliveries: deliveries.filter((d) => d.event_id === event.id)
      .map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) })),
  }));
}

/**
 * Sends an event again, now, to every destination it has, with a fresh set of retries, plus any app endpoint
 * configured since (a merchant who just set one up can have past events). A delivery being attempted right
 * now is left to finish. The body is the one rendered at the event: the order as it was then.
 */
export async function redeliverEvent(ctx: PlatformContext, eventId: string, merchantId?: string): Promise<EventHistory> {
  const event = await requireEvent(ctx, eventId, merchantId);
  const merchant = await ctx.db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', event.merchant_id).executeTakeFirstOrThrow();
  const wallNow = ctx.wallClock.now().getTime();
  const dueAt = wallNow + merchant.clock_offset_ms;
  await ctx.db.transaction().execute(async (tx) => {
    const order = event.order_id === null ? undefined
      : await tx.selectFrom('orders').select(['notify_url', 'app_id']).where('id', '=', event.order_id).executeTakeFirst();
    const destinations = await destinationsOf(tx, event.merchant_id, { notifyUrl: order?.notify_url ?? null, appId: order?.app_id ?? null });
    await insertDeliveries(tx, destinations.map((d) => ({ ...d, eventId: event.id, merchantId: event.merchant_id, dueAt, dueWallAt: wallNow })));
    await requeueDeliveries(tx, event.id, dueAt, wallNow, wallNow);
  });
  ctx.outbox?.wake();
  return eventHistory(ctx, event.id, merchantId);
}
