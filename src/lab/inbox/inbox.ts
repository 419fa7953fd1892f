import type { Context } from '../../context/context.js';
import type { Config } from '../../platform/config.js';
import { AppError } from '../../platform/errors.js';
import { type Page, parseFilters } from '../../platform/query/filters.js';
import { LAB_ERRORS } from '../errors.js';
import {
  CAPTURE_FILTERS,
  type CaptureRow,
  clearCaptures,
  deleteTap,
  findCapture,
  insertTap,
  listCaptures,
  listTaps,
} from './store.js';

const INBOX_PATH = '/svc/sandbox/api/v1/inbox/';
export const MAX_TAPS = 20;

/** The merchant's built-in inbox: a URL like any receiver's, which paygate answers itself (docs/lab.md). */
export function inboxUrl(config: Pick<Config, 'publicBaseUrl'>, merchantId: string): string {
  return `${config.publicBaseUrl.replace(/\/+$/, '')}${INBOX_PATH}${merchantId}`;
}

export interface InboxFilters {
  event_type?: string;
  object?: string;
  since?: string;
}

/**
 * The merchant's captures, newest first: by the shorthand filters (`event_type`, `object`: any identifier of an
 * object in the body, `since`) and the API's query language (`filter[event.type][_eq]=order.paid`), ANDed.
 */
export async function listInbox(
  ctx: Context,
  query: Record<string, unknown>,
  shorthand: InboxFilters,
  page: Page,
): Promise<{ rows: CaptureRow[]; total: number }> {
  const conditions = parseFilters(query, CAPTURE_FILTERS);
  const more: Record<string, unknown> = {};
  if (shorthand.event_type !== undefined) more['filter[event.type][_in]'] = shorthand.event_type;
  if (shorthand.object !== undefined) more['filter[objects][_contains]'] = ` ${shorthand.object.trim()} `;
  if (shorthand.since !== undefined) more['filter[created_at][_gte]'] = shorthand.since;
  conditions.push(...parseFilters(more, CAPTURE_FILTERS));
  // Captures past their retention are gone, whether or not a newer one has pruned them yet.
  const since = ctx.wallClock.now().getTime() - ctx.config.labInbox.retentionMs;
  return listCaptures(ctx.db, ctx.merchant.id, conditions, page, since);
}

export async function showCapture(ctx: Context, id: string): Promise<CaptureRow> {
  const capture = await findCapture(ctx.db, ctx.merchant.id, id);
  if (!capture) throw new AppError(LAB_ERRORS.captureNotFound);
  return capture;
}

export async function clearInbox(ctx: Context): Promise<{ cleared: number }> {
  return { cleared: await clearCaptures(ctx.db, ctx.merchant.id) };
}

/** Captures what is sent to one of the merchant's own endpoints too, from now on. */
export async function tapEndpoint(ctx: Context, url: string): Promise<{ taps: string[] }> {
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) throw new AppError(LAB_ERRORS.tapInvalid);
  const taps = await listTaps(ctx.db, ctx.merchant.id);
  if (taps.length >= MAX_TAPS && !taps.some((tap) => tap.url === url))
    throw new AppError(LAB_ERRORS.tapInvalid, `A merchant taps at most ${MAX_TAPS} endpoints; remove one first.`);
  await insertTap(ctx.db, ctx.merchant.id, url, ctx.wallClock.now().getTime());
  return readTaps(ctx);
}

export async function untapEndpoint(ctx: Context, url: string): Promise<{ taps: string[] }> {
  await deleteTap(ctx.db, ctx.merchant.id, url);
  return readTaps(ctx);
}

export async function readTaps(ctx: Context): Promise<{ taps: string[] }> {
  return { taps: (await listTaps(ctx.db, ctx.merchant.id)).map((tap) => tap.url) };
}

/** Fields that name an object, as the API writes them: what `object` finds a capture by. */
const IDENTIFIERS = new Set([
  'id',
  'number',
  'reference_number',
  'reference_id',
  'uuid',
  'token',
  'user_id',
  'customer_uuid',
  'payment_token',
  'verify_uuid',
  'cycle_id',
  'card_id',
  'payee_id',
]);

/**
 * The identifiers of the objects an event's body carries (`data.order.number`, `data.plan.id`, `data.customer_uuid`...),
 * in the order they come, space-separated and space-padded for a whole-word search.
 */
export function objectsOf(payload: string): string {
  const found: string[] = [];
  const data = (JSON.parse(payload) as { data?: Record<string, unknown> }).data ?? {};
  const take = (key: string, value: unknown) => {
    if (IDENTIFIERS.has(key) && (typeof value === 'string' || typeof value === 'number') && String(value) !== '')
      found.push(String(value));
  };
  for (const [key, value] of Object.entries(data)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const [inner, innerValue] of Object.entries(value)) take(inner, innerValue);
    else take(key, value);
  }
  return ` ${[...new Set(found)].join(' ')} `;
}
