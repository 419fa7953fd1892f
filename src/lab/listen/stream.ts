import { Readable } from 'node:stream';
import type { Context } from '../../context/context.js';
import { signedAsApp } from '../../events/signing.js';
import { AppError } from '../../platform/errors.js';
import { VERSION } from '../../platform/version.js';
import { LAB_ERRORS } from '../errors.js';
import { matchesEvents } from '../faults/effects.js';
import { eventsSince, eventTime } from './store.js';

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
 * delivery's, signed with the caller's app's webhook key for that URL).
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
  if ((open.get(merchantId) ?? 0) >= MAX_STREAMS_PER_MERCHANT)
    throw new AppError(LAB_ERRORS.streamInvalid, `At most ${MAX_STREAMS_PER_MERCHANT} streams per merchant at once.`);
  const wallNow = () => ctx.wallClock.now().getTime();
  const afterTime = request.after === undefined ? undefined : await eventTime(ctx.db, merchantId, request.after);
  let from = (afterTime ?? wallNow()) - (request.after === undefined ? 0 : LOOK_BACK_MS);
  const sent = new Map<string, number>();
  if (request.after !== undefined) sent.set(request.after, afterTime ?? 0);
  const appId = ctx.actor.kind === 'app' ? ctx.actor.appId : undefined;
  const endAt = wallNow() + request.maxSeconds * 1000;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastWrite = Date.now();
  const stream = new Readable({ read() {} });
  open.set(merchantId, (open.get(merchantId) ?? 0) + 1);
  stream.on('close', () => {
    stopped = true;
    clearTimeout(timer);
    open.set(merchantId, (open.get(merchantId) ?? 1) - 1);
    if (open.get(merchantId) === 0) open.delete(merchantId);
  });
  const write = (text: string) => {
    lastWrite = Date.now();
    stream.push(text);
  };
  write(`retry: 1000\n: paygate ${VERSION} event stream\n\n`);

  const look = async () => {
    if (stopped) return;
    try {
      for (;;) {
        const rows = await eventsSince(ctx.db, merchantId, from, PAGE);
        for (const row of rows) {
          if (sent.has(row.id)) continue;
          sent.set(row.id, row.wall_created_at);
          if (!matchesEvents(request.events ?? null, row.action)) continue;
          const headers =
            request.forwardTo !== undefined && appId !== undefined
              ? await deliveryHeaders(ctx, appId, request.forwardTo, row)
              : undefined;
          if (stopped) return;
          const data = { event_id: row.id, type: row.action, body: row.payload, ...(headers && { headers }) };
          write(`id: ${row.id}\nevent: ${row.action}\ndata: ${JSON.stringify(data)}\n\n`);
        }
        if (rows.length < PAGE) break;
        from = rows[rows.length - 1]!.wall_created_at;
      }
      // The window moves on: what is older than the look-back cannot come any more, and is forgotten.
      const horizon = wallNow() - LOOK_BACK_MS;
      from = Math.max(from, horizon);
      for (const [id, at] of sent) if (at < horizon) sent.delete(id);
      if (Date.now() - lastWrite >= HEARTBEAT_MS) write(': still here\n\n');
      if (wallNow() >= endAt) {
        stream.push(null);
        return;
      }
    } catch (error) {
      ctx.log.warn({ err: error }, 'event stream read failed; the listener reconnects');
      stream.destroy();
      return;
    }
    timer = setTimeout(look, POLL_MS);
  };
  void look();
  return stream;
}

async function deliveryHeaders(
  ctx: Context,
  appId: string,
  url: string,
  row: { id: string; action: string; payload: string },
): Promise<Record<string, string>> {
  const signed = await signedAsApp(ctx, { appId, url, body: row.payload, at: ctx.wallClock.now() });
  return {
    'content-type': 'application/json',
    'user-agent': `paygate-webhooks/${VERSION}`,
    ...signed,
    'x-action': row.action,
    'x-event-id': row.id,
  };
}
