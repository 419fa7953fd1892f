/** What a fault rule does. Deliveries: to one endpoint's attempts. Rails: to the merchant's next calls. */
export type DeliveryEffect =
  | { kind: 'status'; status: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'twice' }
  | { kind: 'out_of_order'; window_ms: number };

export type RailEffect =
  | { kind: 'decline'; code: string }
  | { kind: 'acquirer_timeout' }
  | { kind: 'reject' }
  | { kind: 'return' };

export type FaultEffect = DeliveryEffect | RailEffect;

export const FAULT_TARGETS = ['delivery', 'card-payment', 'card-authorisation', 'payout'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

/** The effects each target takes. */
export const EFFECTS_OF: Record<FaultTarget, readonly FaultEffect['kind'][]> = {
  delivery: ['status', 'delay', 'timeout', 'reset', 'twice', 'out_of_order'],
  'card-payment': ['decline', 'acquirer_timeout'],
  'card-authorisation': ['decline'],
  payout: ['reject', 'return'],
};

/**
 * The longest a delivery is held (a delay, an out-of-order window): the attempt keeps its claim meanwhile, and a claim
 * lasts the receiver's timeout and 30 seconds more.
 */
export const MAX_HOLD_MS = 25_000;

/** The effect in a few words, as an attempt and `faults list` show it. */
export function describeEffect(effect: FaultEffect): string {
  switch (effect.kind) {
    case 'status':
      return `status ${effect.status}`;
    case 'delay':
      return `delay ${effect.ms} ms`;
    case 'timeout':
      return 'timeout';
    case 'reset':
      return 'reset';
    case 'twice':
      return 'twice';
    case 'out_of_order':
      return `out of order ${effect.window_ms} ms`;
    case 'decline':
      return `decline ${effect.code}`;
    case 'acquirer_timeout':
      return 'acquirer timeout';
    case 'reject':
      return 'reject';
    case 'return':
      return 'return';
  }
}

/** Whether an event type matches a comma-separated list of patterns (`order.*,payout.settled`); none: all do. */
export function matchesEvents(patterns: string | null, eventType: string): boolean {
  if (patterns === null) return true;
  return patterns.split(',').some((pattern) => {
    const p = pattern.trim();
    if (p === '*') return true;
    return p.endsWith('.*') ? eventType.startsWith(p.slice(0, -1)) : p === eventType;
  });
}
