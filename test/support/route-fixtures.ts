import { randomBytes, randomUUID } from 'node:crypto';
import type { ErrorName } from './errors.js';
import { CARDS, card } from './fixtures.js';
import { type MerchantWorld, type OrderNames, type Payment, TREASURY } from './merchant-world.js';
import { type Location, namingLocations, type Operation, type OperationRequest } from './openapi-document.js';

/**
 * What the route-driven tests (test/fuzz.test.ts, test/cross-merchant.test.ts) know of each signed operation,
 * keyed by its operationId in the served OpenAPI document (an alias has its own, `echoAlias1`).
 *
 * Adding a route is adding its entry here, and nothing else:
 *
 *     listPayouts: {
 *       valid: async (world) => request({ query: { payee_id: (await world.newPayee()).id } }),
 *       repeatable: true,
 *       names: { 'query.payee_id': lookup(unknownUuid, 'payeeNotFound') },
 *     },
 *
 * `valid` builds a request the merchant's world (test/support/merchant-world.ts) answers with 2xx, making
 * fresh objects when the operation uses them up (then `repeatable: false`). `names` says, for every place of
 * the request that names an object (every path parameter, and each text field called ...id, ...number,
 * ...reference, ...uuid, ...token or ...link), what it names: a lookup (and how a value naming nothing is
 * answered), a natural key, or no object at all. An operation of the document without an entry fails both
 * tests, naming its operationId; a naming place without its entry fails the cross-merchant test.
 */

/** The place names an existing object, looked up: another merchant's must be answered as a missing one. */
export interface Lookup {
  kind: 'lookup';
  /** A value of the same form that names nothing. */
  unknown(): string;
  /** How a value naming nothing is answered: this error, or `success` for a filter that then matches nothing. */
  answer: ErrorName | 'success';
  /** A valid request naming the object here, when the operation's usual request does not use this place. */
  request?(world: MerchantWorld): Promise<OperationRequest>;
}

/**
 * A natural key: the request makes (or updates) the merchant's object known by this value. Another merchant's
 * key is just an unused one: it makes a fresh object of the caller's own.
 */
export interface NaturalKey {
  kind: 'natural-key';
  /** A value no object has. */
  unused(): string;
  /** The object the owner's successful request made (`data` is its reply's), as the owner reads it. */
  readBack(world: MerchantWorld, data: any): Promise<unknown>;
  request?(world: MerchantWorld): Promise<OperationRequest>;
}

/** The name matches the naming pattern but the value is no object of a merchant (a card number, say). */
export interface NotAnObject {
  kind: 'not-an-object';
  why: string;
}

export type Naming = Lookup | NaturalKey | NotAnObject;

