import { verifyWebhook } from '@paygate/client';
import type { PlatformContext } from '../context/context.js';
import type { AttemptPlan, DeliveryHooks, ObservedRequest } from '../events/delivery-hooks.js';
import { webhookPublicKeyOf } from '../merchants/index.js';
import { businessTimeOf, type ClockSetting, RUNNING } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { newSortableId } from '../platform/ids.js';
import { findMerchant } from '../platform/tenants.js';
import { type DeliveryEffect, describeEffect, matchesEvents } from './faults/effects.js';
import { OutOfOrderWindows } from './faults/out-of-order.js';
import { drawn } from './faults/rules.js';
import { rulesOf, takeUse } from './faults/store.js';
import { inboxUrl, objectsOf } from './inbox/inbox.js';
import { insertCaptures, pruneCaptures, tapsOf } from './inbox/store.js';

/** What the built-in inbox answers: paygate is the receiver, and takes every delivery. */
const INBOX_ANSWER = { status: 200, body: '{"received":true}' };

/**
 * The lab around deliveries, in sandbox mode: the fault rules of each delivery's endpoint shape its attempt, and what
 * is sent to a merchant's built-in inbox (answered here, never over the network) or to an endpoint it taps is
 * captured, in the transaction that records the attempts.
 */
export function labDeliveryHooks(platform: PlatformContext): DeliveryHooks {
  const windows = new OutOfOrderWindows();
  return {
    async plan(db, deliveries, events) {
      const plans = new Map<string, AttemptPlan>();
      if (platform.config.mode !== 'sandbox') return plans;
      const merchantIds = [...new Set(deliveries.map((d) => d.merchant_id))];
      const now = platform.wallClock.now().getTime();
      const [taps, rules] = await Promise.all([tapsOf(db, merchantIds), rulesOf(db, merchantIds, 'delivery', now)]);
      for (const delivery of deliveries) {
        const plan: AttemptPlan = {};
        if (delivery.url === inboxUrl(platform.config, delivery.merchant_id)) {
          plan.answeredHere = INBOX_ANSWER;
          plan.observe = true;
        } else if (taps.has(`${delivery.merchant_id} ${delivery.url}`)) plan.observe = true;
        const event = events.get(delivery.event_id);
        for (const rule of event ? rules : []) {
          if (rule.merchant_id !== delivery.merchant_id || rule.endpoint !== delivery.url) continue;
          if (!matchesEvents(rule.events, event!.action)) continue;
          if (rule.next_count !== null && rule.uses >= rule.next_count) continue;
          if (!drawn(rule, `${delivery.id}:${delivery.attempts}`)) continue;
          if (!(await takeUse(db, rule.id))) continue;
          rule.uses += 1;
          const effect = JSON.parse(rule.effect) as DeliveryEffect;
          plan.fault = { rule_id: rule.id, effect: describeEffect(effect) };
          shape(plan, effect, rule.id, delivery.event_id);
          break;
        }
        if (Object.keys(plan).length > 0) plans.set(delivery.id, plan);
      }
      return plans;
    },

    async recorded(tx, requests) {
      await recordCaptures(platform, tx, requests);
    },
  };

  function shape(plan: AttemptPlan, effect: DeliveryEffect, ruleId: string, eventId: string): void {
    const by = `(injected by fault rule ${ruleId})`;
    switch (effect.kind) {
      case 'status':
        plan.instead = { status: effect.status };
        return;
      case 'timeout':
        plan.instead = {
          error: `no answer: nothing came back within ${platform.config.webhookTimeoutMs} ms ${by}`,
        };
        return;
      case 'reset':
        plan.instead = { error: `no answer: the connection failed: reset before an answer came ${by}` };
        return;
      case 'delay':
        plan.before = () => new Promise((resolve) => setTimeout(resolve, effect.ms));
        return;
      case 'twice':
        plan.times = 2;
        return;
      case 'out_of_order': {
        const turn = windows.join(ruleId, effect.window_ms, eventId);
        if (turn) plan.before = () => turn;
        return;
      }
    }
  }
}

async function recordCaptures(platform: PlatformContext, tx: Db, requests: readonly ObservedRequest[]): Promise<void> {
  const keys = new Map<string, string | undefined>();
  const clocks = new Map<string, ClockSetting>();
  const rows = [];
  for (const request of requests) {
    const { delivery, event } = request;
    if (!keys.has(delivery.app_id)) keys.set(delivery.app_id, await webhookPublicKeyOf({ db: tx }, delivery.app_id));
    if (!clocks.has(delivery.merchant_id))
      clocks.set(delivery.merchant_id, (await findMerchant(tx, delivery.merchant_id))?.clock ?? RUNNING);
    rows.push({
      id: newSortableId(request.startedAt),
      merchant_id: delivery.merchant_id,
      event_id: event.id,
      event_type: event.action,
      subject_id: event.subject_id,
      objects: objectsOf(event.payload),
      delivery_id: delivery.id,
      url: delivery.url,
      headers: JSON.stringify(request.headers),
      body: event.payload,
      signature_verified: verifies(request, keys.get(delivery.app_id)) ? 1 : 0,
      answer_status: request.status ?? null,
      answer_body_excerpt: request.bodyExcerpt ?? null,
      answer_error: request.error ?? null,
      answer_at: request.answeredAt,
      fault: request.fault ? JSON.stringify(request.fault) : null,
      created_at: businessTimeOf(request.startedAt, clocks.get(delivery.merchant_id)!),
      wall_created_at: request.startedAt,
    });
  }
  await insertCaptures(tx, rows);
  const { maxCaptures, retentionMs } = platform.config.labInbox;
  for (const merchantId of clocks.keys())
    await pruneCaptures(tx, merchantId, maxCaptures, platform.wallClock.now().getTime() - retentionMs);
}

/** The signature checked as the merchant would check it, with the webhook public key of the app that signed. */
function verifies(request: ObservedRequest, publicKey: string | undefined): boolean {
  if (!publicKey) return false;
  try {
    verifyWebhook(request.headers, request.event.payload, publicKey, request.delivery.url, {
      now: new Date(request.startedAt),
    });
    return true;
  } catch {
    return false;
  }
}
