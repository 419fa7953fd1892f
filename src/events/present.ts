import type { Static } from 'typebox';
import { iso } from '../platform/clock.js';
import type { EventHistory } from './history.js';
import type { EventSchema } from './schemas.js';

export function presentEvent({ event, deliveries }: EventHistory): Static<typeof EventSchema> {
  return {
    event_id: event.id,
    action: event.action,
    created_at: iso(event.created_at),
    body: JSON.parse(event.payload) as unknown,
    deliveries: deliveries.map(({ delivery, attempts }) => ({
      destination: delivery.destination,
      url: delivery.url,
      state: delivery.state,
      next_attempt_at: delivery.state === 'pending' ? iso(delivery.due_at) : null,
      delivered_at: delivery.delivered_at === null ? null : iso(delivery.delivered_at),
      last_status: delivery.last_status,
      last_error: delivery.last_error,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        started_at: iso(a.business_at),
        duration_ms: a.duration_ms,
        status_code: a.status_code,
        error: a.error,
        outcome: a.outcome,
        ...(a.fault !== null && { fault: JSON.parse(a.fault) as { rule_id: string; effect: string } }),
      })),
    })),
  };
}
