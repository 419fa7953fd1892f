import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import type { Context } from '../../context/context.js';
import { DECLINE_REASONS } from '../../issuing/index.js';
import type { Db } from '../../platform/database/database.js';
import { AppError } from '../../platform/errors.js';
import { newSortableId } from '../../platform/ids.js';
import { LAB_ERRORS } from '../errors.js';
import { EFFECTS_OF, type FaultEffect, type FaultTarget, MAX_HOLD_MS, type RailEffect } from './effects.js';
import type { FaultRuleBody } from './schemas.js';
import { deleteRule, type FaultRuleRow, insertRule, listRules, rulesInForce, rulesOf, takeUse } from './store.js';

export const MAX_RULES_PER_MERCHANT = 100;

/** A rule as asked for (the API's body; the command line's options): one target, one effect, one scope. */
export type FaultRuleInput = Static<typeof FaultRuleBody>;

const refuse = (why: string) => new AppError(LAB_ERRORS.faultRuleInvalid, `The fault rule is invalid: ${why}.`);

function effectOf(input: FaultRuleInput): FaultEffect {
  const effects: FaultEffect[] = [];
  if (input.status !== undefined) effects.push({ kind: 'status', status: input.status });
  if (input.delay_ms !== undefined) effects.push({ kind: 'delay', ms: input.delay_ms });
  if (input.timeout) effects.push({ kind: 'timeout' });
  if (input.reset) effects.push({ kind: 'reset' });
  if (input.twice) effects.push({ kind: 'twice' });
  if (input.out_of_order_ms !== undefined) effects.push({ kind: 'out_of_order', window_ms: input.out_of_order_ms });
  if (input.decline !== undefined) effects.push({ kind: 'decline', code: input.decline });
  if (input.acquirer_timeout) effects.push({ kind: 'acquirer_timeout' });
  if (input.reject) effects.push({ kind: 'reject' });
  if (input.return) effects.push({ kind: 'return' });
  if (effects.length !== 1) throw refuse(`give exactly one effect (got ${effects.length})`);
  return effects[0]!;
}

function checkEffect(target: FaultTarget, effect: FaultEffect): void {
  if (!EFFECTS_OF[target].includes(effect.kind))
    throw refuse(`${target} takes ${EFFECTS_OF[target].join(', ')}, not ${effect.kind}`);
  if (effect.kind === 'status' && !(Number.isInteger(effect.status) && effect.status >= 100 && effect.status <= 599))
    throw refuse('status must be an HTTP status from 100 to 599');
  if (
    (effect.kind === 'delay' && !withinHold(effect.ms)) ||
    (effect.kind === 'out_of_order' && !withinHold(effect.window_ms))
  )
    throw refuse(`a delay or an out-of-order window is from 1 to ${MAX_HOLD_MS} ms`);
  if (effect.kind === 'decline') {
    if (target === 'card-payment' && !/^[0-9A-Z]{2}$/.test(effect.code))
      throw refuse('decline is a two-character response code such as 51');
    if (target === 'card-authorisation' && !(DECLINE_REASONS as readonly string[]).includes(effect.code))
      throw refuse(`decline is one of the issuer's reasons: ${DECLINE_REASONS.join(', ')}`);
  }
}

const withinHold = (ms: number) => Number.isInteger(ms) && ms >= 1 && ms <= MAX_HOLD_MS;