export interface RouteFixture {
  /** A request the world answers with 2xx. */
  valid(world: MerchantWorld): Promise<OperationRequest>;
  /** The same valid request, sent again, is answered with 2xx again (reads, upserts, retries by key). */
  repeatable: boolean;
  /** Every naming place of the request (see `namingLocations`), and any other the tests should try. */
  names?: Record<Location, Naming>;
  /**
   * A body text field that takes any text within its documented length (a name, a note): the fuzz test puts
   * huge and odd strings there, and expects text that fits to be accepted.
   */
  freeText?: Location;
  /**
   * The operation changes the whole merchant (its clock, its whole sandbox world): fuzz it on a merchant of its own,
   * and try another merchant's Idempotency-Key with it on merchants of their own.
   */
  isolated?: true;
  /** The operation empties or replaces the merchant's world (a reset, a restore): the next one needs a new world. */
  replacesWorld?: true;
  /**
   * The share of the fuzz test's cases per route this one gets by default (1 when absent): a route that does
   * much per request (pays, binds, moves the clock) gets fewer, so the default run stays short.
   */
  fuzzShare?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Values that name nothing, in the form of those that name something.

const unknownUuid = () => randomUUID();
const unknownToken = () => randomBytes(16).toString('hex');
const unknownReference = () => `unknown-${randomUUID()}`;
/** Order numbers are 18 digits: a time stamp and a sequence. */
const unknownOrderNumber = () => `9${Array.from({ length: 17 }, () => Math.floor(Math.random() * 10)).join('')}`;

const lookup = (unknown: () => string, answer: Lookup['answer'], request?: Lookup['request']): Lookup => ({
  kind: 'lookup',
  unknown,
  answer,
  ...(request && { request }),
});
const notAnObject = (why: string): NotAnObject => ({ kind: 'not-an-object', why });

const CUSTOMER = lookup(unknownUuid, 'customerNotFound');
const TRANSACTION = lookup(unknownUuid, 'transactionNotFound');
const BATCH = lookup(unknownUuid, 'batchNotFound');
const PAYMENT_TOKEN = lookup(unknownToken, 'paymentTokenNotFound');
const USER = lookup(unknownReference, 'userNotFound');
const CARD = lookup(unknownUuid, 'cardNotFound');
const AUTHORIZATION = lookup(unknownUuid, 'authorizationNotFound');
const PAYEE = lookup(unknownUuid, 'payeeNotFound');
const PAYOUT = lookup(unknownUuid, 'payoutNotFound');
const SNAPSHOT = lookup(() => `snap-${randomUUID()}`, 'snapshotNotFound');
const FPS_ID = notAnObject("the payee's FPS id at the bank: not an object of the merchant");
const payoutBody = (world: MerchantWorld) => ({
  payee_id: world.payee.id,
  currency: 'HKD',
  amount: '1.00',
  callback_url: 'http://127.0.0.1:9/payouts',
  remark: 'Invoice 118',
  schedule_at: '2099-01-01T00:00:00Z',
});
const ofPayout = (id: string, body?: unknown) => request({ path: { id }, ...(body !== undefined && { body }) });
const networkSpend = (cardId: string) => ({
  card_id: cardId,
  amount: '1.00',
  currency: 'HKD',
  merchant: { id: 'MID-1', name: 'Kiosk', city: 'Hong Kong', country: 'HK', category: '5499' },
});
const ofCard = async (id: string) => request({ path: { id } });
const CARD_NUMBER = notAnObject("a card number: the card is the payer's, not an object of the merchant");

/** An order named by number and reference, beside a transaction: both must name the transaction's order. */
const ORDER_OF_TRANSACTION = {
  'body.order.number': lookup(unknownOrderNumber, 'orderMismatch'),
  'body.order.reference_number': lookup(unknownReference, 'orderMismatch'),
  'body.transaction.uuid': TRANSACTION,
};

// ---------------------------------------------------------------------------------------------------------
// Requests

const request = (parts: Partial<OperationRequest>): OperationRequest => ({ path: {}, query: {}, ...parts });
const orderNames = (order: OrderNames) => ({ number: order.number, reference_number: order.reference_number });
/**
 * An order named one way only: a request naming it both ways would be refused for another merchant's number
 * beside the caller's own reference even if numbers leaked across merchants.
 */
const orderBy = (by: keyof OrderNames, order: OrderNames) => ({ [by]: order[by] });
const transactionRequest = (payment: Payment, extra: Record<string, unknown> = {}) =>
  request({ body: { order: orderNames(payment.order), transaction: { uuid: payment.transactionUuid }, ...extra } });
const ofCustomer = (world: MerchantWorld, body?: unknown) =>
  request({ path: { uuid: world.customer.uuid }, ...(body !== undefined && { body }) });

/** orders/check, asking for both links as well. */
const checkingOrder = (body: unknown) =>
  request({ query: { with_payment_link: 'true', with_download_link: 'true' }, body });

/** Plans of the route tests start in the future: nothing bills (and so changes them) while the tests compare reads. */
const FAR_START = '2029-01-01';

const PROFILE = {
  name: 'Chan Tai Man',
  phone: '91234567',
  email: 'chan@example.com',
  dial_code: '852',
  company_name: 'Chan Trading',
  default_payment_method: 'Credit Card',
};

const echo: RouteFixture = {
  valid: async () => request({ body: { message: 'Hello, paygate' } }),
  repeatable: true,
  freeText: 'body.message',
};

/** Pays part of a fresh order, so that partial payments keep succeeding, under a payment.uuid of its own. */
function partPayment(method: Record<string, unknown>, namedBy: Record<string, unknown>): OperationRequest {
  return request({
    body: { ...namedBy, payment: { uuid: randomUUID(), amount: '1.00', note: 'part payment', ...method } },
  });
}
const byCard = { credit_card: { ...card(CARDS.visa), consume_mode: 'sales' } };
const byToken = (world: MerchantWorld) => ({
  payment_token: { token: world.token.token, amount: '1.00', consume_mode: 'sales', entry_type: 'mit' },
});

const newUserBody = (world: MerchantWorld) => {
  const digits = String(Math.floor(Math.random() * 1e11)).padStart(11, '0');
  return {
    reference_id: world.unique('user'),
    calling_code: '852',
    phone_number: digits,
    document_type: 'ID_CARD',
    document_number: `Z${digits}`,
    first_name: 'Tai Man',
    last_name: 'Chan',
    date_of_birth: '1990-04-01',
    issuing_country: 'HKG',
  };
};
/** A user whose identity check is under review: the sandbox settles it once. */
const pendingUser = (body?: unknown): RouteFixture => ({
  valid: async (world) =>
    request({ path: { user_id: (await world.newUser('Review')).id }, ...(body !== undefined && { body }) }),
  repeatable: false,
  names: { 'path.user_id': lookup(unknownUuid, 'userNotFound') },
  fuzzShare: 0.25,
});
const settleToken: RouteFixture = {
  valid: async (world) => request({ path: { token: await world.newPendingToken() } }),
  repeatable: false,
  names: { 'path.token': PAYMENT_TOKEN },
  fuzzShare: 0.15,
};

const completePayment: RouteFixture = {
  valid: async (world) => request({ path: { uuid: (await world.newPayment('challenge')).transactionUuid } }),
  repeatable: false,
  names: { 'path.uuid': TRANSACTION },
  fuzzShare: 0.15,
};

export const ROUTE_FIXTURES: Readonly<Record<string, RouteFixture>> = {
  echo,
  echoAlias1: echo,

  createCustomer: {
    valid: async (world) => request({ body: { customer: { ...PROFILE, reference_number: world.unique('customer') } } }),
    repeatable: true,
    freeText: 'body.customer.name',
    names: {
      'body.customer.reference_number': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) => world.readCustomer(data.customer.uuid),
      },
      // Only a token of the customer itself can be its default: the world's customer, updated by reference.
      'body.customer.default_payment_token': lookup(unknownToken, 'paymentTokenNotUsable', async (world) =>
        request({
          body: {
            customer: {
              ...PROFILE,
              reference_number: world.customer.reference,
              default_payment_token: world.token.token,
            },
          },
        }),
      ),
    },
  },
  editCustomer: {
    valid: async (world) =>
      ofCustomer(world, {
        ...PROFILE,
        reference_number: world.customer.reference,
        default_payment_token: world.token.token,
      }),
    repeatable: true,
    freeText: 'body.name',
    names: {
      'path.uuid': CUSTOMER,
      // The reference cannot change: any other value, another merchant's included, is refused as a change.
      'body.reference_number': lookup(unknownReference, 'customerReferenceImmutable'),
      'body.default_payment_token': lookup(unknownToken, 'paymentTokenNotUsable'),
    },
  },
  getCustomer: {
    valid: async (world) => ofCustomer(world),
    repeatable: true,
    names: { 'path.uuid': CUSTOMER },
  },

  bindPaymentToken: {
    valid: async (world) =>
      ofCustomer(world, {
        card: {
          ...card(CARDS.visa),
          billing_currency: 'HKD',
          billing_address: { line1: "1 Queen's Road Central", city: 'Hong Kong' },
          '3ds': {
            success_return_url: 'https://shop.example/bound',
            fail_return_url: 'https://shop.example/not-bound',
          },
        },
      }),
    repeatable: true,
    names: { 'path.uuid': CUSTOMER, 'body.card.number': CARD_NUMBER },
    fuzzShare: 0.25,
  },
  listPaymentTokens: {
    valid: async (world) => ofCustomer(world),
    repeatable: true,
    names: { 'path.uuid': CUSTOMER },
    fuzzShare: 0.25,
  },
  deletePaymentToken: {
    valid: async (world) => ofCustomer(world, { payment_token: { token: await world.newPendingToken() } }),
    repeatable: false,
    names: {
      'path.uuid': CUSTOMER,
      'body.payment_token.token': PAYMENT_TOKEN,
      // The bare form some clients send.
      'body.token': lookup(unknownToken, 'paymentTokenNotFound', async (world) =>
        ofCustomer(world, { token: await world.newPendingToken() }),
      ),
    },
    fuzzShare: 0.2,
  },
  checkPaymentToken: {
    // The interface's literal `uuid` in the path: the token alone names it.
    valid: async (world) => request({ path: { uuid: 'uuid' }, body: { payment_token: { token: world.token.token } } }),
    repeatable: true,
    names: {
      'path.uuid': lookup(unknownUuid, 'customerNotFound', async (world) =>
        ofCustomer(world, { payment_token: { token: world.token.token } }),
      ),
      'body.payment_token.token': PAYMENT_TOKEN,
      'body.payment_token.verify_uuid': lookup(unknownUuid, 'paymentTokenNotFound', async (world) =>
        request({
          path: { uuid: 'uuid' },
          body: { payment_token: { token: world.token.token, verify_uuid: world.token.verifyUuid } },
        }),
      ),
    },
    fuzzShare: 0.25,
  },
  createWalletLink: {
    valid: async (world) => ofCustomer(world),
    repeatable: true,
    names: { 'path.uuid': CUSTOMER },
    fuzzShare: 0.25,
  },

  createOrder: {
    valid: async (world) =>
      request({
        query: { with_payment_link: 'true' },
        body: {
          order: {
            reference_number: world.unique('order'),
            currency: 'HKD',
            charge_fee: '12.50',
            tips: '2.50',
            subtotal: '10.00',
            due_date: `${new Date().getUTCFullYear() + 1}-12-31`,
            note: 'two teas',
            line_items: [
              { purchasable_type: 'Listing', purchase_id: 7, price: '5.00', quantity: 2, total: '10.00', label: 'Tea' },
              { purchasable_type: 'RearTips', price: '2.50', quantity: 1, label: 'Tips' },
            ],
            redirect_url: 'https://shop.example/paid',
          },
          customer_uuid: world.customer.uuid,
        },
      }),
    repeatable: true,
    names: {
      'body.order.reference_number': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) => world.readOrder(data.order),
      },
      'body.customer_uuid': lookup(unknownUuid, 'orderCustomerUnknown'),
      'body.order.line_items[].purchase_id': notAnObject("the merchant's own product id, kept as sent"),
    },
    fuzzShare: 0.25,
  },
  payOrder: {
    valid: async (world) => partPayment(byCard, { order: orderBy('number', await world.newOrder()) }),
    repeatable: true,
    freeText: 'body.payment.note',
    names: {
      'body.order.number': lookup(unknownOrderNumber, 'orderNotFound'),
      'body.order.reference_number': lookup(unknownReference, 'orderNotFound', async (world) =>
        partPayment(byCard, { order: orderBy('reference_number', await world.newOrder()) }),
      ),
      'body.number': lookup(unknownOrderNumber, 'orderNotFound', async (world) =>
        partPayment(byCard, { number: (await world.newOrder()).number }),
      ),
      'body.reference_number': lookup(unknownReference, 'orderNotFound', async (world) =>
        partPayment(byCard, { reference_number: (await world.newOrder()).reference_number }),
      ),
      'body.payment.uuid': {
        kind: 'natural-key',
        unused: () => randomUUID(),
        readBack: (world, data) => world.readTransaction(data.transaction.uuid),
      },
      'body.payment.payment_token.token': lookup(unknownToken, 'paymentTokenNotFound', async (world) =>
        partPayment(byToken(world), { order: orderBy('number', await world.newOrder()) }),
      ),
      'body.payment.credit_card.number': CARD_NUMBER,
    },
    fuzzShare: 0.25,
  },
  captureTransaction: {
    valid: async (world) =>
      transactionRequest(await world.newPayment('authorisation'), { capture: { amount: '10.00' } }),
    repeatable: false,
    names: ORDER_OF_TRANSACTION,
    fuzzShare: 0.2,
  },
  voidTransaction: {
    valid: async (world) => transactionRequest(await world.newPayment('sale')),
    repeatable: false,
    names: ORDER_OF_TRANSACTION,
    fuzzShare: 0.2,
  },
  voidOrder: {
    // As a whole: an order with no payments.
    valid: async (world) => request({ body: { order: orderBy('number', await world.newOrder()) } }),
    repeatable: false,
    names: {
      'body.order.number': lookup(unknownOrderNumber, 'orderNotFound'),
      'body.order.reference_number': lookup(unknownReference, 'orderNotFound', async (world) =>
        request({ body: { order: orderBy('reference_number', await world.newOrder()) } }),
      ),
      'body.transaction.uuid': lookup(unknownUuid, 'transactionNotFound', async (world) =>
        request({ body: { transaction: { uuid: (await world.newPayment('sale')).transactionUuid } } }),
      ),
    },
    fuzzShare: 0.2,
  },
  refundTransaction: {
    valid: async (world) =>
      transactionRequest(world.refundable, { refund: { amount: '0.01', note: 'a cent back', reason: 'goodwill' } }),
    repeatable: true,
    freeText: 'body.refund.note',
    names: ORDER_OF_TRANSACTION,
    fuzzShare: 0.2,
  },
  checkTransaction: {
    valid: async (world) => transactionRequest(world.paidOrder),
    repeatable: true,
    names: ORDER_OF_TRANSACTION,
    fuzzShare: 0.25,
  },
  checkOrder: {
    valid: async (world) => checkingOrder({ order: orderBy('number', world.paidOrder.order) }),
    repeatable: true,
    names: {
      'body.order.number': lookup(unknownOrderNumber, 'orderNotFound'),
      'body.order.reference_number': lookup(unknownReference, 'orderNotFound', async (world) =>
        checkingOrder({ order: orderBy('reference_number', world.paidOrder.order) }),
      ),
      'body.transaction.uuid': lookup(unknownUuid, 'transactionNotFound', async (world) =>
        checkingOrder({ transaction: { uuid: world.paidOrder.transactionUuid } }),
      ),
    },
    fuzzShare: 0.25,
  },
  listOrders: {
    valid: async (world) =>
      request({
        query: { offset: '0', limit: '5', customer_uuid: world.customer.uuid, 'filter[state][_eq]': 'completed' },
      }),
    repeatable: true,
    // Filters: naming another merchant's object matches nothing, as naming none does.
    names: {
      'query.customer_uuid': lookup(unknownUuid, 'success'),
      'query.filter[customer.uuid][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[customer.uuid][_eq]': world.customer.uuid } }),
      ),
      'query.filter[number][_eq]': lookup(unknownOrderNumber, 'success', async (world) =>
        request({ query: { 'filter[number][_eq]': world.paidOrder.order.number } }),
      ),
      'query.filter[reference_number][_eq]': lookup(unknownReference, 'success', async (world) =>
        request({ query: { 'filter[reference_number][_eq]': world.paidOrder.order.reference_number } }),
      ),
    },
    fuzzShare: 0.25,
  },

  createBatch: {
    // The file is fetched in the background; this world's host answers 404, so each batch made fails on its own.
    valid: async () =>
      request({ body: { batch: { file_url: 'http://127.0.0.1:9/dues.csv', batch_name: 'December dues' } } }),
    repeatable: true,
    freeText: 'body.batch.batch_name',
  },
  listBatches: {
    valid: async () => request({ query: { offset: '0', limit: '5', 'filter[upload_status][_eq]': 'failed' } }),
    repeatable: true,
    names: {
      'query.filter[id][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[id][_eq]': world.batch.id } }),
      ),
    },
  },
  getBatchTransactions: {
    valid: async (world) => request({ path: { id: world.batch.id }, query: { offset: '0', limit: '20' } }),
    repeatable: true,
    names: { 'path.id': BATCH },
  },
  listBatchErrors: {
    valid: async (world) => request({ path: { id: world.batch.id } }),
    repeatable: true,
    names: { 'path.id': BATCH },
  },
  getBatchResultFile: {
    valid: async (world) => request({ path: { id: world.batch.id } }),
    repeatable: true,
    names: { 'path.id': BATCH },
  },
  cancelBatch: {
    valid: async (world) => request({ path: { id: await world.newBatch({ held: true }) } }),
    repeatable: false,
    names: { 'path.id': BATCH },
    fuzzShare: 0.2,
  },

  createRecurringItem: {
    valid: async () =>
      request({
        body: {
          item: {
            reference_id: 'GOLD',
            label: 'Gold membership',
            price: '99.90',
            currency: 'HKD',
            description: 'Monthly',
          },
        },
      }),
    repeatable: true,
    freeText: 'body.item.label',
    names: {
      'body.item.reference_id': notAnObject("the merchant's own label for the item: paygate looks nothing up by it"),
    },
  },
  listRecurringItems: {
    valid: async () => request({ query: { offset: '0', limit: '5', 'filter[currency][_eq]': 'HKD' } }),
    repeatable: true,
    names: {
      'query.filter[id][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[id][_eq]': world.item.id } }),
      ),
    },
  },
  getRecurringItem: {
    valid: async (world) => request({ path: { id: world.item.id } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'recurringItemNotFound') },
  },
  deleteRecurringItem: {
    // Deleting again answers the same deleted item.
    valid: async (world) => request({ path: { id: await world.newItem() } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'recurringItemNotFound') },
    fuzzShare: 0.3,
  },
  createBillingConfig: {
    valid: async () =>
      request({
        body: {
          config: {
            interval_count: 1,
            billing_interval: 'monthly',
            billing_type: 'customized',
            billing_day_of_month: 31,
            billing_proration_enabled: true,
            description: 'Month ends',
          },
        },
      }),
    repeatable: true,
    freeText: 'body.config.description',
  },
  listBillingConfigs: {
    valid: async () => request({ query: { offset: '0', limit: '5', 'filter[billing_interval][_eq]': 'monthly' } }),
    repeatable: true,
    names: {
      'query.filter[id][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[id][_eq]': world.config.id } }),
      ),
    },
  },
  getBillingConfig: {
    valid: async (world) => request({ path: { id: world.config.id } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'billingConfigNotFound') },
  },
  deleteBillingConfig: {
    valid: async (world) => request({ path: { id: await world.newBillingConfig() } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'billingConfigNotFound') },
    fuzzShare: 0.3,
  },

  createRecurringPlan: {
    valid: async (world) =>
      request({
        body: {
          plan: {
            name: 'Gold',
            reference_number: world.unique('plan'),
            customer_uuid: world.customer.uuid,
            default_payment_token: world.token.token,
            note: 'Thank you',
            cycles: [
              {
                recurring_items: [{ id: world.item.id, quantity: 1 }],
                recurring_billing_config: world.config.id,
                interval_counts: 12,
                estimated_start_date: FAR_START,
              },
            ],
          },
        },
      }),
    // No free-text field: the same reference with other text is another plan's content, refused (500302).
    repeatable: true,
    names: {
      'body.plan.reference_number': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) =>
          world.call('GET', `/svc/payment/api/v1/openapi/recurring_payments/plan/${data.plan.id}`),
      },
      'body.plan.customer_uuid': CUSTOMER,
      'body.plan.default_payment_token': PAYMENT_TOKEN,
      'body.plan.cycles[].recurring_items[].id': lookup(unknownUuid, 'recurringItemNotFound'),
    },
    fuzzShare: 0.3,
  },
  listRecurringPlans: {
    valid: async () => request({ query: { offset: '0', limit: '5', 'filter[state][_eq]': 'active' } }),
    repeatable: true,
    names: {
      'query.filter[customer_uuid][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[customer_uuid][_eq]': world.customer.uuid } }),
      ),
    },
  },
  getRecurringPlan: {
    valid: async (world) => request({ path: { id: world.plan.id } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'planNotFound') },
  },
  updateRecurringPlan: {
    valid: async (world) =>
      request({
        path: { id: await world.newPlan() },
        body: {
          plan: {
            name: 'Gold (changed)',
            note: 'Thanks again',
            default_payment_token: world.token.token,
            payment_retry_count: 2,
            payment_retry_day_period: 2,
          },
        },
      }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'planNotFound'), 'body.plan.default_payment_token': PAYMENT_TOKEN },
    freeText: 'body.plan.note',
    fuzzShare: 0.3,
  },
  addRecurringPlanCycles: {
    // Adding again appends after the added cycle, but a variant without interval_counts (a cycle that never ends)
    // would make every later add refused: a fresh plan each time.
    valid: async (world) =>
      request({
        path: { id: await world.newPlan() },
        body: {
          cycles: [
            {
              recurring_items: [{ id: world.item.id, quantity: 2 }],
              recurring_billing_config: world.config.id,
              interval_counts: 1,
            },
          ],
        },
      }),
    repeatable: false,
    names: {
      'path.id': lookup(unknownUuid, 'planNotFound'),
      'body.cycles[].recurring_items[].id': lookup(unknownUuid, 'recurringItemNotFound'),
    },
    fuzzShare: 0.3,
  },
  cancelRecurringPlan: {
    // At the next billing time (asked again, the same pending cancellation), but a variant asking `immediate` ends
    // the plan, and cancelling an ended plan is refused (500305): a fresh plan each time.
    valid: async (world) =>
      request({ path: { id: await world.newPlan() }, body: { activate_type: 'next_billing_date' } }),
    repeatable: false,
    names: { 'path.id': lookup(unknownUuid, 'planNotFound') },
    fuzzShare: 0.3,
  },
  recoverRecurringPlan: {
    // Once recovered, no cancellation is pending: recovering again is refused (500304).
    valid: async (world) => request({ path: { id: await world.newPlan({ pendingCancel: true }) } }),
    repeatable: false,
    names: { 'path.id': lookup(unknownUuid, 'planNotFound') },
    fuzzShare: 0.3,
  },

  listRecurringPlanOrders: {
    valid: async (world) =>
      request({
        query: {
          offset: '0',
          limit: '5',
          'filter[plan.id][_eq]': world.plan.id,
          'filter[order.state][_eq]': 'invoiced',
        },
      }),
    repeatable: true,
    names: {
      'query.filter[plan.id][_eq]': lookup(unknownUuid, 'success'),
      'query.filter[customer.uuid][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[customer.uuid][_eq]': world.customer.uuid } }),
      ),
    },
  },
  checkRecurringPlanOrder: {
    valid: async (world) =>
      request({ body: { customer_uuid: world.customer.uuid, order: { number: world.planOrder.number } } }),
    repeatable: true,
    names: {
      'body.customer_uuid': lookup(unknownUuid, 'orderNotFound'),
      'body.order.number': lookup(unknownOrderNumber, 'orderNotFound'),
    },
  },

  listOrderEvents: {
    valid: async (world) => request({ body: { order: orderBy('number', world.event.order) } }),
    repeatable: true,
    names: {
      'body.order.number': lookup(unknownOrderNumber, 'orderNotFound'),
      'body.order.reference_number': lookup(unknownReference, 'orderNotFound', async (world) =>
        request({ body: { order: orderBy('reference_number', world.event.order) } }),
      ),
      'body.transaction.uuid': lookup(unknownUuid, 'transactionNotFound', async (world) =>
        request({ body: { transaction: { uuid: world.paidOrder.transactionUuid } } }),
      ),
    },
    fuzzShare: 0.25,
  },
  redeliverEvent: {
    valid: async (world) => request({ body: { event_id: world.event.id } }),
    repeatable: true,
    names: { 'body.event_id': lookup(unknownUuid, 'eventNotFound') },
    fuzzShare: 0.25,
  },

  getBalances: {
    valid: async () => request({}),
    repeatable: true,
  },
  listBalanceTransactions: {
    valid: async () => request({ query: { offset: '0', limit: '5', 'filter[type][_eq]': 'payment' } }),
    repeatable: true,
    names: {
      'query.filter[source.id][_eq]': lookup(unknownUuid, 'success', async (world) =>
        request({ query: { 'filter[source.id][_eq]': world.paidOrder.transactionUuid } }),
      ),
    },
  },

  createUser: {
    valid: async (world) => request({ body: { user: newUserBody(world) } }),
    // Each user takes a reference, a phone and a document of its own: the same request again is refused (300013).
    repeatable: false,
    freeText: 'body.user.first_name',
    names: {
      'body.user.reference_id': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) => world.call('GET', `${TREASURY}/user/${data.user_id}`),
      },
      'body.user.phone_number': notAnObject("a phone number, unique among the merchant's users"),
      'body.user.document_number': notAnObject("an identity document's number, unique among the merchant's users"),
    },
  },
  getUser: {
    valid: async (world) => request({ path: { reference_id: world.user.reference } }),
    repeatable: true,
    names: { 'path.reference_id': USER },
  },
  updateUser: {
    // A fresh user each time: a mutated body may give the user another reference.
    valid: async (world) =>
      request({ path: { reference_id: (await world.newUser()).reference }, body: { user: { first_name: 'Tai Man' } } }),
    repeatable: false,
    freeText: 'body.user.first_name',
    names: {
      'path.reference_id': USER,
      // A new reference (or phone, or document) for the user: another merchant's is just an unused one.
      'body.user.reference_id': notAnObject(
        "the user's new reference_id: unique among the merchant's users, refused with 300013 when another has it",
      ),
      'body.user.phone_number': notAnObject("a phone number, unique among the merchant's users"),
      'body.user.document_number': notAnObject("an identity document's number, unique among the merchant's users"),
    },
  },

  createCard: {
    valid: async (world) =>
      request({
        body: {
          card: {
            user_id: world.user.id,
            reference_id: world.unique('card'),
            title: 'Travel',
            type: 'Expense',
            settlement_currency: 'HKD',
            limits: [{ period: 'monthly', limit_amount: '10000.00' }],
          },
        },
      }),
    // A card's reference is its own: the same request again is refused (700103).
    repeatable: false,
    freeText: 'body.card.title',
    names: {
      'body.card.user_id': lookup(unknownUuid, 'cardUserNotFound'),
      'body.card.reference_id': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) => world.call('GET', `${TREASURY}/cards/${data.card.id}`),
      },
    },
  },
  listCards: {
    valid: async () => request({ query: { offset: '0', limit: '5' } }),
    repeatable: true,
    names: {
      'query.user_id': lookup(unknownUuid, 'success', async (world) => request({ query: { user_id: world.user.id } })),
    },
  },
  getCard: { valid: async (world) => ofCard(world.card.id), repeatable: true, names: { 'path.id': CARD } },
  getCardFullNumber: { valid: async (world) => ofCard(world.card.id), repeatable: true, names: { 'path.id': CARD } },
  listCardLimitChanges: { valid: async (world) => ofCard(world.card.id), repeatable: true, names: { 'path.id': CARD } },
  lockCard: {
    valid: async (world) => ofCard(await world.newCard()),
    repeatable: false,
    names: { 'path.id': CARD },
    fuzzShare: 0.25,
  },
  unlockCard: {
    valid: async (world) => ofCard(await world.newCard({ locked: true })),
    repeatable: false,
    names: { 'path.id': CARD },
    fuzzShare: 0.25,
  },
  terminateCard: {
    valid: async (world) => ofCard(await world.newCard()),
    repeatable: false,
    names: { 'path.id': CARD },
    fuzzShare: 0.25,
  },
  setCardLimits: {
    valid: async (world) =>
      request({
        path: { id: await world.newCard() },
        body: { limits: [{ period: 'lifetime', limit_amount: '50000' }] },
      }),
    repeatable: false,
    names: { 'path.id': CARD },
    fuzzShare: 0.25,
  },

  listCardTransactions: {
    valid: async (world) => request({ query: { offset: '0', limit: '5', card: world.card.id } }),
    repeatable: true,
    names: { 'query.card': lookup(unknownUuid, 'success') },
  },
  setAuthorizationEndpoint: {
    // Nothing listens there: the world's later authorisations are refused the connection at once and approved by
    // default.
    valid: async () => request({ body: { url: 'http://127.0.0.1:9/authorizations', default_decision: 'approve' } }),
    repeatable: true,
    isolated: true,
    fuzzShare: 0.25,
  },
  removeAuthorizationEndpoint: { valid: async () => request({}), repeatable: true, fuzzShare: 0.25 },
  simulateAuthorization: {
    valid: async (world) => request({ body: networkSpend(world.card.id) }),
    repeatable: true,
    names: {
      'body.card_id': lookup(unknownUuid, 'cardNotFound'),
      'body.merchant.id': notAnObject("the card network's merchant: not an object of the merchant"),
    },
    fuzzShare: 0.25,
  },
  simulateCardRefund: {
    valid: async (world) => request({ body: networkSpend(world.card.id) }),
    repeatable: true,
    names: {
      'body.card_id': lookup(unknownUuid, 'cardNotFound'),
      'body.merchant.id': notAnObject("the card network's merchant: not an object of the merchant"),
    },
    fuzzShare: 0.25,
  },
  simulateWithdrawal: {
    valid: async (world) => request({ body: networkSpend(world.card.id) }),
    repeatable: true,
    names: {
      'body.card_id': lookup(unknownUuid, 'cardNotFound'),
      'body.merchant.id': notAnObject("the card network's merchant: not an object of the merchant"),
    },
    fuzzShare: 0.25,
  },
  simulateIncrement: {
    valid: async (world) => request({ path: { id: world.cardTransaction.id }, body: { amount: '0.01' } }),
    repeatable: true,
    names: { 'path.id': AUTHORIZATION },
    fuzzShare: 0.25,
  },
  simulateReversal: {
    valid: async (world) => request({ path: { id: await world.newAuthorization() }, body: { amount: '0.50' } }),
    repeatable: false,
    names: { 'path.id': AUTHORIZATION },
    fuzzShare: 0.25,
  },
  simulateSettlement: {
    valid: async (world) =>
      request({ path: { id: await world.newAuthorization() }, body: { amount: '1.00', currency: 'HKD' } }),
    repeatable: false,
    names: { 'path.id': AUTHORIZATION },
    fuzzShare: 0.25,
  },

  createPayee: {
    valid: async () =>
      request({
        body: {
          payee: {
            type: 'Company',
            nickname: 'Kowloon Stationery',
            email: 'accounts@kowloon.example',
            phone_country_code: '852',
            phone_number: '21234567',
            payout_account: {
              country: 'HK',
              currency: 'HKD',
              transfer_method: 'HK FPS- FPS ID',
              hk_fps: { fps_id: '1234561' },
            },
          },
        },
      }),
    repeatable: true,
    freeText: 'body.payee.nickname',
    names: {
      'body.payee.phone_number': notAnObject("the payee's phone number"),
      'body.payee.payout_account.hk_fps.fps_id': FPS_ID,
      'body.payee.payout_account.hk_fps.bank_account.account_number': notAnObject("the payee's bank account number"),
    },
  },
  listPayees: { valid: async () => request({ query: { offset: '0', limit: '5' } }), repeatable: true },
  getPayee: {
    valid: async (world) => request({ path: { id: world.payee.id } }),
    repeatable: true,
    names: { 'path.id': PAYEE },
  },
  deletePayee: {
    valid: async (world) => request({ path: { id: await world.newPayee() } }),
    repeatable: false,
    names: { 'path.id': PAYEE },
    fuzzShare: 0.25,
  },
  createPayoutRequest: {
    // Scheduled in 2099: nothing runs. Without a reference, so that any remark is accepted (with one, another remark
    // is other content under the same reference: 820004); the reference is tried on its own request.
    valid: async (world) => request({ body: { payout_request: payoutBody(world) } }),
    repeatable: true,
    freeText: 'body.payout_request.remark',
    names: {
      'body.payout_request.payee_id': PAYEE,
      'body.payout_request.reference_id': {
        kind: 'natural-key',
        unused: () => `unused-${randomUUID()}`,
        readBack: (world, data) => world.call('GET', `${TREASURY}/payout_requests/${data.payout_request.id}`),
        request: async (world) =>
          request({ body: { payout_request: { ...payoutBody(world), reference_id: world.unique('payout') } } }),
      },
    },
    fuzzShare: 0.5,
  },
  listPayoutRequests: {
    valid: async () =>
      request({ query: { offset: '0', limit: '5', 'filter[schedule_status][_eq]': 'Pending Approval' } }),
    repeatable: true,
  },
  getPayoutRequest: {
    valid: async (world) => ofPayout(world.payout.id),
    repeatable: true,
    names: { 'path.id': PAYOUT },
  },
  approvePayoutRequest: {
    valid: async (world) => ofPayout(await world.newPayout()),
    repeatable: false,
    names: { 'path.id': PAYOUT },
    fuzzShare: 0.25,
  },
  rejectPayoutRequest: {
    valid: async (world) => ofPayout(await world.newPayout(), { reason: 'Duplicate.' }),
    repeatable: false,
    names: { 'path.id': PAYOUT },
    fuzzShare: 0.25,
  },
  cancelPayoutRequest: {
    valid: async (world) => ofPayout(await world.newPayout(), { reason: 'Paid by cheque.' }),
    repeatable: false,
    names: { 'path.id': PAYOUT },
    fuzzShare: 0.25,
  },
  advanceSandboxPayout: {
    valid: async (world) => ofPayout(await world.newPayout('1.00')),
    repeatable: false,
    names: { 'path.id': PAYOUT },
    fuzzShare: 0.25,
  },

  approveSandboxUser: pendingUser(),
  rejectSandboxUser: pendingUser({ reason: 'The document has expired.' }),
  topUpSandboxBalance: {
    valid: async () => request({ body: { currency: 'HKD', amount: '10.00' } }),
    repeatable: true,
    fuzzShare: 0.25,
  },
  listInbox: {
    valid: async () => request({ query: { event_type: 'order.created', 'filter[answer.status][_gte]': '200' } }),
    repeatable: true,
  },
  getCapture: {
    valid: async (world) => request({ path: { id: await world.newCapture() } }),
    repeatable: true,
    names: { 'path.id': lookup(unknownUuid, 'captureNotFound') },
    fuzzShare: 0.25,
  },
  clearInbox: {
    valid: async () => request({}),
    repeatable: true,
    isolated: true,
  },
  listInboxTaps: {
    valid: async () => request({}),
    repeatable: true,
  },
  tapEndpoint: {
    valid: async () => request({ body: { endpoint: 'http://127.0.0.1:9/tapped' } }),
    repeatable: true,
  },
  untapEndpoint: {
    valid: async () => request({ body: { endpoint: 'http://127.0.0.1:9/tapped' } }),
    repeatable: true,
  },
  addFaultRule: {
    valid: async () => request({ body: { endpoint: 'http://127.0.0.1:9/never', status: 503, next: 1 } }),
    repeatable: true,
    // A merchant keeps at most 100 rules: fewer cases than that, so that every valid one is taken.
    fuzzShare: 0.05,
  },
  streamEvents: {
    // The stream ends after a second: a stream kept open would hold every test that sends it.
    valid: async () => request({ query: { max_seconds: '1', events: 'order.*' } }),
    repeatable: true,
    fuzzShare: 0.1,
  },
  listFaultRules: {
    valid: async () => request({}),
    repeatable: true,
  },
  removeFaultRule: {
    valid: async (world) => request({ path: { id: await world.newFaultRule() } }),
    repeatable: false,
    names: { 'path.id': lookup(unknownUuid, 'faultRuleNotFound') },
  },
  readSandboxClock: {
    valid: async () => request({}),
    repeatable: true,
    fuzzShare: 0.25,
  },
  advanceSandboxClock: {
    valid: async () => request({ body: { advance_seconds: 60 } }),
    repeatable: true,
    isolated: true,
    // A case may move the clock up to 400 days, running all that falls due on the way.
    fuzzShare: 0.1,
  },
  saveSandboxSnapshot: {
    valid: async (world) => request({ body: { name: world.unique('snap') } }),
    repeatable: false,
    names: {
      // Names are per merchant: another merchant's is a free one, and saves a snapshot of the caller's own.
      'body.name': {
        kind: 'natural-key',
        unused: () => `snap-${randomUUID()}`,
        readBack: (world, data) => world.readSnapshot(data.snapshot.name),
      },
    },
    fuzzShare: 0.25,
  },
  listSandboxSnapshots: { valid: async () => request({}), repeatable: true, fuzzShare: 0.25 },
  restoreSandboxSnapshot: {
    valid: async (world) => request({ path: { name: await world.newSnapshot() } }),
    repeatable: true,
    names: { 'path.name': SNAPSHOT },
    isolated: true,
    replacesWorld: true,
    fuzzShare: 0.25,
  },
  deleteSandboxSnapshot: {
    valid: async (world) => request({ path: { name: await world.newSnapshot() } }),
    repeatable: false,
    names: { 'path.name': SNAPSHOT },
    fuzzShare: 0.25,
  },
  resetSandbox: {
    valid: async () => request({}),
    repeatable: true,
    isolated: true,
    replacesWorld: true,
    fuzzShare: 0.1,
  },
  succeedSandboxTransaction: completePayment,
  failSandboxTransaction: completePayment,
  succeedSandboxPaymentToken: settleToken,
  failSandboxPaymentToken: settleToken,
  runLabTrigger: {
    valid: async () => request({ body: { event: 'order.paid', set: { currency: 'USD' } } }),
    // Each run makes fresh objects under fresh references.
    repeatable: true,
    // Some triggers move the merchant's clock.
    isolated: true,
    fuzzShare: 0.1,
    names: {
      'body.set.customer_uuid': lookup(unknownUuid, 'customerNotFound', async (world) =>
        request({ body: { event: 'payment_token.succeeded', set: { customer_uuid: world.customer.uuid } } }),
      ),
      'body.set.user_id': lookup(unknownUuid, 'cardUserNotFound', async (world) =>
        request({ body: { event: 'card.created', set: { user_id: world.user.id } } }),
      ),
    },
  },
};

