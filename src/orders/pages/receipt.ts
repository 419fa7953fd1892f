import type { PlatformContext } from '../../context/context.js';
import { DocumentCache } from '../../platform/document-cache.js';
import { OffLoopTask } from '../../platform/off-loop.js';
import { goneAnswer, openLinkPage } from '../../web/link-page.js';
import { type FileAnswer, isPageAnswer, type PageAnswer, type PageRoute } from '../../web/pages.js';
import { RECEIPT_LINK } from '../links.js';
import { loadOrderView } from '../lookup.js';
import { findOrder } from '../store.js';
import type { ReceiptInput } from './receipt-document.js';

/**
 * Receipts are laid out on one worker thread per process, with a few waiting at most (more are told to try again
 * in a few seconds), and kept by content: whoever holds a link cannot make the process spend its event loop,
 * nor more than one thread, on receipts.
 */
const RECEIPT_RENDERING = new OffLoopTask<ReceiptInput, Uint8Array>(new URL('./receipt-document.js', import.meta.url), {
  threads: 1,
  queue: 8,
});
const RECEIPTS = new DocumentCache<ReceiptInput>((input) => RECEIPT_RENDERING.run(input), {
  maxBytes: 32 * 1024 * 1024,
});
const MINUTE_MS = 60_000;

/** The PDF receipt behind a download link; an unknown, altered or expired link gets a page saying so. */
export async function downloadReceipt(
  platform: PlatformContext,
  token: string,
  requestId: string,
): Promise<PageAnswer | FileAnswer> {
  const opened = await openLinkPage(platform, RECEIPT_LINK, token, requestId);
  if (isPageAnswer(opened)) return opened;
  const { ctx, link } = opened;
  const order = await findOrder(ctx.db, ctx.merchant.id, { id: link.subject_id });
  if (!order) return goneAnswer(ctx, 'order');
  const { items, transactions } = await loadOrderView(ctx, order);
  const now = ctx.clock.now().getTime();
  const input: ReceiptInput = {
    view: { order, items, transactions, merchant: { name: ctx.merchant.name } },
    // The receipt prints the minute it was issued: within a minute, the same order gives the same document.
    options: {
      timezone: ctx.merchant.timezone,
      issuedAt: now - (now % MINUTE_MS),
      sandbox: ctx.config.mode === 'sandbox',
      font: ctx.config.receiptFont,
    },
  };
  return { contentType: 'application/pdf', file: await RECEIPTS.get(input), filename: `receipt-${order.number}.pdf` };
}

/** The PDF receipt of a receipt link. */
export const RECEIPT_PAGES: PageRoute[] = [
  {
    method: 'GET',
    url: `${RECEIPT_LINK.path}/:token`,
    handle: (platform, { params, id }) => downloadReceipt(platform, params.token!, id),
  },
];
