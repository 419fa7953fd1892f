/**
 * Shapes of what paygate returns and accepts. They are not written here but taken from `./generated/openapi.ts`,
 * which `npm run generate:client` makes from the server's own route declarations (the OpenAPI document at
 * `/openapi.json`), so they cannot drift from the server: a test fails while that file is out of date.
 * Only the envelope (the protocol around every reply) and {@link DEFAULT_PAYMENT_METHODS} are written by hand.
 */
import type { operations } from './generated/openapi.js';

// ---- the protocol ----

/** The payment methods a customer may prefer; the server declares its schema with this list. */
export const DEFAULT_PAYMENT_METHODS = ['Credit Card', 'Alipay', 'Wechat Pay'] as const;
export type DefaultPaymentMethod = (typeof DEFAULT_PAYMENT_METHODS)[number];

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export interface ErrorEnvelope {
  code: number;
  error_code: string;
  message: string;
  data: null;
}

// ---- per operation (operationId), from the generated declarations ----

export type OperationId = keyof operations;

type JsonReply<Op extends OperationId> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer R } };
}
  ? R
  : never;

/** Operations whose success reply is the JSON envelope (all but the operators' plain-text ones, such as /metrics). */
export type EnvelopeOperationId = {
  [Op in OperationId]: [JsonReply<Op>] extends [never] ? never : JsonReply<Op> extends { data: unknown } ? Op : never;
}[OperationId];

/** `data` of the operation's success envelope. */
export type ReplyData<Op extends EnvelopeOperationId> = JsonReply<Op> extends { data: infer D } ? D : never;

/** The operation's JSON request body; `undefined` for an operation that takes none. */
export type RequestBody<Op extends OperationId> = JsonBodyOf<Exclude<operations[Op]['requestBody'], undefined>>;

/** A body the operation may also be called without (`requestBody?:`) is typed as one it must have. */
type JsonBodyOf<R> = [R] extends [never]
  ? undefined
  : R extends { content: { 'application/json': infer B } }
    ? B
    : undefined;

/** The operation's query-string parameters (`never` when it has none). */
export type QueryParams<Op extends OperationId> = NonNullable<operations[Op]['parameters']['query']>;

/** The operation's path parameters (`never` when it has none). */
export type PathParams<Op extends OperationId> = NonNullable<operations[Op]['parameters']['path']>;

// ---- customers and payment tokens ----

export type Customer = ReplyData<'getCustomer'>['customer'];
export type PaymentToken = ReplyData<'checkPaymentToken'>['payment_token'];

/**
 * Creates or upserts (by `reference_number`). Optional fields: omit to keep the stored value, send `null` to clear it.
 */
export type CustomerInput = RequestBody<'createCustomer'>['customer'];

/** An edit: the same fields, flat; `reference_number` may be repeated but not changed. */
export type CustomerFields = RequestBody<'editCustomer'>;

/** A card to bind as a payment token (`customers.bindCard`). */
export type BindCardInput = NonNullable<RequestBody<'bindPaymentToken'>['card']>;

/** The auto-debit wallets a customer can bind (`customers.bindWallet`): the members of the bind body besides `card`. */
export type AutoDebitWallet = Exclude<keyof RequestBody<'bindPaymentToken'>, 'card'>;

/** A link to a hosted page where the customer binds a card themselves. */
export type WalletLink = ReplyData<'createWalletLink'>;

// ---- orders and transactions ----

export type Order = ReplyData<'checkOrder'>['order'];
export type Transaction = ReplyData<'checkTransaction'>['transaction'];
export type LineItem = NonNullable<Order['line_items']>[number];
export type PaymentData = Transaction['payment_data'];

export type OrderState = Order['state'];
export type CorrespondenceState = Order['correspondence_state'];
export type TransactionType = Transaction['type'];
export type PurchasableType = LineItem['purchasable_type'];

export type OrderInput = RequestBody<'createOrder'>['order'];
export type LineItemInput = NonNullable<OrderInput['line_items']>[number];
/** Amounts go in as decimal text ("12.50") or JSON numbers (12.5). */
export type AmountInput = OrderInput['charge_fee'];

/** Names an order: by number, by reference number, or both. */
export type OrderReference = NonNullable<RequestBody<'checkOrder'>['order']>;

/** Finds an order to read: by the order (number, reference number) or by one of its transactions' uuid. */
export type OrderLookup = RequestBody<'checkOrder'>;

/** How to pay an order (`orders.pay`): a card, a bound payment token, or a wallet. */
export type PaymentInput = RequestBody<'payOrder'>['payment'];
export type CardInput = NonNullable<PaymentInput['credit_card']>;

export type OrderWithTransaction = ReplyData<'payOrder'>;
export type OrderPage = ReplyData<'listOrders'>;
export type OrderListQuery = QueryParams<'listOrders'>;

/** `data` of createOrder and checkOrder: the order, and the links asked for in the query. */
export type OrderData = ReplyData<'checkOrder'>;

/**
 * An order with a link to its hosted payment page; the link expires (docs/hosted-pages.md). The server declares
 * `payment_link` optional since it is there only when asked for (`with_payment_link=true`): these methods ask.
 */
export type OrderWithPaymentLink = OrderData & Required<Pick<OrderData, 'payment_link'>>;

/** An order with an expiring link to its PDF receipt (asked for, as above, with `with_download_link=true`). */
export type OrderWithDownloadLink = OrderData & Required<Pick<OrderData, 'download_link'>>;

// ---- recurring payments ----

