import { CUSTOMER_ERRORS } from '../customers/index.js';
import { clientCall } from '../http/examples.js';
import { listParameters, pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { ORDER_ERRORS } from '../orders/index.js';
import { TOKEN_ERRORS } from '../payment-tokens/index.js';
import { PLATFORM_ERRORS } from '../platform/errors.js';
import { PageQuery } from '../platform/schema.js';
import {
  type BillingConfigRow,
  createBillingConfig,
  createItem,
  deleteBillingConfig,
  deleteItem,
  getBillingConfig,
  getItem,
  type ItemRow,
  listMerchantBillingConfigs,
  listMerchantItems,
} from './catalogue.js';
import { addCycles, cancelPlan, recoverPlan, updatePlanSettings } from './changes.js';
import { RECURRING_ERRORS } from './errors.js';
import {
  CANCEL_NOW,
  cancelledPlan,
  changedPlan,
  EXAMPLE_CONFIG_ID,
  EXAMPLE_ITEM_ID,
  EXAMPLE_PLAN_ID,
  exampleConfig,
  exampleItem,
  examplePlan,
  examplePlanOrder,
  extendedPlan,
  NEW_CONFIG,
  NEW_CYCLES,
  NEW_ITEM,
  NEW_PLAN,
  PLAN_CHANGES,
} from './examples.js';
import { checkGeneratedOrder, listGeneratedOrders } from './plan-orders.js';
import { createPlan, getPlan, listMerchantPlans } from './plans.js';
import { presentBillingConfig, presentItem, presentPlan } from './present.js';
import {
  AddCyclesBody,
  BillingConfigData,
  BillingConfigListData,
  CancelPlanBody,
  CheckPlanOrderBody,
  CreateBillingConfigBody,
  CreateItemBody,
  CreatePlanBody,
  ItemData,
  ItemListData,
  PlanData,
  PlanListData,
  PlanOrderListData,
  PlanOrderRecordSchema,
  RecordParams,
  UpdatePlanBody,
} from './schemas.js';
import type { PlanView } from './view.js';

const BASE = '/svc/payment/api/v1/openapi/recurring_payments';
const TAGS = ['recurring'];
const DELETED = '2026-11-21T02:00:00.000Z';

const itemReply = (row: ItemRow) => ({ item: presentItem(row) });
const configReply = (row: BillingConfigRow) => ({ config: presentBillingConfig(row) });

const ITEM_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/items`,
    operationId: 'createRecurringItem',
    summary: 'Create a recurring item: what a plan sells (label, price, currency).',
    tags: TAGS,
    body: CreateItemBody,
    data: ItemData,
    errors: [PLATFORM_ERRORS.currencyInvalid],
    handler: ({ ctx, body }) => createItem(ctx, body.item),
    present: itemReply,
    example: {
      request: { body: { item: NEW_ITEM } },
      reply: { item: exampleItem() },
      client: clientCall('recurring.createItem', NEW_ITEM),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/items`,
    operationId: 'listRecurringItems',
    summary: 'List recurring items, newest first, with filter[field][operator]=value (docs/recurring.md).',
    tags: TAGS,
    querystring: PageQuery,
    data: ItemListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listMerchantItems(ctx, listParameters(query), query);
      return pageReply('items', query, rows.map(presentItem), total);
    },
    example: {
      request: { query: { 'filter[deleted_at][_null]': '1' } },
      reply: { items: [exampleItem()], offset: 0, limit: 20, total: 1 },
      client: clientCall('recurring.listItems', { filters: { 'filter[deleted_at][_null]': '1' } }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/items/:id`,
    operationId: 'getRecurringItem',
    summary: 'Read a recurring item, deleted or not.',
    tags: TAGS,
    params: RecordParams,
    data: ItemData,
    errors: [RECURRING_ERRORS.recurringItemNotFound],
    handler: ({ ctx, params }) => getItem(ctx, params.id),
    present: itemReply,
    example: {
      request: { params: { id: EXAMPLE_ITEM_ID } },
      reply: { item: exampleItem() },
      client: clientCall('recurring.getItem', EXAMPLE_ITEM_ID),
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: `${BASE}/items/:id`,
    operationId: 'deleteRecurringItem',
    summary: 'Delete a recurring item: it stays readable, and in the plans that use it, but no new plan may use it.',
    tags: TAGS,
    params: RecordParams,
    data: ItemData,
    errors: [RECURRING_ERRORS.recurringItemNotFound],
    handler: ({ ctx, params }) => deleteItem(ctx, params.id),
    present: itemReply,
    example: {
      request: { params: { id: EXAMPLE_ITEM_ID } },
      reply: { item: exampleItem(DELETED) },
      client: clientCall('recurring.deleteItem', EXAMPLE_ITEM_ID),
    },
  }),
];

const CONFIG_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/billing_configs`,
    operationId: 'createBillingConfig',
    summary: 'Create a billing config: how often a plan cycle bills (docs/recurring.md for the calendar rules).',
    tags: TAGS,
    body: CreateBillingConfigBody,
    data: BillingConfigData,
    errors: [],
    handler: ({ ctx, body }) => createBillingConfig(ctx, body.config),
    present: configReply,
    example: {
      request: { body: { config: NEW_CONFIG } },
      reply: { config: exampleConfig() },
      client: clientCall('recurring.createBillingConfig', NEW_CONFIG),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/billing_configs`,
    operationId: 'listBillingConfigs',
    summary: 'List billing configs, newest first, with filter[field][operator]=value.',
    tags: TAGS,
    querystring: PageQuery,
    data: BillingConfigListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listMerchantBillingConfigs(ctx, listParameters(query), query);
      return pageReply('billing_configs', query, rows.map(presentBillingConfig), total);
    },
    example: {
      request: { query: { 'filter[billing_interval][_eq]': 'monthly' } },
      reply: { billing_configs: [exampleConfig()], offset: 0, limit: 20, total: 1 },
      client: clientCall('recurring.listBillingConfigs', { filters: { 'filter[billing_interval][_eq]': 'monthly' } }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/billing_configs/:id`,
    operationId: 'getBillingConfig',
    summary: 'Read a billing config, deleted or not.',
    tags: TAGS,
    params: RecordParams,
    data: BillingConfigData,
    errors: [RECURRING_ERRORS.billingConfigNotFound],
    handler: ({ ctx, params }) => getBillingConfig(ctx, params.id),
    present: configReply,
    example: {
      request: { params: { id: EXAMPLE_CONFIG_ID } },
      reply: { config: exampleConfig() },
      client: clientCall('recurring.getBillingConfig', EXAMPLE_CONFIG_ID),
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: `${BASE}/billing_configs/:id`,
    operationId: 'deleteBillingConfig',
    summary: 'Delete a billing config: it stays readable, and in the plans that use it, but no new plan may use it.',
    tags: TAGS,
    params: RecordParams,
    data: BillingConfigData,
    errors: [RECURRING_ERRORS.billingConfigNotFound],
    handler: ({ ctx, params }) => deleteBillingConfig(ctx, params.id),
    present: configReply,
    example: {
      request: { params: { id: EXAMPLE_CONFIG_ID } },
      reply: { config: exampleConfig(DELETED) },
      client: clientCall('recurring.deleteBillingConfig', EXAMPLE_CONFIG_ID),
    },
  }),
];

const planReply = (view: PlanView) => ({ plan: presentPlan(view) });

const PLAN_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/plan`,
    operationId: 'createRecurringPlan',
    summary:
      "Create a recurring plan for a customer: cycles of items and a billing config, billed on the merchant's clock (docs/recurring.md).",
    description:
      'The same reference_number with the same content answers the plan made before; with other content it is refused (500302).',
    tags: TAGS,
    body: CreatePlanBody,
    data: PlanData,
    errors: [
      CUSTOMER_ERRORS.customerNotFound,
      TOKEN_ERRORS.paymentTokenNotFound,
      TOKEN_ERRORS.paymentTokenNotChargeable,
      PLATFORM_ERRORS.currencyInvalid,
      RECURRING_ERRORS.recurringItemNotFound,
      RECURRING_ERRORS.recurringItemDeleted,
      RECURRING_ERRORS.billingConfigNotFound,
      RECURRING_ERRORS.billingConfigDeleted,
      RECURRING_ERRORS.planReferenceTaken,
    ],
    handler: ({ ctx, body }) => createPlan(ctx, body.plan),
    present: planReply,
    example: {
      request: { body: { plan: NEW_PLAN } },
      reply: { plan: examplePlan() },
      client: clientCall('recurring.createPlan', NEW_PLAN),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/plan`,
    operationId: 'listRecurringPlans',
    summary: 'List recurring plans, newest first, with filter[field][operator]=value.',
    tags: TAGS,
    querystring: PageQuery,
    data: PlanListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { views, total } = await listMerchantPlans(ctx, listParameters(query), query);
      return pageReply('plans', query, views.map(presentPlan), total);
    },
    example: {
      request: { query: { 'filter[state][_eq]': 'active' } },
      reply: { plans: [examplePlan()], offset: 0, limit: 20, total: 1 },
      client: clientCall('recurring.listPlans', { filters: { 'filter[state][_eq]': 'active' } }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/plan/:id`,
    operationId: 'getRecurringPlan',
    summary: 'Read a plan with its cycles: state, billing_count, next_execute_time, amounts.',
    tags: TAGS,
    params: RecordParams,
    data: PlanData,
    errors: [RECURRING_ERRORS.planNotFound],
    handler: ({ ctx, params }) => getPlan(ctx, params.id),
    present: planReply,
    example: {
      request: { params: { id: EXAMPLE_PLAN_ID } },
      reply: { plan: examplePlan() },
      client: clientCall('recurring.getPlan', EXAMPLE_PLAN_ID),
    },
  }),
  defineRoute({
    method: 'PUT',
    url: `${BASE}/plan/:id`,
    operationId: 'updateRecurringPlan',
    summary: "Change a plan's name, note, default_payment_token or retry settings; an omitted field keeps its value.",
    description:
      "default_payment_token must be a chargeable token of the plan's customer; null clears it (each billing then charges the customer's default token). An ended plan is refused (500305).",
    tags: TAGS,
    params: RecordParams,
    body: UpdatePlanBody,
    data: PlanData,
    errors: [
      RECURRING_ERRORS.planNotFound,
      RECURRING_ERRORS.planEnded,
      RECURRING_ERRORS.planTokenMissing,
      TOKEN_ERRORS.paymentTokenNotFound,
      TOKEN_ERRORS.paymentTokenNotChargeable,
    ],
    handler: ({ ctx, params, body }) => updatePlanSettings(ctx, params.id, body.plan),
    present: planReply,
    example: {
      request: { params: { id: EXAMPLE_PLAN_ID }, body: { plan: PLAN_CHANGES } },
      reply: { plan: changedPlan() },
      client: clientCall('recurring.updatePlan', EXAMPLE_PLAN_ID, PLAN_CHANGES),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/plan/:id/cycles`,
    operationId: 'addRecurringPlanCycles',
    summary: "Append cycles after a plan's last one, with the rules of a new plan's cycles (no estimated_start_date).",
    description:
      "Refused when the plan's last cycle never ends (no estimated_end_date or interval_counts) or the plan has ended (500305).",
    tags: TAGS,
    params: RecordParams,
    body: AddCyclesBody,
    data: PlanData,
    errors: [
      RECURRING_ERRORS.planNotFound,
      RECURRING_ERRORS.planEnded,
      RECURRING_ERRORS.recurringItemNotFound,
      RECURRING_ERRORS.recurringItemDeleted,
      RECURRING_ERRORS.billingConfigNotFound,
      RECURRING_ERRORS.billingConfigDeleted,
    ],
    handler: ({ ctx, params, body }) => addCycles(ctx, params.id, body.cycles),
    present: planReply,
    example: {
      request: { params: { id: EXAMPLE_PLAN_ID }, body: { cycles: NEW_CYCLES } },
      reply: { plan: extendedPlan() },
      client: clientCall('recurring.addCycles', EXAMPLE_PLAN_ID, NEW_CYCLES),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/plan/:id/cancel`,
    operationId: 'cancelRecurringPlan',
    summary:
      'Cancel a plan: now (immediate), or at its next billing time (next_billing_date, undone by recover until then).',
    description:
      'immediate: the active and later cycles are cancelled and an unpaid generated order is voided (a payment still pending refuses, 400107); refund_credit refunds the unused whole days of the current paid period once its sale is settled. An ended plan is refused (500305).',
    tags: TAGS,
    params: RecordParams,
    body: CancelPlanBody,
    data: PlanData,
    errors: [RECURRING_ERRORS.planNotFound, RECURRING_ERRORS.planEnded, ORDER_ERRORS.orderNotVoidable],
    handler: ({ ctx, params, body }) => cancelPlan(ctx, params.id, body),
    present: planReply,
    example: {
      request: { params: { id: EXAMPLE_PLAN_ID }, body: CANCEL_NOW },
      reply: { plan: cancelledPlan() },
      client: clientCall('recurring.cancelPlan', EXAMPLE_PLAN_ID, CANCEL_NOW),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/plan/:id/recover`,
    operationId: 'recoverRecurringPlan',
    summary:
      'Undo a pending next_billing_date cancellation before it takes effect; refused after, or when none is pending (500304).',
    tags: TAGS,
    params: RecordParams,
    data: PlanData,
    errors: [RECURRING_ERRORS.planNotFound, RECURRING_ERRORS.planNotRecoverable],
    handler: ({ ctx, params }) => recoverPlan(ctx, params.id),
    present: planReply,
    example: {
      request: { params: { id: EXAMPLE_PLAN_ID } },
      reply: { plan: examplePlan() },
      client: clientCall('recurring.recoverPlan', EXAMPLE_PLAN_ID),
    },
  }),
];

