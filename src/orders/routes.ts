import Type from 'typebox';
import { presentEvent } from '../events/present.js';
import { EventListData } from '../events/schemas.js';
import { clientCall } from '../http/examples.js';
import { listParameters, pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { TOKEN_ERRORS } from '../payment-tokens/index.js';
import { PLATFORM_ERRORS } from '../platform/errors.js';
import { RAIL_ERRORS } from '../rails/errors.js';
import { captureAuthorization, refundTransaction, voidTransaction } from './adjustments.js';
import { createOrder } from './create-order.js';
import { ORDER_ERRORS } from './errors.js';
import {
  capturedExample,
  EXAMPLE_CARD,
  EXAMPLE_LINE_ITEMS,
  EXAMPLE_ORDER,
  EXAMPLE_PREAUTH,
  exampleEvents,
  exampleOrder,
  PAID_ORDER,
  refundedExample,
  UNPAID_ORDER,
  voidedExample,
} from './examples.js';
import type { TransactionOutcome } from './outcomes.js';
import { payOrder } from './payments.js';
import { type OrderView, presentOrder, presentTransaction } from './present.js';
import { checkOrder, checkTransaction, listMerchantOrders, orderEvents } from './queries.js';
import {
  CaptureBody,
  CheckOrderBody,
  CheckOrderQuery,
  CreateOrderBody,
  CreateOrderQuery,
  ListOrdersQuery,
  OpenPaymentBody,
  OrderData,
  OrderListData,
  OrderSchema,
  OrderTransactionData,
  RefundBody,
  TransactionBody,
  TransactionSchema,
  VoidBody,
} from './schemas.js';
import { voidOrder } from './void-order.js';

const BASE = '/svc/payment/api/v1/openapi';
const TAGS = ['orders'];

const orderData = (view: OrderView) => ({
  order: presentOrder(view),
  ...(view.links?.payment !== undefined && { payment_link: view.links.payment }),
  ...(view.links?.receipt !== undefined && { download_link: view.links.receipt }),
});
const transactionData = ({ view, transaction }: TransactionOutcome) => ({
  order: presentOrder(view),
  transaction: presentTransaction(transaction, view.transactions, view.order.currency_exponent),
});

const NEW_ORDER = {
  reference_number: EXAMPLE_ORDER.reference,
  currency: 'HKD',
  charge_fee: '68.00',
  note: 'Table 12',
  line_items: [...EXAMPLE_LINE_ITEMS],
  callback_url: 'https://shop.example.com/paygate/webhooks',
  redirect_url: 'https://shop.example.com/orders/1001',
};
const { callback_url: _callback, redirect_url: _redirect, ...NEW_ORDER_FOR_PHP } = NEW_ORDER;
const BY_REFERENCE = { reference_number: EXAMPLE_ORDER.reference };
const SALE = { uuid: EXAMPLE_ORDER.saleUuid };
const REFUND = { amount: '20.00', reason: 'One flat white returned' };

const LOOKUP_ERRORS = [ORDER_ERRORS.orderNotFound, ORDER_ERRORS.transactionNotFound, ORDER_ERRORS.orderMismatch];
const RAIL_REFUSALS = [RAIL_ERRORS.acquirerUnavailable, RAIL_ERRORS.acquirerNoAnswer];

export const ORDER_ROUTES = [
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders`,
    operationId: 'createOrder',
    summary: 'Create an order; the same reference and content again returns it.',
    description:
      'charge_fee is the amount to pay (tips included); subtotal, when sent, must be charge_fee − tips; ' +
      'line items, when sent, must add up to charge_fee, their RearTips lines to tips.',
    tags: TAGS,
    body: CreateOrderBody,
    querystring: CreateOrderQuery,
    data: OrderData,
    errors: [
      PLATFORM_ERRORS.currencyInvalid,
      ORDER_ERRORS.orderAmountsInvalid,
      ORDER_ERRORS.orderReferenceTaken,
      ORDER_ERRORS.orderCustomerUnknown,
    ],
    handler: ({ ctx, body, query }) => createOrder(ctx, body, { paymentLink: query.with_payment_link === true }),
    present: orderData,
    example: {
      request: { query: { with_payment_link: 'true' }, body: { order: NEW_ORDER } },
      reply: { order: UNPAID_ORDER, payment_link: 'https://paygate.example.com/pay/TvOazC1o37Ee4Oy1PWNWiA' },
      client: clientCall('orders.createWithPaymentLink', NEW_ORDER),
      php: {
        method: 'createPaymentLink',
        params: { order: NEW_ORDER_FOR_PHP },
        note: 'It always asks for the payment link, and sets callback_url and redirect_url from its own options.',
      },
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/open_payments`,
    operationId: 'payOrder',
    summary: 'Pay an order by card (sale or pre-authorisation).',
    description:
      'A declined card, an acquirer fault or a 3-D Secure challenge is not an error: the transaction is ' +
      'recorded with success false (payment_data.resp_code, resp_msg) or is_pending true (3ds.redirect_url).',
    tags: TAGS,
    body: OpenPaymentBody,
    data: OrderTransactionData,
    errors: [
      ORDER_ERRORS.orderNotFound,
      ORDER_ERRORS.orderMismatch,
      ORDER_ERRORS.orderVoided,
      ORDER_ERRORS.orderNothingToPay,
      ORDER_ERRORS.orderReferenceMissing,
      ORDER_ERRORS.paymentUuidReused,
      ORDER_ERRORS.paymentMethodMissing,
      TOKEN_ERRORS.paymentTokenNotFound,
      TOKEN_ERRORS.paymentTokenNotChargeable,
      ...RAIL_REFUSALS,
    ],
    handler: ({ ctx, body }) => payOrder(ctx, body),
    present: transactionData,
    example: {
      request: {
        body: {
          reference_number: EXAMPLE_ORDER.reference,
          payment: { credit_card: { ...EXAMPLE_CARD, consume_mode: 'sales' } },
        },
      },
      reply: { order: PAID_ORDER, transaction: PAID_ORDER.transactions[0]! },
      client: clientCall('orders.pay', BY_REFERENCE, { credit_card: { ...EXAMPLE_CARD, consume_mode: 'sales' } }),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/transactions/capture`,
    operationId: 'captureTransaction',
    summary: 'Capture a pre-authorisation, once, up to the authorised amount.',
    tags: TAGS,
    body: CaptureBody,
    data: OrderTransactionData,
    errors: [
      ...LOOKUP_ERRORS,
      ORDER_ERRORS.transactionNotCapturable,
      ORDER_ERRORS.captureExceedsAuthorized,
      ...RAIL_REFUSALS,
    ],
    handler: ({ ctx, body }) =>
      captureAuthorization(ctx, { order: body.order, transactionId: body.transaction.uuid }, body.capture?.amount),
    present: transactionData,
    example: {
      request: {
        body: {
          order: { reference_number: EXAMPLE_PREAUTH.reference },
          transaction: { uuid: EXAMPLE_PREAUTH.authorizationUuid },
          capture: { amount: '68.00' },
        },
      },
      reply: capturedExample(),
      client: clientCall('transactions.capture', EXAMPLE_PREAUTH.authorizationUuid, '68.00'),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/transactions/void`,
    operationId: 'voidTransaction',
    summary: 'Void a transaction before settlement (or release an open authorisation).',
    tags: TAGS,
    body: TransactionBody,
    data: OrderTransactionData,
    errors: [...LOOKUP_ERRORS, ORDER_ERRORS.transactionNotVoidable, ...RAIL_REFUSALS],
    handler: ({ ctx, body }) => voidTransaction(ctx, { order: body.order, transactionId: body.transaction.uuid }),
    present: transactionData,
    example: {
      request: { body: { order: BY_REFERENCE, transaction: SALE } },
      reply: voidedExample(),
      client: clientCall('transactions.void', EXAMPLE_ORDER.saleUuid),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/void`,
    operationId: 'voidOrder',
    summary: 'Void a transaction (as transactions/void), or with only order{} an unpaid order as a whole.',
    tags: TAGS,
    body: VoidBody,
    data: Type.Object({ order: OrderSchema, transaction: Type.Optional(TransactionSchema) }),
    errors: [
      ...LOOKUP_ERRORS,
      ORDER_ERRORS.transactionNotVoidable,
      ORDER_ERRORS.orderNotVoidable,
      ORDER_ERRORS.orderVoided,
      ORDER_ERRORS.orderReferenceMissing,
      ...RAIL_REFUSALS,
    ],
    handler: async ({ ctx, body }) =>
      body.transaction
        ? voidTransaction(ctx, { order: body.order, transactionId: body.transaction.uuid })
        : voidOrder(ctx, body.order ?? {}),
    present: (result: TransactionOutcome | OrderView) =>
      'view' in result ? transactionData(result) : orderData(result),
    example: {
      request: { body: { order: BY_REFERENCE } },
      reply: {
        order: exampleOrder({
          paid_total: '0.00',
          unpaid_total: '68.00',
          state: 'voided',
          correspondence_state: 'unpaid',
          updated_at: '2026-11-21T08:05:00.000Z',
        }),
      },
      client: clientCall('orders.void', BY_REFERENCE),
      php: {
        method: 'voidOrder',
        note: "Its voidTransaction(['order' => [...], 'transaction' => ['uuid' => ...]]) voids one transaction through this path too.",
      },
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/refund`,
    operationId: 'refundTransaction',
    summary: 'Refund part or all of a settled transaction; repeatable, never more than was captured.',
    tags: TAGS,
    body: RefundBody,
    data: OrderTransactionData,
    errors: [
      ...LOOKUP_ERRORS,
      ORDER_ERRORS.transactionNotRefundable,
      ORDER_ERRORS.refundExceedsCaptured,
      ...RAIL_REFUSALS,
    ],
    handler: ({ ctx, body }) =>
      refundTransaction(ctx, { order: body.order, transactionId: body.transaction.uuid }, body.refund),
    present: transactionData,
    example: {
      request: { body: { order: BY_REFERENCE, transaction: SALE, refund: REFUND } },
      reply: refundedExample(),
      client: clientCall('transactions.refund', EXAMPLE_ORDER.saleUuid, REFUND),
      php: { method: 'refundTransaction' },
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/transactions/check`,
    operationId: 'checkTransaction',
    summary: 'Read one transaction and its order.',
    tags: TAGS,
    body: TransactionBody,
    data: OrderTransactionData,
    errors: [...LOOKUP_ERRORS],
    handler: ({ ctx, body }) => checkTransaction(ctx, body),
    present: transactionData,
    example: {
      request: { body: { order: BY_REFERENCE, transaction: SALE } },
      reply: { order: PAID_ORDER, transaction: PAID_ORDER.transactions[0]! },
      client: clientCall('transactions.check', EXAMPLE_ORDER.saleUuid, BY_REFERENCE),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/check`,
    operationId: 'checkOrder',
    summary: 'Read an order by number, reference number or a transaction uuid (operation 1).',
    tags: TAGS,
    body: CheckOrderBody,
    querystring: CheckOrderQuery,
    data: OrderData,
    errors: [...LOOKUP_ERRORS, ORDER_ERRORS.orderReferenceMissing],
    handler: ({ ctx, body, query }) =>
      checkOrder(ctx, body, {
        paymentLink: query.with_payment_link === true,
        receiptLink: query.with_download_link === true,
      }),
    present: orderData,
    example: {
      request: { body: { order: BY_REFERENCE } },
      reply: { order: PAID_ORDER },
      client: clientCall('orders.check', { order: BY_REFERENCE }),
      php: { method: 'queryOrder' },
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/orders/list`,
    operationId: 'listOrders',
    summary: 'List orders, newest first, with filter[field][operator]=value (docs/orders.md).',
    tags: TAGS,
    querystring: ListOrdersQuery,
    data: OrderListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { views, total } = await listMerchantOrders(ctx, listParameters(query), {
        offset: query.offset,
        limit: query.limit,
        customerUuid: query.customer_uuid,
      });
      return pageReply('orders', query, views.map(presentOrder), total);
    },
    example: {
      request: { query: { limit: '20', 'filter[state][_eq]': 'completed' } },
      reply: { orders: [PAID_ORDER], offset: 0, limit: 20, total: 1 },
      client: clientCall('orders.list', { limit: 20, filters: { 'filter[state][_eq]': 'completed' } }),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/orders/events`,
    operationId: 'listOrderEvents',
    summary: "An order's webhook events, oldest first, with every delivery attempt.",
    description: 'Name the order as for orders/check: order{number | reference_number}, or transaction{uuid}.',
    tags: ['webhooks'],
    body: CheckOrderBody,
    data: EventListData,
    errors: [...LOOKUP_ERRORS, ORDER_ERRORS.orderReferenceMissing],
    handler: ({ ctx, body }) => orderEvents(ctx, body),
    present: (events) => ({ events: events.map(presentEvent) }),
    example: {
      request: { body: { order: BY_REFERENCE } },
      reply: { events: exampleEvents() },
      client: clientCall('orders.events', { order: BY_REFERENCE }),
    },
  }),
];