export type RecurringItem = ReplyData<'getRecurringItem'>['item'];
/** An item to create: `price` as decimal text ("99.90") or a JSON number, in the currency's decimals. */
export type RecurringItemInput = RequestBody<'createRecurringItem'>['item'];
export type RecurringItemPage = ReplyData<'listRecurringItems'>;
export type BillingConfig = ReplyData<'getBillingConfig'>['config'];
export type BillingConfigInput = RequestBody<'createBillingConfig'>['config'];
export type BillingConfigPage = ReplyData<'listBillingConfigs'>;
export type RecurringPlan = ReplyData<'getRecurringPlan'>['plan'];
export type RecurringPlanInput = RequestBody<'createRecurringPlan'>['plan'];
export type RecurringPlanPage = ReplyData<'listRecurringPlans'>;
/** Operation 3's record: an order a plan generated, with its customer and the cycle it bills. */
export type RecurringPlanOrder = ReplyData<'checkRecurringPlanOrder'>;
export type RecurringPlanOrderLookup = RequestBody<'checkRecurringPlanOrder'>;
/** `immediate` or `next_billing_date`, and whether an immediate cancellation refunds the unused days. */
export type RecurringPlanCancel = RequestBody<'cancelRecurringPlan'>;
/** The settings a plan may change; an omitted field keeps its value. */
export type RecurringPlanChanges = RequestBody<'updateRecurringPlan'>['plan'];
/** Cycles to append: the cycles of a new plan, without `estimated_start_date`. */
export type RecurringCycleInput = RequestBody<'addRecurringPlanCycles'>['cycles'][number];

/** A page of a list and its filters: the query language's parameters, e.g. `{ 'filter[currency][_eq]': 'HKD' }`. */
export interface ListPage {
  offset?: number;
  limit?: number;
  filters?: Record<string, string | string[]>;
}

// ---- webhooks and the sandbox ----

export type WebhookEvent = ReplyData<'listOrderEvents'>['events'][number];
export type WebhookDelivery = WebhookEvent['deliveries'][number];
export type WebhookAttempt = WebhookDelivery['attempts'][number];

/** The actions paygate sends today (`WebhookEvent.action`, X-Action); the server declares the field as text. */
export type WebhookAction =
  | 'order.created'
  | 'order.authorized'
  | 'order.paid'
  | 'order.payment_failure'
  | 'order.voided'
  | 'order.refunded'
  | 'transaction.voided'
  | 'recurring.plan_created'
  | 'recurring.cycle_started'
  | 'recurring.payment_failed'
  | 'recurring.uncollectible'
  | 'recurring.plan_completed'
  | 'recurring.plan_cancelled'
  | 'batch.completed'
  | 'batch.failed'
  | 'batch.cancelled'
  | 'user.created'
  | 'user.updated'
  | 'user.approved'
  | 'user.rejected'
  | 'card.created'
  | 'card.locked'
  | 'card.unlocked'
  | 'card.terminated'
  | 'card.limits_updated'
  | 'card_transaction.authorized'
  | 'card_transaction.declined'
  | 'card_transaction.incremented'
  | 'card_transaction.reversed'
  | 'card_transaction.expired'
  | 'card_transaction.settled'
  | 'card_transaction.refunded'
  | 'card_transaction.withdrawn';

// ---- merchant-initiated batches ----

export type BatchInput = NonNullable<RequestBody<'createBatch'>['batch']>;
export type BatchInfo = ReplyData<'getBatchTransactions'>['batch_info'];
export type BatchTransaction = ReplyData<'getBatchTransactions'>['transactions'][number];
export type BatchWithTransactions = ReplyData<'getBatchTransactions'>;
export type BatchPage = ReplyData<'listBatches'>;
export type BatchErrorPage = ReplyData<'listBatchErrors'>;

// ---- balances and the ledger ----

export type Balance = ReplyData<'getBalances'>['balances'][number];
export type BalanceTransaction = ReplyData<'listBalanceTransactions'>['balance_transactions'][number];
export type BalanceTransactionPage = ReplyData<'listBalanceTransactions'>;

// ---- identity-verified users ----

export type UserInput = RequestBody<'createUser'>['user'];
export type UserChange = RequestBody<'updateUser'>['user'];
export type User = ReplyData<'getUser'>['user'];

// ---- issued cards ----

export type IssuedCardInput = RequestBody<'createCard'>['card'];
export type CardLimitsInput = RequestBody<'setCardLimits'>['limits'];
export type IssuedCard = ReplyData<'getCard'>['card'];
export type IssuedCardPage = ReplyData<'listCards'>;
export type CardTransaction = ReplyData<'listCardTransactions'>['transactions'][number];
export type CardSpend = RequestBody<'simulateAuthorization'>;
export type SimulatedCardTransaction = ReplyData<'simulateAuthorization'>;

// ---- payees and payouts ----

export type PayeeInput = RequestBody<'createPayee'>['payee'];
export type Payee = ReplyData<'getPayee'>['payee'];
export type PayeePage = ReplyData<'listPayees'>;
export type PayoutInput = RequestBody<'createPayoutRequest'>['payout_request'];
export type PayoutRequest = ReplyData<'getPayoutRequest'>['payout_request'];
export type PayoutRequestPage = ReplyData<'listPayoutRequests'>;

export type SandboxClock = ReplyData<'readSandboxClock'>;

// ---- checks that the hand-written parts still agree with the declarations ----

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
/** The server builds the customer schemas from DEFAULT_PAYMENT_METHODS: the generated list must be the same. */
type _DefaultPaymentMethodsAgree = Assert<Equal<NonNullable<Customer['default_payment_method']>, DefaultPaymentMethod>>;