const PLAN_ORDER_ROUTES = [
  defineRoute({
    method: 'GET',
    url: `${BASE}/orders/list`,
    operationId: 'listRecurringPlanOrders',
    summary:
      "Operation 3: the orders the merchant's plans generated, newest first, with filter[order.…|customer.…|plan.…][operator]=value.",
    description:
      '`data` is the array of records itself. Filters: order.number, order.order_number, order.reference_number, order.state, order.correspondence_state, order.currency, order.amount, order.paid_total, order.created_at, customer.uuid, customer.reference_number, customer.name, customer.email, customer.phone, plan.id, plan.reference_number, plan.name, plan.state, cycle.id, cycle.state.',
    tags: TAGS,
    querystring: PageQuery,
    data: PlanOrderListData,
    errors: [],
    handler: ({ ctx, query }) => listGeneratedOrders(ctx, listParameters(query), query),
    example: {
      request: {
        query: { 'filter[order.correspondence_state][_eq]': 'paid', 'filter[plan.id][_eq]': EXAMPLE_PLAN_ID },
      },
      reply: [examplePlanOrder()],
      client: clientCall('recurring.listOrders', {
        filters: { 'filter[order.correspondence_state][_eq]': 'paid', 'filter[plan.id][_eq]': EXAMPLE_PLAN_ID },
      }),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/check`,
    operationId: 'checkRecurringPlanOrder',
    summary: 'One order a plan generated, by its number (and customer), as operation 3 shows it.',
    tags: TAGS,
    body: CheckPlanOrderBody,
    data: PlanOrderRecordSchema,
    errors: [ORDER_ERRORS.orderNotFound],
    handler: ({ ctx, body }) => checkGeneratedOrder(ctx, body),
    example: {
      request: {
        body: {
          customer_uuid: examplePlanOrder().customer.uuid,
          order: { number: examplePlanOrder().order.order_number },
        },
      },
      reply: examplePlanOrder(),
      client: clientCall('recurring.checkOrder', {
        customer_uuid: examplePlanOrder().customer.uuid,
        order: { number: examplePlanOrder().order.order_number },
      }),
    },
  }),
];

export const RECURRING_ROUTES = [...ITEM_ROUTES, ...CONFIG_ROUTES, ...PLAN_ROUTES, ...PLAN_ORDER_ROUTES];
