import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { print, UsageError } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import type { PlatformContext } from '../context/context.js';
import { EVENT_ERRORS } from '../events/errors.js';
import { eventHistory, redeliverEvent, type EventHistory } from '../events/history.js';
import { presentEvent } from '../events/present.js';
import { merchantOfEvent, recentDeliveries } from '../events/store.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';

const LIST = defineCommand({
  name: 'list',
  summary: 'list the most recent webhook deliveries of every merchant, or one event attempt by attempt',
  options: {
    event: { type: 'string', value: 'EVENT_ID', description: 'show this event: its deliveries and every attempt made' },
    limit: { type: 'string', value: 'N', default: '50', description: 'how many deliveries to list, from 1 to 1000' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    if (options.event !== undefined) {
      const eventId = options.event;
      const history = await withPlatform(deps, async (ctx) => eventHistory(ctx, await ownerOf(ctx, eventId), eventId));
      print(options, { event: presentEvent(history) }, () => describeEvent(history));
      return;
    }
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
    const deliveries = await withPlatform(deps, (ctx) => recentDeliveries(ctx.db, limit));
    const rows = deliveries.map((d) => ({
      event_id: d.event_id, action: d.action, merchant_id: d.merchant_id, destination: d.destination, url: d.url,
      state: d.state, attempts: d.attempts, last_status: d.last_status, last_error: d.last_error,
      created_at: new Date(d.created_at).toISOString(),
    }));
    print(options, { deliveries: rows }, () => rows.map((r) =>
      `${r.created_at}  ${r.event_id}  ${r.action.padEnd(21)} ${r.state.padEnd(9)} attempts ${r.attempts}  ` +
      `${r.last_status ?? r.last_error ?? ''}  ${r.url}`).join('\n') || 'No webhook deliveries.');
  },
});

const REDELIVER = defineCommand({
  name: 'redeliver',
  summary: 'send an event again to every destination it has, with a fresh set of retries',
  description: 'The running server sends it within a poll; the body is the one rendered when the event happened.',
  arguments: [{ name: 'eventId', description: 'the event (X-Event-ID)' }],
  options: { json: JSON_OPTION },
  async run({ options, args }, deps) {
    const { eventId } = args;
    const history = await withPlatform(deps, async (ctx) => redeliverEvent(ctx, await ownerOf(ctx, eventId), eventId));
    print(options, { event: presentEvent(history) }, () =>
      `Event ${eventId} (${history.event.action}) will be sent again to: ${history.deliveries.map((d) => d.delivery.url).join(', ') || 'no destination'}`);
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

function describeEvent({ event, deliveries }: EventHistory): string {
  const lines = [`${event.id}  ${event.action}  ${new Date(event.created_at).toISOString()}`];
  for (const { delivery, attempts } of deliveries) {
    lines.push(`  ${delivery.destination} ${delivery.url}: ${delivery.state}`);
    for (const a of attempts) {
      lines.push(`    #${a.attempt} ${new Date(a.started_at).toISOString()} ${a.duration_ms} ms ${a.status_code ?? a.error ?? ''} -> ${a.outcome}`);
    }
  }
  return lines.join('\n');
}
