import { iso } from '../../platform/clock.js';
import type { CaptureRow } from './store.js';

export function presentCapture(row: CaptureRow) {
  return {
    id: row.id,
    event: { id: row.event_id, type: row.event_type },
    objects: row.objects.trim() === '' ? [] : row.objects.trim().split(' '),
    url: row.url,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
    signature_verified: row.signature_verified === 1,
    answer: {
      status: row.answer_status,
      body_excerpt: row.answer_body_excerpt,
      error: row.answer_error,
      at: iso(row.answer_at),
    },
    fault: row.fault === null ? null : (JSON.parse(row.fault) as { rule_id: string; effect: string }),
    created_at: iso(row.created_at),
  };
}
