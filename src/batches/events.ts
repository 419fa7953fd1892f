import type { Context } from '../context/context.js';
import { defineEventTypes } from '../events/event-type.js';
import { emitEvent } from '../events/outbox.js';
import { presentBatchInfo } from './present.js';
import type { BatchRecord } from './store.js';

/**
 * A batch's own events, to the apps' endpoints (a batch has no callback URL), signed by the app that created it;
 * each row's order sends the order events as any order does (docs/webhooks.md).
 */
export const BATCH_EVENTS = defineEventTypes(
  (batch: BatchRecord) => ({
    data: { batch_info: presentBatchInfo(batch) },
    subjectId: batch.id,
    notifyUrl: null,
    appId: batch.app_id,
  }),
  {
    'batch.completed':
      'Every row of a batch has run (upload_status success): the counters are final, whatever each row gave.',
    'batch.failed':
      'A batch failed (upload_status failed): its file could not be fetched or read, and no row ran; or its run stopped for good, and the rows it had not run were skipped. failure_reason says why.',
    'batch.cancelled':
      'A batch was cancelled: the rows that had not run are skipped; rows already sent finish on their own.',
  },
);

export async function emitBatchEvent(
  ctx: Context,
  action: keyof typeof BATCH_EVENTS,
  batch: BatchRecord,
): Promise<void> {
  await emitEvent(ctx, BATCH_EVENTS[action], batch);
}
