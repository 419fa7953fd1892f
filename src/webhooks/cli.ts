import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { print, UsageError } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import type { PlatformContext } from '../context/context.js';
import { EVENT_ERRORS } from '../events/errors.js';
import { type EventHistory, eventHistory, redeliverEvent } from '../events/history.js';
import { presentEvent } from '../events/present.js';
import { merchantOfEvent, recentDeliveries } from '../events/store.js';
import { iso } from '../platform/clock.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { findMerchant } from '../platform/tenants.js';

const LIST = defineCommand({
  name: 'list',
  summary: 'list the most recent webhook deliveries of every merchant, or one event attempt by attempt',
  description:
    "With --event, the event's time is business time (its merchant's clock, which the sandbox may have moved) " +
    "and each attempt's is wall time (when the request was made); the merchant's offset between the two is given.",
  options: {
    event: { type: 'string', value: 'EVENT_ID', description: 'show this event: its deliveries and every attempt made' },
    limit: { type: 'string', value: 'N', default: '50', description: 'how many deliveries to list, from 1 to 1000' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    if (options.event !== undefined) {
      const eventId = options.event;
      const { history, clockOffsetMs } = await withPlatform(deps, async (ctx) => {
        const merchantId = await ownerOf(ctx, eventId);
        return {
          history: await eventHistory(ctx, merchantId, eventId),
          clockOffsetMs: (await findMerchant(ctx.db, merchantId))?.clock.offsetMs ?? 0,
        };
      });
      print(options, { event: presentEvent(history) }, () => describeEvent(history, clockOffsetMs));
      return;
    }
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError('--limit must be a whole number from 1 to 1000');
    const deliveries = await withPlatform(deps, (ctx) => recentDeliveries(ctx.db, limit));
    const rows = deliveries.map((d) => ({
      event_id: d.event_id,
      action: d.action,
      merchant_id: d.merchant_id,
      destination: d.destination,
      url: d.url,
      state: d.state,
      attempts: d.attempts,
      last_status: d.last_status,
      last_error: d.last_error,
      created_at: new Date(d.created_at).toISOString(),
      event_created_at: new Date(d.event_created_at).toISOString(),
    }));
    print(options, { deliveries: rows }, () =>
      rows.length === 0
        ? 'No webhook deliveries.'
        : [
            'Newest first. WALL TIME is when paygate made the delivery. An event that happened on a business clock the sandbox had',
            "moved says how far that clock was from wall time then (the event's own time in --json and --event is business time).",
            'WALL TIME                 EVENT                                 ACTION                STATE     ATTEMPTS  LAST',
            ...deliveries.map((d, i) => {
              const r = rows[i]!;
              const offset = d.event_created_at - d.event_wall_created_at;
              const ahead = Math.abs(offset) >= 1000 ? `  (business clock ${readableOffset(offset)})` : '';
              return (
                `${r.created_at}  ${r.event_id}  ${r.action.padEnd(21)} ${r.state.padEnd(9)} ${String(r.attempts).padEnd(8)}  ` +
                `${r.last_status ?? r.last_error ?? '-'}  ${r.url}${ahead}`
              );
            }),
          ].join('\n'),
    );
  },
});

const REDELIVER = defineCommand({
  name: 'redeliver',
  summary: 'send an event again to every destination it has, with a fresh set of retries',
  description: 'The running server sends it within a poll; the body is the one rendered when the event happened.',
  arguments: [{ name: 'eventId', description: 'the event, as its X-Event-ID header names it' }],
  options: { json: JSON_OPTION },
  async run({ options, args }, deps) {
    const { eventId } = args;
    const history = await withPlatform(deps, async (ctx) => redeliverEvent(ctx, await ownerOf(ctx, eventId), eventId));
    print(
      options,
      { event: presentEvent(history) },
      () =>
        `Event ${eventId} (${history.event.action}) will be sent again to: ${history.deliveries.map((d) => d.delivery.url).join(', ') || 'no destination'}`,
    );
  },
});

export const WEBHOOKS_COMMAND = defineCommandGroup({
  name: 'webhooks',
  summary: 'see and resend the webhooks paygate sends',
  commands: [LIST, REDELIVER],
});

/** Operators name an event by its id alone: whose it is comes first, then every query is the merchant's. */
async function ownerOf(ctx: PlatformContext, eventId: string): Promise<string> {
  const merchantId = isUuid(eventId) ? await merchantOfEvent(ctx.db, eventId) : undefined;
  if (!merchantId) throw new AppError(EVENT_ERRORS.eventNotFound);
  return merchantId;
}

/**
 * An event happens on its merchant's business clock, but its attempts are requests made at a wall-clock time (what
 * a receiver's logs show): each time says which it is, and the merchant's offset between the two is given.
 */
function describeEvent({ event, deliveries }: EventHistory, clockOffsetMs: number): string {
  const lines = [
    `Event ${event.id}  ${event.action}`,
    `  ${iso(event.created_at)}  business time`,
    `  business clock: ${clockOffsetMs === 0 ? 'the same as wall time (not moved)' : `${readableOffset(clockOffsetMs)} (${clockOffsetMs > 0 ? 'ahead of' : 'behind'} wall time)`}`,
  ];
  for (const { delivery, attempts } of deliveries) {
    const next = delivery.state === 'pending' ? `, next attempt at ${iso(delivery.due_at)} business time` : '';
    lines.push(`  ${delivery.destination} ${delivery.url}: ${delivery.state}${next}`);
    for (const a of attempts) {
      lines.push(
        `    #${a.attempt} ${iso(a.started_at)} wall time  ${a.duration_ms} ms  ${a.status_code ?? a.error ?? ''} -> ${a.outcome}`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * An offset as a person reads it: `+1 day`, `+2 days 3 hours`, `-45 minutes`, `+30 seconds`. The largest two units,
 * rounded to the minute from an hour up: a clock moved a day ends a little short of it, by the time the move took.
 */
export function readableOffset(offsetMs: number): string {
  const seconds = Math.round(Math.abs(offsetMs) / 1000);
  let rest = seconds >= 3600 ? Math.round(seconds / 60) * 60 : seconds;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 && parts.length < 2) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  }
  return `${offsetMs < 0 ? '-' : '+'}${parts.length > 0 ? parts.join(' ') : `${Math.abs(offsetMs)} ms`}`;
}
