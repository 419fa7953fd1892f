import { newSortableId } from '../platform/ids.js';
import type { Context } from '../context/context.js';
import type { Db } from '../platform/database/database.js';
import { type OrderView, presentOrder } from '../orders/present.js';
import type { EventAction, OrderAction } from './events.js';
import { insertDeliveries, type NewDelivery } from './store.js';

/**
 * Records an order event in the caller's transaction (the outbox), with its body rendered now: the order as it
 * is at the event, whenever it is delivered. One delivery per destination: the order's `notify_url`, signed
 * with the key of the app that created the order, and every active app endpoint of the merchant, each signed
 * with its own app's key. The sender is woken once the transaction commits.
 */
export async function emitOrderEvent(ctx: Context, action: OrderAction, view: OrderView): Promise<string> {
  return emitEvent(ctx, action, { orderId: view.order.id, data: { order: presentOrder(view) }, notifyUrl: view.order.notify_url, appId: view.order.app_id });
}

/** Any event, as `emitOrderEvent` describes; one with no `notifyUrl` goes to the app endpoints only. */
export async function emitEvent(
  ctx: Context,
  action: EventAction,
  subject: { orderId: string | null; data: unknown; notifyUrl: string | null; appId: string | null },
): Promise<string> {
  if (!ctx.db.isTransaction) throw new Error('an event is written in the transaction of the change it reports');
  const now = ctx.clock.now().getTime();
  const wallNow = ctx.wallClock.now().getTime();
  const id = newSortableId(wallNow);
  const payload = JSON.stringify({ code: 200, message: 'success', data: subject.data });
  await ctx.db.insertInto('events').values({
    id, merchant_id: ctx.merchant.id, order_id: subject.orderId, action, payload, created_at: now, wall_created_at: wallNow,
  }).execute();
  const destinations = await destinationsOf(ctx.db, ctx.merchant.id, { notifyUrl: subject.notifyUrl, appId: subject.appId });
  await insertDeliveries(ctx.db, destinations.map((d) => ({ ...d, eventId: id, merchantId: ctx.merchant.id, dueAt: now, dueWallAt: wallNow })));
  if (destinations.length > 0) ctx.afterCommit?.(() => ctx.outbox?.wake());
  return id;
}

type Destination = Pick<NewDelivery, 'destination' | 'url' | 'appId'>;

/** Where an event of this order goes now: each URL once. */
export async function destinationsOf(db: Db, merchantId: string, order: { notifyUrl: string | null; appId: string | null }): Promise<Destination[]> {
  const apps = await db.selectFrom('apps').select(['id', 'webhook_url', 'disabled_at'])
    .where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
  const active = apps.filter((app) => app.disabled_at === null);
  const destinations: Destination[] = active
    .filter((app) => app.webhook_url !== null)
    .map((app) => ({ destination: `app:${app.id}`, url: app.webhook_url!, appId: app.id }));
  // An order made without an app (from the command line) is signed by the merchant's oldest active app.
  const signer = active.find((app) => app.id === order.appId) ?? active[0];
  if (order.notifyUrl !== null && signer && !destinations.some((d) => d.url === order.notifyUrl)) {
    destinations.unshift({ destination: 'notify_url', url: order.notifyUrl, appId: signer.id });
  }
  return destinations;
}
