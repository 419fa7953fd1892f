import { Readable } from 'node:stream';
import type { Context } from '../../context/context.js';
import { signedAsApp } from '../../events/signing.js';
import { AppError } from '../../platform/errors.js';
import { VERSION } from '../../platform/version.js';
import { LAB_ERRORS } from '../errors.js';
import { matchesEvents } from '../faults/effects.js';
import { type EventStamp, eventStamps, eventTime, payloadsOf } from './store.js';

/**
 * How far back each look for events reaches: an event is written with the time it was made, and its transaction may
 * commit a little later than one made after it. Looking back this far finds it; each event is sent once per stream,
 * and a listener that reconnects drops what it has already seen.
 */
export const LOOK_BACK_MS = 30_000;
const POLL_MS = 200;
const HEARTBEAT_MS = 15_000;
const PAGE = 500;
const MAX_STREAMS_PER_MERCHANT = 10;

const open = new Map<string, number>();

export interface StreamRequest {
  /** Resume after this event (its id): what came since, and a little before, is sent. */
  after?: string;
  /** Wall time to start from when `after` is not given or names no event (any longer): a reconnection's start. */
  since?: number;
  /** Comma-separated event types or patterns. */
  events?: string;
  /** Sign each event for this URL, as a delivery to it would be signed. */
  forwardTo?: string;
  /** End the stream after this long (a listener reconnects). */
  maxSeconds: number;
}

/**
 * The merchant's events as they happen, as server-sent events: `id` the event's id, `event` its type, `data` a JSON
 * object with `event_id`, `type`, `body` (the exact body a delivery carries) and, with `forwardTo`, `headers` (a real
 * delivery's, signed with the caller's app's webhook key for that URL). Read as the client reads: a reader that
 * stops reading stops the stream's reads of the database, and holds a page at most.
 */
export async function streamEvents(ctx: Context, request: StreamRequest): Promise<Readable> {
  if (
    request.forwardTo !== undefined &&
    (!/^https?:\/\/[^/]/i.test(request.forwardTo) || !URL.canParse(request.forwardTo))
  )
    throw new AppError(LAB_ERRORS.streamInvalid, 'forward_to must be an http or https URL.');
  if (request.events !== undefined && !/^[a-z_*][a-z_.*]*(,[a-z_*][a-z_.*]*)*$/.test(request.events))
    throw new AppError(LAB_ERRORS.streamInvalid, 'events is a comma-separated list of event types or patterns.');
  const merchantId = ctx.merchant.id;
  // The slot is taken before anything is awaited: requests at once cannot all pass the check.
  if ((open.get(merchantId) ?? 0) >= MAX_STREAMS_PER_MERCHANT) throw new AppError(LAB_ERRORS.streamsBusy);
  open.set(merchantId, (open.get(merchantId) ?? 0) + 1);
  let slotHeld = true;
  const freeSlot = () => {
    if (!slotHeld) return;
    slotHeld = false;
    const left = (open.get(merchantId) ?? 1) - 1;
    if (left > 0) open.set(merchantId, left);
    else open.delete(merchantId);
  };

  const wallNow = () => ctx.wallClock.now().getTime();
  let from: number;
  const sent = new Map<string, number>();
  try {
    const afterTime = request.after === undefined ? undefined : await eventTime(ctx.db, merchantId, request.after);
    from =
      afterTime !== undefined
        ? afterTime - LOOK_BACK_MS
        : request.since !== undefined
          ? Math.min(request.since, wallNow()) - LOOK_BACK_MS
          : wallNow();
    if (afterTime !== undefined) sent.set(request.after!, afterTime);
  } catch (error) {
    freeSlot();
    throw error;
  }
  const appId = ctx.actor.kind === 'app' ? ctx.actor.appId : undefined;
  const endAt = wallNow() + request.maxSeconds * 1000;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking = false;
  /** The reader has room: the next look may run. False while what was pushed waits to be read. */
  let wanted = true;
  let lastWrite = performance.now();
  const stream = new Readable({
    read() {
      wanted = true;
      if (!looking && timer === undefined && !stopped) schedule(0);
    },
  });
  stream.on('close', () => {
    stopped = true;
    clearTimeout(timer);
    freeSlot();
  });
  const write = (text: string) => {
    lastWrite = performance.now();
    if (!stream.push(text)) wanted = false;
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      void look();
    }, ms);
  };
  write(`retry: 1000\n: paygate ${VERSION} event stream\n\n`);

  /** Where a catch-up stands: the last event read, while pages remain; none in the steady state. */
  let position: EventStamp | undefined;
  const look = async () => {
    if (stopped || !wanted) return;
    looking = true;
    try {
      while (!stopped && wanted) {
        const stamps = await eventStamps(ctx.db, merchantId, from, position, PAGE);
        const fresh = stamps.filter((stamp) => !sent.has(stamp.id));
        for (const stamp of fresh) sent.set(stamp.id, stamp.wall_created_at);
        const wantedOnes = fresh.filter((stamp) => matchesEvents(request.events ?? null, stamp.action));
        const payloads = await payloadsOf(
          ctx.db,
          merchantId,
          wantedOnes.map((stamp) => stamp.id),
        );
        for (const stamp of wantedOnes) {
          if (stopped) return;
          const body = payloads.get(stamp.id);
          if (body === undefined) continue;
          const headers =
            request.forwardTo !== undefined && appId !== undefined
              ? await deliveryHeaders(ctx, appId, request.forwardTo, { ...stamp, payload: body })
              : undefined;
          const data = { event_id: stamp.id, type: stamp.action, body, ...(headers && { headers }) };
          write(`id: ${stamp.id}\nevent: ${stamp.action}\ndata: ${JSON.stringify(data)}\n\n`);
        }
        // Only events made within the look-back may still commit: older ones, once passed, never come again.
        const settled = wallNow() - LOOK_BACK_MS;
        if (stamps.length < PAGE) {
          // Caught up: the next look reads the look-back window again, for events that commit late.
          position = undefined;
          from = Math.max(from, settled);
          break;
        }
        position = stamps[stamps.length - 1]!;
        for (const [id, at] of sent) if (at < Math.min(position.wall_created_at, settled)) sent.delete(id);
      }
      if (stopped) return;
      for (const [id, at] of sent) if (at < from) sent.delete(id);
      if (performance.now() - lastWrite >= HEARTBEAT_MS) write(': still here\n\n');
      if (wallNow() >= endAt) {
        stopped = true;
        stream.push(null);
        return;
      }
    } catch (error) {
      ctx.log.warn({ err: error }, 'event stream read failed; the listener reconnects');
      stream.destroy();
      return;
    } finally {
      looking = false;
    }
    // A reader that is behind asks again (read()) once it has taken what was pushed.
    if (wanted) schedule(POLL_MS);
  };
  schedule(0);
  return stream;
}

async function deliveryHeaders(
  ctx: Context,
  appId: string,
  url: string,
  event: { id: string; action: string; payload: string },
): Promise<Record<string, string>> {
  const signed = await signedAsApp(ctx, { appId, url, body: event.payload, at: ctx.wallClock.now() });
  return {
    'content-type': 'application/json',
    'user-agent': `paygate-webhooks/${VERSION}`,
    ...signed,
    'x-action': event.action,
    'x-event-id': event.id,
  };
}
