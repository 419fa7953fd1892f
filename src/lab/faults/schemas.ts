import Type from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const FaultRuleBody = Type.Object({
  rail: Type.Optional(
    StringEnum(['card-payment', 'card-authorisation', 'payout'] as const, {
      description: 'A rule on a rail; without it, a rule on the deliveries to `endpoint`.',
    }),
  ),
  endpoint: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: 'The webhook URL it applies to.' }),
  ),
  events: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'Event types or patterns, comma-separated: order.*.' }),
  ),
  status: Type.Optional(Type.Integer({ description: 'Effect: this status is the answer; the receiver sees nothing.' })),
  delay_ms: Type.Optional(Type.Integer({ description: 'Effect: the request is sent this late (at most 25000).' })),
  timeout: Type.Optional(Type.Boolean({ description: 'Effect: counted as timed out; the receiver sees nothing.' })),
  reset: Type.Optional(Type.Boolean({ description: 'Effect: the connection is reset; the receiver sees nothing.' })),
  twice: Type.Optional(Type.Boolean({ description: 'Effect: the request is sent twice.' })),
  out_of_order_ms: Type.Optional(
    Type.Integer({ description: 'Effect: held this long, then sent newest first (at most 25000).' }),
  ),
  decline: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Rail effect: card-payment, the response code (51); card-authorisation, the reason.',
    }),
  ),
  acquirer_timeout: Type.Optional(
    Type.Boolean({ description: 'Rail effect (card-payment): the acquirer does not answer.' }),
  ),
  reject: Type.Optional(Type.Boolean({ description: 'Rail effect (payout): the bank rejects the transfer.' })),
  return: Type.Optional(
    Type.Boolean({ description: 'Rail effect (payout): the payment is returned after it settles.' }),
  ),
  next: Type.Optional(Type.Integer({ description: 'Scope: the next K matching attempts or calls.' })),
  percent: Type.Optional(
    Type.Integer({ description: 'Scope (deliveries): this share of matching attempts, drawn from seed.' }),
  ),
  seed: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  expires_in_seconds: Type.Optional(Type.Integer({ description: 'Wall time after which the rule is gone.' })),
});

export const FaultRuleSchema = Type.Object({
  id: Type.String(),
  target: Type.String({ description: '`delivery`, `card-payment`, `card-authorisation` or `payout`.' }),
  endpoint: Nullable(Type.String()),
  events: Nullable(Type.String()),
  effect: Type.String({ description: 'Such as `status 503`, `timeout`, `decline 51`.' }),
  scope: Type.String({ description: '`next 3`, or `25% seed ci-42`.' }),
  uses: Type.Integer({ description: 'How many times it applied.' }),
  uses_left: Nullable(Type.Integer({ description: 'For a `next` rule.' })),
  used_up: Type.Boolean({ description: 'A used-up rule stays listed until removed or expired.' }),
  expires_at: Nullable(Type.String()),
  created_at: Type.String(),
});

export const FaultRuleData = Type.Object({ rule: FaultRuleSchema });
export const FaultRulesData = Type.Object({ rules: Type.Array(FaultRuleSchema) });
export const RemovedData = Type.Object({ removed: Type.String() });
