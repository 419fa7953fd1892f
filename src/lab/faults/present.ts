import { iso } from '../../platform/clock.js';
import { describeEffect, type FaultEffect } from './effects.js';
import type { FaultRuleRow } from './store.js';

export function presentFaultRule(row: FaultRuleRow) {
  const usesLeft = row.next_count === null ? null : Math.max(0, row.next_count - row.uses);
  return {
    id: row.id,
    target: row.target,
    endpoint: row.endpoint,
    events: row.events,
    effect: describeEffect(JSON.parse(row.effect) as FaultEffect),
    scope: row.next_count !== null ? `next ${row.next_count}` : `${row.percent}% seed ${row.seed}`,
    uses: row.uses,
    uses_left: usesLeft,
    used_up: usesLeft === 0,
    expires_at: row.expires_at === null ? null : iso(row.expires_at),
    created_at: iso(row.created_at),
  };
}