/** The fixture of an operation; fails, naming it, when it has none. */
export function fixtureOf(operation: Operation): RouteFixture {
  const fixture = ROUTE_FIXTURES[operation.operationId];
  if (!fixture) throw new Error(missingFixture(operation));
  return fixture;
}

function missingFixture(operation: Operation): string {
  return (
    `operationId ${operation.operationId} (${operation.method} ${operation.path}) needs a fixture: ` +
    'add an entry to ROUTE_FIXTURES in test/support/route-fixtures.ts'
  );
}

/** The document's operations that have no fixture, each with what to do. */
export function operationsWithoutFixture(operations: readonly Operation[]): string[] {
  return operations.filter((operation) => !ROUTE_FIXTURES[operation.operationId]).map(missingFixture);
}

/**
 * Everything the registry lacks for the document's operations: operations without a fixture, naming places
 * without a `names` entry, and entries for operations the document no longer has.
 */
export function registryGaps(operations: readonly Operation[]): string[] {
  const gaps = operationsWithoutFixture(operations);
  for (const operation of operations) {
    const fixture = ROUTE_FIXTURES[operation.operationId];
    for (const location of fixture ? namingLocations(operation) : []) {
      if (!fixture?.names?.[location]) {
        gaps.push(
          `operationId ${operation.operationId}: ${location} may name an object: say what it names in its fixture's names ` +
            '(a lookup, a natural key, or not an object and why)',
        );
      }
    }
  }
  const documented = new Set(operations.map((operation) => operation.operationId));
  for (const operationId of Object.keys(ROUTE_FIXTURES)) {
    if (!documented.has(operationId))
      gaps.push(`ROUTE_FIXTURES has ${operationId}, which the OpenAPI document does not: remove it`);
  }
  return gaps;
}
