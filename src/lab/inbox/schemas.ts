import Type from 'typebox';
import { Nullable, PAGING } from '../../platform/schema.js';

export const CaptureSchema = Type.Object({
  id: Type.String({ description: 'The capture: the order captures are made in.' }),
  event: Type.Object({
    id: Type.String({ description: 'X-Event-ID.' }),
    type: Type.String({ description: 'X-Action.' }),
  }),
  objects: Type.Array(Type.String(), {
    description:
      "The identifiers of the objects in the body: an order's number and reference, a plan's id, a card's id...",
  }),
  url: Type.String({ description: 'Where it was sent: the inbox, or a tapped endpoint.' }),
  headers: Type.Record(Type.String(), Type.String(), { description: 'The headers sent, by lower-case name.' }),
  body: Type.String({ description: 'The exact body sent.' }),
  signature_verified: Type.Boolean({
    description:
      "Whether the signature verifies with the webhook public key of the app in Credential, as the merchant's receiver checks it.",
  }),
  answer: Type.Object({
    status: Nullable(Type.Integer()),
    body_excerpt: Nullable(Type.String({ description: "The start of the receiver's answer (500 characters)." })),
    error: Nullable(Type.String({ description: 'Why no status came back: a timeout, a reset.' })),
    at: Type.String({ description: 'Wall time the answer (or its absence) was known.' }),
  }),
  fault: Nullable(
    Type.Object({ rule_id: Type.String(), effect: Type.String() }, { description: 'The fault injected, if any.' }),
  ),
  created_at: Type.String({ description: "Business time of the attempt (the merchant's clock)." }),
});

export const InboxQuery = Type.Object({
  ...PAGING,
  event_type: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Event types, comma-separated: order.paid,order.refunded.',
    }),
  ),
  object: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'Captures whose body names this object (any of its identifiers).',
    }),
  ),
  since: Type.Optional(
    Type.String({ minLength: 1, maxLength: 40, description: 'Captures made at or after this time (RFC 3339).' }),
  ),
});

export const InboxData = Type.Object({
  url: Type.String({ description: "The merchant's inbox: register it like any webhook URL." }),
  captures: Type.Array(CaptureSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

export const CaptureData = Type.Object({ capture: CaptureSchema });
export const ClearedData = Type.Object({ cleared: Type.Integer() });
export const TapBody = Type.Object({ endpoint: Type.String({ minLength: 1, maxLength: 2048 }) });
export const TapsData = Type.Object({ taps: Type.Array(Type.String()) });