export async function addFaultRule(ctx: Context, input: FaultRuleInput): Promise<FaultRuleRow> {
  const target: FaultTarget = input.rail ?? 'delivery';
  const effect = effectOf(input);
  checkEffect(target, effect);
  if (target === 'delivery') {
    if (input.endpoint === undefined || !/^https?:\/\/[^/]/i.test(input.endpoint) || !URL.canParse(input.endpoint))
      throw refuse('a delivery rule names its endpoint, an http or https URL');
  } else {
    if (input.endpoint !== undefined || input.events !== undefined)
      throw refuse('a rail rule takes neither an endpoint nor events');
    if (input.percent !== undefined) throw refuse('a rail rule applies to the next K calls (next), not a percentage');
  }
  if (input.events !== undefined && !/^\s*[a-z_*][a-z_.*]*(\s*,\s*[a-z_*][a-z_.*]*)*\s*$/.test(input.events))
    throw refuse('events is a comma-separated list of event types or patterns such as order.*');
  const scopes = [input.next !== undefined, input.percent !== undefined].filter(Boolean).length;
  if (scopes !== 1) throw refuse('give one scope: next, or percent with seed');
  if (input.next !== undefined && !(Number.isInteger(input.next) && input.next >= 1 && input.next <= 1_000_000))
    throw refuse('next is a whole number from 1 to 1000000');
  if (input.percent !== undefined) {
    if (!(Number.isInteger(input.percent) && input.percent >= 1 && input.percent <= 100))
      throw refuse('percent is a whole number from 1 to 100');
    if (input.seed === undefined || !/^[\x21-\x7e]{1,64}$/.test(input.seed))
      throw refuse('percent needs a seed: 1 to 64 printable characters');
  } else if (input.seed !== undefined) throw refuse('seed goes with percent');
  if (
    input.expires_in_seconds !== undefined &&
    !(
      Number.isInteger(input.expires_in_seconds) &&
      input.expires_in_seconds >= 1 &&
      input.expires_in_seconds <= 31_536_000
    )
  )
    throw refuse('expires_in_seconds is a whole number from 1 to 31536000');
  const now = ctx.wallClock.now().getTime();
  // Every delivery round reads the rules of its merchants: a merchant keeps a bounded number.
  if ((await rulesInForce(ctx.db, ctx.merchant.id, now)) >= MAX_RULES_PER_MERCHANT)
    throw refuse(`a merchant has at most ${MAX_RULES_PER_MERCHANT} rules; remove some first`);
  const row: FaultRuleRow = {
    id: newSortableId(now),
    merchant_id: ctx.merchant.id,
    target,
    endpoint: input.endpoint ?? null,
    events: input.events?.replace(/\s+/g, '') ?? null,
    effect: JSON.stringify(effect),
    next_count: input.next ?? null,
    percent: input.percent ?? null,
    seed: input.seed ?? null,
    uses: 0,
    expires_at: input.expires_in_seconds === undefined ? null : now + input.expires_in_seconds * 1000,
    created_at: now,
  };
  await insertRule(ctx.db, row);
  return row;
}

/** Every rule in force, oldest first, used-up ones too (until removed or expired). */
export function listFaultRules(ctx: Context): Promise<FaultRuleRow[]> {
  return listRules(ctx.db, ctx.merchant.id, ctx.wallClock.now().getTime());
}

export async function removeFaultRule(ctx: Context, id: string): Promise<{ removed: string }> {
  if (!(await deleteRule(ctx.db, ctx.merchant.id, id))) throw new AppError(LAB_ERRORS.faultRuleNotFound);
  return { removed: id };
}

/**
 * Whether a `percent` rule applies to this draw: the seed and the draw's key (a delivery's id and attempt) hashed, so
 * the same world gives the same faults, run after run.
 */
export function drawn(rule: Pick<FaultRuleRow, 'percent' | 'seed'>, key: string): boolean {
  if (rule.percent === null) return true;
  const hash = createHash('sha256')
    .update(`${rule.seed ?? ''}:${key}`)
    .digest();
  return hash.readUInt32BE(0) % 100 < rule.percent;
}

/** The first rail rule of the merchant's for `target` with a use left, taken: its effect, or undefined. */
export async function takeRailFault(
  db: Db,
  merchantId: string,
  target: Exclude<FaultTarget, 'delivery'>,
  now: number,
): Promise<{ ruleId: string; effect: RailEffect } | undefined> {
  for (const rule of await rulesOf(db, [merchantId], target, now)) {
    if (rule.next_count !== null && rule.uses >= rule.next_count) continue;
    if (await takeUse(db, rule.id)) return { ruleId: rule.id, effect: JSON.parse(rule.effect) as RailEffect };
  }
  return undefined;
}
