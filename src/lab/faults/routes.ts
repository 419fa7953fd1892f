import Type from 'typebox';
import { clientCall } from '../../http/examples.js';
import { defineRoute } from '../../http/route.js';
import { LAB_ERRORS } from '../errors.js';
import { LAB_BASE, LAB_TAGS, labRoute } from '../lab-routes.js';
import { presentFaultRule } from './present.js';
import { addFaultRule, listFaultRules, removeFaultRule } from './rules.js';
import { FaultRuleBody, FaultRuleData, FaultRulesData, RemovedData } from './schemas.js';

const EXAMPLE_RULE = {
  id: '0193a8e2-6000-7000-8000-0000000000f1',
  target: 'delivery',
  endpoint: 'https://shop.example.com/paygate/webhooks',
  events: 'order.*',
  effect: 'status 503',
  scope: 'next 2',
  uses: 0,
  uses_left: 2,
  used_up: false,
  expires_at: null,
  created_at: '2026-11-22T09:00:00.000Z',
};

export const FAULT_ROUTES = [
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/faults`,
      operationId: 'addFaultRule',
      summary: 'Adds a fault rule: on the deliveries to one endpoint, or on a rail (docs/lab.md).',
      description:
        'One effect (status, delay_ms, timeout, reset, twice, out_of_order_ms; on a rail: decline, acquirer_timeout, reject, return) and one scope (next, or percent with seed).',
      tags: LAB_TAGS,
      body: FaultRuleBody,
      data: FaultRuleData,
      errors: [LAB_ERRORS.faultRuleInvalid],
      handler: async ({ ctx, body }) => ({ rule: presentFaultRule(await addFaultRule(ctx, body)) }),
      example: {
        request: { body: { endpoint: EXAMPLE_RULE.endpoint, events: 'order.*', status: 503, next: 2 } },
        reply: { rule: EXAMPLE_RULE },
        client: clientCall('faults.add', { endpoint: EXAMPLE_RULE.endpoint, events: 'order.*', status: 503, next: 2 }),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/faults`,
      operationId: 'listFaultRules',
      summary: "The merchant's fault rules in force, with their uses left (used-up ones too).",
      tags: LAB_TAGS,
      data: FaultRulesData,
      errors: [],
      handler: async ({ ctx }) => ({ rules: (await listFaultRules(ctx)).map(presentFaultRule) }),
      example: { request: {}, reply: { rules: [EXAMPLE_RULE] }, client: clientCall('faults.list') },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'DELETE',
      url: `${LAB_BASE}/faults/:id`,
      operationId: 'removeFaultRule',
      summary: 'Removes a fault rule.',
      tags: LAB_TAGS,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
      data: RemovedData,
      errors: [LAB_ERRORS.faultRuleNotFound],
      handler: ({ ctx, params }) => removeFaultRule(ctx, params.id),
      example: {
        request: { params: { id: EXAMPLE_RULE.id } },
        reply: { removed: EXAMPLE_RULE.id },
        client: clientCall('faults.remove', EXAMPLE_RULE.id),
      },
    }),
  ),
];
