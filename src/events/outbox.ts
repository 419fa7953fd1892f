import type { Context } from '../context/context.js';
import { type Db, preparedQuery } from '../platform/database/database.js';
import type { EventType } from './event-type.js';
import { type EventRow, insertDeliveries, insertEvents, type NewDelivery } from './store.js';

/**
 * Records an event in the caller's transaction (the outbox), with its body rendered now: the subject as it is at
 * the event, whenever it is delivered. One delivery per destination: the URL the subject names (an order's
 * callback_url), signed with the key of the app that made the subject, and every active app endpoint of the
 * merchant, each signed with its own app's key. The sender is woken once the transaction commits.
 */
export async function emitEvent<S>(ctx: Context, type: EventType<S>, subject: S): Promise<string> {
  if (!ctx.db.isTransaction) throw new Error('an event is written in the transaction of the change it reports');
  const rendered = type.render(subject);
  const now = ctx.clock.now().getTime();
  const wallNow = ctx.wallClock.now().getTime();
  const id = ctx.ids.sortable(wallNow);
  const event: EventRow = {
    id,
    merchant_id: ctx.merchant.id,
    subject_id: rendered.subjectId,
    action: type.action,
    payload: JSON.stringify({ code: 200, message: 'success', data: rendered.data }),
    notify_url: rendered.notifyUrl,
    app_id: rendered.appId,
    created_at: now,
    wall_created_at: wallNow,
  };
  const destinations = await destinationsOf(ctx.db, ctx.merchant.id, rendered);
  const deliveries = destinations.map((d) => ({
    ...d,
    eventId: id,
    merchantId: ctx.merchant.id,
    dueAt: now,
    dueWallAt: wallNow,
  }));
  await write(ctx, event, deliveries);
  if (destinations.length > 0) ctx.afterCommit?.(() => ctx.outbox?.wake());
  for (const react of ctx.eventReactions?.get(type.action) ?? []) await react(ctx, rendered.data);
  return id;
}

/** A transaction's events not written yet, and whether they have been (then later ones are written at once). */
interface Unwritten {
  events: EventRow[];
  deliveries: NewDelivery[];
  written: boolean;
}

const unwrittenEvents = new WeakMap<Db, Unwritten>();

/**
 * The events of a transaction are written together just before it commits, each table in as few statements as
 * possible (a round of a batch's payments makes two events per row): nothing reads an event in the transaction
 * that makes it. One made after that (by other work done just before the commit) is written at once.
 */
async function write(ctx: Context, event: EventRow, deliveries: NewDelivery[]): Promise<void> {
  let unwritten = unwrittenEvents.get(ctx.db);
  if (!unwritten && ctx.beforeCommit) {
    const created: Unwritten = { events: [], deliveries: [], written: false };
    unwrittenEvents.set(ctx.db, created);
    unwritten = created;
    const db = ctx.db;
    ctx.beforeCommit('events.outbox', async () => {
      created.written = true;
      await insertEvents(db, created.events);
      await insertDeliveries(db, created.deliveries);
    });
  }
  if (!unwritten || unwritten.written) {
    await insertEvents(ctx.db, [event]);
    await insertDeliveries(ctx.db, deliveries);
    return;
  }
  unwritten.events.push(event);
  unwritten.deliveries.push(...deliveries);
}

const merchantApps = preparedQuery((db, p: { merchantId: string }) =>
  db
    .selectFrom('apps')
    .select(['id', 'webhook_url', 'disabled_at'])
    .where('merchant_id', '=', p.merchantId)
    .orderBy('created_at')
    .orderBy('id'),
);

type Destination = Pick<NewDelivery, 'destination' | 'url' | 'appId'>;
type AppDestination = { id: string; webhook_url: string | null; disabled_at: number | null };

/**
 * A merchant's apps, as an open transaction first read them: the events of one transaction (a round of a batch's
 * payments makes two per row) go to the same apps, read once. A change to the apps forgets them (appsChanged).
 */
const appsInTransaction = new WeakMap<Db, Map<string, AppDestination[]>>();

async function appsOf(db: Db, merchantId: string): Promise<AppDestination[]> {
  if (!db.isTransaction) return (await merchantApps(db, { merchantId })).rows;
  let byMerchant = appsInTransaction.get(db);
  if (!byMerchant) {
    byMerchant = new Map();
    appsInTransaction.set(db, byMerchant);
  }
  let apps = byMerchant.get(merchantId);
  if (!apps) {
    apps = (await merchantApps(db, { merchantId })).rows;
    byMerchant.set(merchantId, apps);
  }
  return apps;
}

/** Told of every change to an app (made, disabled, enabled, its endpoint set), in the transaction that makes it. */
export function appsChanged(db: Db): void {
  appsInTransaction.delete(db);
}

/** Where an event goes now: each URL once. */
export async function destinationsOf(
  db: Db,
  merchantId: string,
  event: { notifyUrl: string | null; appId: string | null },
): Promise<Destination[]> {
  const apps = await appsOf(db, merchantId);
  const active = apps.filter((app) => app.disabled_at === null);
  const destinations: Destination[] = active
    .filter((app) => app.webhook_url !== null)
    .map((app) => ({ destination: `app:${app.id}`, url: app.webhook_url!, appId: app.id }));
  // A subject made without an app (from the command line) is signed by the merchant's oldest active app.
  const signer = active.find((app) => app.id === event.appId) ?? active[0];
  if (event.notifyUrl !== null && signer && !destinations.some((d) => d.url === event.notifyUrl)) {
    destinations.unshift({ destination: 'notify_url', url: event.notifyUrl, appId: signer.id });
  }
  return destinations;
}
