import Type from 'typebox';
import { Nullable, StringEnum } from '../platform/schema.js';

const AttemptSchema = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt to this destination, and so on.' }),
  started_at: Type.String({
    description: "When the request began, on the merchant's business clock (as every time here).",
  }),
  duration_ms: Type.Integer(),
  status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when it did not answer." })),
  error: Nullable(Type.String({ description: 'A timeout or network error.' })),
  outcome: StringEnum(['delivered', 'retry', 'failed'] as const),
  fault: Type.Optional(
    Type.Object(
      {
        rule_id: Type.String(),
        effect: Type.String({ description: 'Such as `status 503`, `timeout`, `delay 2000`.' }),
      },
      { description: 'Sandbox lab only: the fault rule that shaped this attempt (docs/lab.md).' },
    ),
  ),
});

const DeliverySchema = Type.Object({
  destination: Type.String({ description: "`notify_url` (the order's) or `app:{AppID}` (an app's webhook endpoint)." }),
  url: Type.String(),
  state: StringEnum(['pending', 'sending', 'delivered', 'failed'] as const),
  next_attempt_at: Nullable(Type.String({ description: 'Business time of the next attempt, while pending.' })),
  delivered_at: Nullable(Type.String()),
  last_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  attempts: Type.Array(AttemptSchema),
});

export const EventSchema = Type.Object({
  event_id: Type.String({
    description: 'Sent as X-Event-ID: the same for every attempt and destination of the event.',
  }),
  action: Type.String({ description: 'Sent as X-Action, such as `order.paid`.' }),
  created_at: Type.String({ description: 'Business time of the event.' }),
  body: Type.Unknown({ description: 'The body sent, as rendered at the event: `{code, message, data: {order}}`.' }),
  deliveries: Type.Array(DeliverySchema),
});

export const EventListData = Type.Object({ events: Type.Array(EventSchema) });
export const EventData = Type.Object({ event: EventSchema });
export const RedeliverBody = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 64 }) });
