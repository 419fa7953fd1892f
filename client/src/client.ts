import { createPrivateKey, type KeyObject, randomUUID } from 'node:crypto';
import type { RequestOptions } from './calls.js';
import { IDEMPOTENCY_IN_PROGRESS, PaygateConnectionError, PaygateError } from './errors.js';

import { EventsApi } from './lab-events.js';
import { FaultsApi, InboxApi } from './lab-inbox.js';
import { LabSnapshotsApi } from './lab-snapshots.js';
import { LabTriggersApi } from './lab-triggers.js';
import { signRequest } from './signing.js';
import type {
  AmountInput,
  AutoDebitWallet,
  Balance,
  BalanceTransactionPage,
  BatchErrorPage,
  BatchInfo,
  BatchInput,
  BatchPage,
  BatchWithTransactions,
  BillingConfig,
  BillingConfigInput,
  BillingConfigPage,
  BindCardInput,
  CardLimitsInput,
  CardSpend,
  CardTransaction,
  Customer,
  CustomerFields,
  CustomerInput,
  Envelope,
  EnvelopeOperationId,
  ErrorEnvelope,
  IssuedCard,
  IssuedCardInput,
  IssuedCardPage,
  ListPage,
  Order,
  OrderInput,
  OrderListQuery,
  OrderLookup,
  OrderPage,
  OrderReference,
  OrderWithDownloadLink,
  OrderWithPaymentLink,
  OrderWithTransaction,
  Payee,
  PayeeInput,
  PayeePage,
  PaymentInput,
  PaymentToken,
  PayoutInput,
  PayoutRequest,
  PayoutRequestPage,
  RecurringCycleInput,
  RecurringItem,
  RecurringItemInput,
  RecurringItemPage,
  RecurringPlan,
  RecurringPlanCancel,
  RecurringPlanChanges,
  RecurringPlanInput,
  RecurringPlanOrder,
  RecurringPlanOrderLookup,
  RecurringPlanPage,
  ReplyData,
  RequestBody,
  SandboxClock,
  SimulatedCardTransaction,
  User,
  UserChange,
  UserInput,
  WalletLink,
  WebhookEvent,
} from './types.js';

export type { RequestOptions } from './calls.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface PaygateClientOptions {
  baseUrl: string;
  appId: string;
  /** The merchant's RSA private key, as PEM text or a key object. */
  privateKey: string | KeyObject;
  retry?: Partial<RetryPolicy>;
  /** Per attempt. */
  timeoutMs?: number;
  /** Sent with every request, like the official SDKs; without it each request gets a fresh id. */
  requestId?: string;
  fetch?: typeof fetch;
}

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed envelope, or undefined when the reply was not JSON. */
  json: unknown;
  /** The X-Request-ID sent; paygate echoes it, a proxy's own error page may not. */
  requestId: string;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 5_000 };

export class PaygateClient {
  readonly customers: CustomersApi;
  readonly orders: OrdersApi;
  readonly transactions: TransactionsApi;
  readonly recurring: RecurringApi;
  readonly batches: BatchesApi;
  readonly balances: BalancesApi;
  readonly users: UsersApi;
  readonly cards: CardsApi;
  readonly payees: PayeesApi;
  readonly payouts: PayoutsApi;
  readonly sandbox: SandboxApi;
  readonly webhooks: WebhooksApi;
  readonly inbox: InboxApi;
  readonly events: EventsApi;
  readonly faults: FaultsApi;
  /** The sandbox lab's named snapshots of the merchant's world, and reset (docs/lab.md). */
  readonly labSnapshots: LabSnapshotsApi;
  readonly labTriggers: LabTriggersApi;
  private readonly baseUrl: string;
  private readonly privateKey: KeyObject;
  private readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: PaygateClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.privateKey =
      typeof options.privateKey === 'string' ? createPrivateKey(options.privateKey) : options.privateKey;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
    this.customers = new CustomersApi(this);
    this.orders = new OrdersApi(this);
    this.transactions = new TransactionsApi(this);
    this.recurring = new RecurringApi(this);
    this.batches = new BatchesApi(this);
    this.balances = new BalancesApi(this);
    this.users = new UsersApi(this);
    this.cards = new CardsApi(this);
    this.payees = new PayeesApi(this);
    this.payouts = new PayoutsApi(this);
    this.sandbox = new SandboxApi(this);
    this.webhooks = new WebhooksApi(this);
    this.inbox = new InboxApi(this);
    this.events = new EventsApi(this);
    this.faults = new FaultsApi(this);
    this.labSnapshots = new LabSnapshotsApi(this);
    this.labTriggers = new LabTriggersApi(this);
  }

  /** Signature self-test: paygate answers with the same message. */
  async echo(message: RequestBody<'echo'>['message']): Promise<ReplyData<'echo'>> {
    return invoke<'echo'>(this, 'POST', `${GATEWAY}/echo`, { message });
  }

  /** Sends a signed request and returns `data` of a successful reply; throws {@link PaygateError} otherwise. */
  async call<T>(method: string, target: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const reply = await this.send(method, target, body, options);
    const envelope = reply.json as Partial<Envelope<T> & ErrorEnvelope> | undefined;
    if (reply.status === 200 && envelope?.code === 200) return envelope.data as T;
    throw new PaygateError(
      reply.status,
      typeof envelope?.code === 'number' ? envelope.code : reply.status,
      typeof envelope?.error_code === 'string' ? envelope.error_code : String(reply.status),
      typeof envelope?.message === 'string' ? envelope.message : `HTTP ${reply.status}`,
      reply.headers.get('x-request-id') ?? reply.requestId,
    );
  }

  /**
   * Opens a signed GET whose reply is a stream (the lab's server-sent events): the response, its body unread, once the
   * server answered 200; a refusal throws {@link PaygateError}. No time limit: end it with `signal`.
   */
  async open(target: string, options: { signal?: AbortSignal; accept?: string } = {}): Promise<Response> {
    const url = new URL(this.baseUrl + target);
    const path = `${url.pathname}${url.search}`;
    const requestId = this.options.requestId ?? randomUUID();
    const signed = signRequest({
      appId: this.options.appId,
      privateKey: this.privateKey,
      method: 'GET',
      target: path,
      body: '',
    });
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: 'GET',
        headers: {
          accept: options.accept ?? 'text/event-stream',
          'x-request-id': requestId,
          credential: signed.Credential,
          nonce: signed.Nonce,
          signature: signed.Signature,
        },
        signal: options.signal,
      });
    } catch (error) {
      throw new PaygateConnectionError(`GET ${target} failed: ${describe(error)}`, requestId, { cause: error });
    }
    if (response.status === 200) return response;
    const text = await response.text();
    const envelope = parseJson(text) as Partial<ErrorEnvelope> | undefined;
    throw new PaygateError(
      response.status,
      typeof envelope?.code === 'number' ? envelope.code : response.status,
      typeof envelope?.error_code === 'string' ? envelope.error_code : String(response.status),
      typeof envelope?.message === 'string' ? envelope.message : `HTTP ${response.status}`,
      response.headers.get('x-request-id') ?? requestId,
    );
  }

  /** Sends a signed request, retrying where that is safe, and returns the reply whatever its status. */
  async send(method: string, target: string, body?: unknown, options: RequestOptions = {}): Promise<RawReply> {
    const upper = method.toUpperCase();
    const bytes = options.rawBody ?? (body === undefined ? '' : JSON.stringify(body));
    const requestId = options.requestId ?? this.options.requestId ?? randomUUID();
    const retryable = upper === 'GET' || options.idempotencyKey !== undefined;
    const attempts = retryable ? this.retry.maxAttempts : 1;

    for (let attempt = 1; ; attempt += 1) {
      let reply: RawReply;
      try {
        reply = await this.attempt(upper, target, bytes, requestId, options);
      } catch (error) {
        if (attempt >= attempts) {
          throw new PaygateConnectionError(`${upper} ${target} failed: ${describe(error)}`, requestId, {
            cause: error,
          });
        }
        await sleep(this.backoff(attempt) ?? 0);
        continue;
      }
      if (!isTransient(reply) || attempt >= attempts) return reply;
      const wait = this.backoff(attempt, reply.headers.get('retry-after'));
      if (wait === undefined) return reply;
      await sleep(wait);
    }
  }

  private async attempt(
    method: string,
    requestedTarget: string,
    bytes: string | Uint8Array,
    requestId: string,
    options: RequestOptions,
  ): Promise<RawReply> {
    // Sign what will go on the wire: URL parsing percent-encodes spaces, quotes and non-ASCII in the target.
    const url = new URL(this.baseUrl + requestedTarget);
    const target = `${url.pathname}${url.search}`;
    // Each attempt is signed anew: a retry with the old nonce would be refused as a replay.
    const signed = signRequest({ appId: this.options.appId, privateKey: this.privateKey, method, target, body: bytes });
    const hasBody = bytes.length > 0;
    // Header names are case-insensitive: lower-case the caller's so ours replace them instead of joining them.
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    Object.assign(headers, {
      'x-request-id': requestId,
      credential: signed.Credential,
      nonce: signed.Nonce,
      signature: signed.Signature,
      ...(hasBody && { 'content-type': options.contentType ?? 'application/json' }),
      ...(options.idempotencyKey !== undefined && { 'idempotency-key': options.idempotencyKey }),
    });
    const response = await this.fetchImpl(url, {
      method,
      headers,
      body: hasBody ? bytes : undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: parseJson(text), requestId };
  }

  /** Milliseconds to wait before the next attempt; undefined when the server asks for longer than we wait. */
  private backoff(attempt: number, retryAfter?: string | null): number | undefined {
    const asked = retryAfter ? retryAfterMs(retryAfter) : undefined;
    if (asked !== undefined) return asked <= this.retry.maxDelayMs ? asked : undefined;
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/**
 * {@link PaygateClient.call} for one operation (its operationId), typed by what the server declares for it: the
 * body must be the route's body, and the reply is the `data` of its success envelope.
 */
function invoke<Op extends EnvelopeOperationId>(
  client: PaygateClient,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  target: string,
  body: RequestBody<Op>,
  options?: RequestOptions,
): Promise<ReplyData<Op>> {
  return client.call<ReplyData<Op>>(method, target, body, options);
}

/** 429 and 5xx, and a request with the same Idempotency-Key still being processed (a timed-out first attempt). */
function isTransient(reply: RawReply): boolean {
  if (reply.status === 429 || reply.status >= 500) return true;
  return (
    reply.status === 409 && (reply.json as { error_code?: unknown } | undefined)?.error_code === IDEMPOTENCY_IN_PROGRESS
  );
}

/** Retry-After as seconds or as an HTTP date. */
function retryAfterMs(value: string): number | undefined {
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

class CustomersApi {
  constructor(private readonly client: PaygateClient) {}

  /** Creates a customer, or updates the one with the same `reference_number`. */
  async create(customer: CustomerInput, options?: RequestOptions): Promise<Customer> {
    const data = await invoke<'createCustomer'>(this.client, 'POST', `${GATEWAY}/customers`, { customer }, options);
    return data.customer;
  }

  async update(uuid: string, fields: CustomerFields, options?: RequestOptions): Promise<Customer> {
    const data = await invoke<'editCustomer'>(
      this.client,
      'PUT',
      `${GATEWAY}/customers/${encodeURIComponent(uuid)}`,
      fields,
      options,
    );
    return data.customer;
  }

  async get(uuid: string, options?: RequestOptions): Promise<Customer> {
    const data = await invoke<'getCustomer'>(
      this.client,
      'GET',
      `${GATEWAY}/customers/${encodeURIComponent(uuid)}`,
      undefined,
      options,
    );
    return data.customer;
  }

  /** Binds a card to the customer: `pending` with `verify_url` until the cardholder passes 3-D Secure. */
  async bindCard(customerUuid: string, card: BindCardInput, options?: RequestOptions): Promise<PaymentToken> {
    return (
      await invoke<'bindPaymentToken'>(
        this.client,
        'POST',
        `${GATEWAY}/customers/${encodeURIComponent(customerUuid)}/payment_tokens`,
        { card },
        options,
      )
    ).payment_token;
  }

  /** Binds an Alipay or WeChat Pay auto-debit agreement: `pending` with `verify_url` until the payer allows it. */
  async bindWallet(customerUuid: string, wallet: AutoDebitWallet, options?: RequestOptions): Promise<PaymentToken> {
    const body: RequestBody<'bindPaymentToken'> = {};
    body[wallet] = {};
    return (
      await invoke<'bindPaymentToken'>(
        this.client,
        'POST',
        `${GATEWAY}/customers/${encodeURIComponent(customerUuid)}/payment_tokens`,
        body,
        options,
      )
    ).payment_token;
  }

  /** A token's state (operation 8). Without `customerUuid`, the interface's literal `customers/uuid/...` path. */
  async checkToken(
    token: string,
    by: { customerUuid?: string; verifyUuid?: string } = {},
    options?: RequestOptions,
  ): Promise<PaymentToken> {
    const body = { payment_token: { token, ...(by.verifyUuid !== undefined && { verify_uuid: by.verifyUuid }) } };
    return (
      await invoke<'checkPaymentToken'>(
        this.client,
        'POST',
        `${GATEWAY}/customers/${encodeURIComponent(by.customerUuid ?? 'uuid')}/payment_tokens/check`,
        body,
        options,
      )
    ).payment_token;
  }

  async tokens(customerUuid: string, options?: RequestOptions): Promise<PaymentToken[]> {
    return (
      await invoke<'listPaymentTokens'>(
        this.client,
        'GET',
        `${GATEWAY}/customers/${encodeURIComponent(customerUuid)}/payment_tokens`,
        undefined,
        options,
      )
    ).payment_tokens;
  }

  /** A link to a hosted page where the customer binds a card themselves; it expires. */
  async walletLink(customerUuid: string, options?: RequestOptions): Promise<WalletLink> {
    return invoke<'createWalletLink'>(
      this.client,
      'POST',
      `${GATEWAY}/customers/${encodeURIComponent(customerUuid)}/wallet_link`,
      undefined,
      options,
    );
  }

  /** Deletes a token; the customer's default is cleared if it was this one. */
  async deleteToken(customerUuid: string, token: string, options?: RequestOptions): Promise<PaymentToken> {
    return (
      await invoke<'deletePaymentToken'>(
        this.client,
        'DELETE',
        `${GATEWAY}/customers/${encodeURIComponent(customerUuid)}/payment_tokens`,
        { payment_token: { token } },
        options,
      )
    ).payment_token;
  }
}

const GATEWAY = '/svc/payment/api/v1/openapi';
const RECURRING = `${GATEWAY}/recurring_payments`;
const BATCHES = `${GATEWAY}/batch_mit_transactions`;
const TREASURY = '/svc/ts/api/v1/openapi';

class OrdersApi {
  constructor(private readonly client: PaygateClient) {}

  /** Creates an order; the same reference_number and content again returns it. */
  async create(order: OrderInput, options: RequestOptions & { customerUuid?: string } = {}): Promise<Order> {
    const body = { order, ...(options.customerUuid !== undefined && { customer_uuid: options.customerUuid }) };
    return (await invoke<'createOrder'>(this.client, 'POST', `${GATEWAY}/orders`, body, options)).order;
  }

  /** Reads an order by number or reference number, or by one of its transactions' uuid. */
  async check(by: OrderLookup, options?: RequestOptions): Promise<Order> {
    return (await invoke<'checkOrder'>(this.client, 'POST', `${GATEWAY}/orders/check`, by, options)).order;
  }

  /** Creates an order (as `create`) with a link to the hosted payment page to send the payer. */
  async createWithPaymentLink(
    order: OrderInput,
    options: RequestOptions & { customerUuid?: string } = {},
  ): Promise<OrderWithPaymentLink> {
    const body = { order, ...(options.customerUuid !== undefined && { customer_uuid: options.customerUuid }) };
    // Asked for, so present: the declaration has it optional only because it depends on the query.
    return invoke<'createOrder'>(
      this.client,
      'POST',
      `${GATEWAY}/orders?with_payment_link=true`,
      body,
      options,
    ) as Promise<OrderWithPaymentLink>;
  }

  /** A new link to the hosted payment page of an existing order (each call gives a fresh link with its own expiry). */
  async paymentLink(by: OrderLookup, options?: RequestOptions): Promise<OrderWithPaymentLink> {
    return invoke<'checkOrder'>(
      this.client,
      'POST',
      `${GATEWAY}/orders/check?with_payment_link=true`,
      by,
      options,
    ) as Promise<OrderWithPaymentLink>;
  }

  /** A new, expiring link to the order's PDF receipt, downloadable without a signature. */
  async receiptLink(by: OrderLookup, options?: RequestOptions): Promise<OrderWithDownloadLink> {
    return invoke<'checkOrder'>(
      this.client,
      'POST',
      `${GATEWAY}/orders/check?with_download_link=true`,
      by,
      options,
    ) as Promise<OrderWithDownloadLink>;
  }

  /** Pays an order (named by number or reference_number) by card. */
  async pay(order: OrderReference, payment: PaymentInput, options?: RequestOptions): Promise<OrderWithTransaction> {
    return invoke<'payOrder'>(this.client, 'POST', `${GATEWAY}/open_payments`, { ...order, payment }, options);
  }

  /** The order's webhook events, oldest first, each with its deliveries and every attempt. */
  async events(by: RequestBody<'listOrderEvents'>, options?: RequestOptions): Promise<WebhookEvent[]> {
    return (await invoke<'listOrderEvents'>(this.client, 'POST', `${GATEWAY}/orders/events`, by, options)).events;
  }

  /** Voids an unpaid order as a whole. */
  async void(order: OrderReference, options?: RequestOptions): Promise<Order> {
    return (await invoke<'voidOrder'>(this.client, 'POST', `${GATEWAY}/orders/void`, { order }, options)).order;
  }

  /**
   * Lists orders, newest first. `filters` are the query language's parameters, e.g.
   * `{ 'filter[state][_eq]': 'completed', 'filter[created_at][_gte]': '2026-11-01T00:00:00+08:00' }`.
   */
  async list(
    page: {
      offset?: OrderListQuery['offset'];
      limit?: OrderListQuery['limit'];
      customerUuid?: OrderListQuery['customer_uuid'];
      filters?: Record<string, string | string[]>;
    } = {},
    options?: RequestOptions,
  ): Promise<OrderPage> {
    const query = new URLSearchParams();
    if (page.offset !== undefined) query.set('offset', String(page.offset));
    if (page.limit !== undefined) query.set('limit', String(page.limit));
    if (page.customerUuid !== undefined) query.set('customer_uuid', page.customerUuid);
    appendFilters(query, page.filters);
    const text = query.toString();
    return invoke<'listOrders'>(
      this.client,
      'GET',
      `${GATEWAY}/orders/list${text ? `?${text}` : ''}`,
      undefined,
      options,
    );
  }
}

/** The query string of a list page: offset, limit and the query language's filters (repeated keys allowed). */
function listQuery(page: ListPage): string {
  const query = new URLSearchParams();
  if (page.offset !== undefined) query.set('offset', String(page.offset));
  if (page.limit !== undefined) query.set('limit', String(page.limit));
  appendFilters(query, page.filters);
  const text = query.toString();
  return text ? `?${text}` : '';
}

function appendFilters(query: URLSearchParams, filters: ListPage['filters']): void {
  for (const [key, value] of Object.entries(filters ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, item);
  }
}

/** Recurring payments: the items plans sell and the billing configs that say how often (docs/recurring.md). */
class RecurringApi {
  constructor(private readonly client: PaygateClient) {}

  async createItem(item: RecurringItemInput, options?: RequestOptions): Promise<RecurringItem> {
    return (await invoke<'createRecurringItem'>(this.client, 'POST', `${RECURRING}/items`, { item }, options)).item;
  }

  /** Items, newest first, deleted ones included (`filter[deleted_at][_null]=1` for those still usable). */
  async listItems(page: ListPage = {}, options?: RequestOptions): Promise<RecurringItemPage> {
    return invoke<'listRecurringItems'>(this.client, 'GET', `${RECURRING}/items${listQuery(page)}`, undefined, options);
  }

  async getItem(id: string, options?: RequestOptions): Promise<RecurringItem> {
    return (
      await invoke<'getRecurringItem'>(
        this.client,
        'GET',
        `${RECURRING}/items/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).item;
  }

  /** Sets `deleted_at`: the item stays readable and in the plans using it, and no new plan may use it. */
  async deleteItem(id: string, options?: RequestOptions): Promise<RecurringItem> {
    return (
      await invoke<'deleteRecurringItem'>(
        this.client,
        'DELETE',
        `${RECURRING}/items/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).item;
  }

  async createBillingConfig(config: BillingConfigInput, options?: RequestOptions): Promise<BillingConfig> {
    return (
      await invoke<'createBillingConfig'>(this.client, 'POST', `${RECURRING}/billing_configs`, { config }, options)
    ).config;
  }

  async listBillingConfigs(page: ListPage = {}, options?: RequestOptions): Promise<BillingConfigPage> {
    return invoke<'listBillingConfigs'>(
      this.client,
      'GET',
      `${RECURRING}/billing_configs${listQuery(page)}`,
      undefined,
      options,
    );
  }

  async getBillingConfig(id: string, options?: RequestOptions): Promise<BillingConfig> {
    return (
      await invoke<'getBillingConfig'>(
        this.client,
        'GET',
        `${RECURRING}/billing_configs/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).config;
  }

  async deleteBillingConfig(id: string, options?: RequestOptions): Promise<BillingConfig> {
    return (
      await invoke<'deleteBillingConfig'>(
        this.client,
        'DELETE',
        `${RECURRING}/billing_configs/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).config;
  }

  /**
   * Creates a plan (the same reference and content answers the plan made before); billing starts at its first cycle's
   * start.
   */
  async createPlan(plan: RecurringPlanInput, options?: RequestOptions): Promise<RecurringPlan> {
    return (await invoke<'createRecurringPlan'>(this.client, 'POST', `${RECURRING}/plan`, { plan }, options)).plan;
  }

  async getPlan(id: string, options?: RequestOptions): Promise<RecurringPlan> {
    return (
      await invoke<'getRecurringPlan'>(
        this.client,
        'GET',
        `${RECURRING}/plan/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).plan;
  }

  async listPlans(page: ListPage = {}, options?: RequestOptions): Promise<RecurringPlanPage> {
    return invoke<'listRecurringPlans'>(this.client, 'GET', `${RECURRING}/plan${listQuery(page)}`, undefined, options);
  }

  /**
   * Operation 3: the orders plans generated, newest first; filters name the order's, customer's and plan's fields
   * with dots, e.g. `{ 'filter[order.correspondence_state][_eq]': 'paid', 'filter[plan.id][_eq]': planId }`.
   */
  async listOrders(page: ListPage = {}, options?: RequestOptions): Promise<RecurringPlanOrder[]> {
    return invoke<'listRecurringPlanOrders'>(
      this.client,
      'GET',
      `${RECURRING}/orders/list${listQuery(page)}`,
      undefined,
      options,
    );
  }

  /** One generated order by its number (and customer). */
  async checkOrder(lookup: RecurringPlanOrderLookup, options?: RequestOptions): Promise<RecurringPlanOrder> {
    return invoke<'checkRecurringPlanOrder'>(this.client, 'POST', `${RECURRING}/orders/check`, lookup, options);
  }

  /**
   * Cancels a plan now (`immediate`, optionally refunding the unused days) or at its next billing time
   * (`next_billing_date`).
   */
  async cancelPlan(id: string, cancel: RecurringPlanCancel, options?: RequestOptions): Promise<RecurringPlan> {
    return (
      await invoke<'cancelRecurringPlan'>(
        this.client,
        'POST',
        `${RECURRING}/plan/${encodeURIComponent(id)}/cancel`,
        cancel,
        options,
      )
    ).plan;
  }

  /** Undoes a pending `next_billing_date` cancellation, before it takes effect. */
  async recoverPlan(id: string, options?: RequestOptions): Promise<RecurringPlan> {
    return (
      await invoke<'recoverRecurringPlan'>(
        this.client,
        'POST',
        `${RECURRING}/plan/${encodeURIComponent(id)}/recover`,
        undefined,
        options,
      )
    ).plan;
  }

  /** Changes a plan's name, note, token or retry settings; an omitted field keeps its value. */
  async updatePlan(id: string, plan: RecurringPlanChanges, options?: RequestOptions): Promise<RecurringPlan> {
    return (
      await invoke<'updateRecurringPlan'>(
        this.client,
        'PUT',
        `${RECURRING}/plan/${encodeURIComponent(id)}`,
        { plan },
        options,
      )
    ).plan;
  }

  /** Appends cycles after the plan's last one. */
  async addCycles(id: string, cycles: RecurringCycleInput[], options?: RequestOptions): Promise<RecurringPlan> {
    return (
      await invoke<'addRecurringPlanCycles'>(
        this.client,
        'POST',
        `${RECURRING}/plan/${encodeURIComponent(id)}/cycles`,
        { cycles },
        options,
      )
    ).plan;
  }
}

/**
 * Merchant-initiated batches (operation 5): a CSV or XLSX file of payments, captures, voids and refunds
 * (docs/batches.md).
 */
class BatchesApi {
  constructor(private readonly client: PaygateClient) {}

  /** Creates a batch from a file paygate fetches (http or https): pending at once, processed in the background. */
  async create(batch: BatchInput, options?: RequestOptions): Promise<BatchInfo> {
    return (await invoke<'createBatch'>(this.client, 'POST', BATCHES, { batch }, options)).batch_info;
  }

  /** Creates a batch from the file itself, sent as the body (CSV, or an XLSX workbook), signed over its bytes. */
  async upload(
    file: Uint8Array | string,
    how: { kind: 'csv' | 'xlsx'; batchName?: string },
    options: RequestOptions = {},
  ): Promise<BatchInfo> {
    const query =
      how.batchName === undefined ? '' : `?${new URLSearchParams({ batch_name: how.batchName }).toString()}`;
    const type = how.kind === 'csv' ? 'text/csv' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    const data = await this.client.call<ReplyData<'createBatch'>>('POST', `${BATCHES}${query}`, undefined, {
      ...options,
      rawBody: file,
      contentType: type,
    });
    return data.batch_info;
  }

  async list(page: ListPage = {}, options?: RequestOptions): Promise<BatchPage> {
    return invoke<'listBatches'>(this.client, 'GET', `${BATCHES}${listQuery(page)}`, undefined, options);
  }

  /** Operation 5: the batch and a page of the transactions its rows made, in row order. */
  async get(
    id: string,
    page: { offset?: number; limit?: number } = {},
    options?: RequestOptions,
  ): Promise<BatchWithTransactions> {
    return invoke<'getBatchTransactions'>(
      this.client,
      'GET',
      `${BATCHES}/${encodeURIComponent(id)}${listQuery(page)}`,
      undefined,
      options,
    );
  }

  /** The failed rows: row number, column and reason. */
  async errors(
    id: string,
    page: { offset?: number; limit?: number } = {},
    options?: RequestOptions,
  ): Promise<BatchErrorPage> {
    return invoke<'listBatchErrors'>(
      this.client,
      'GET',
      `${BATCHES}/${encodeURIComponent(id)}/errors${listQuery(page)}`,
      undefined,
      options,
    );
  }

  /** Every row and its outcome, as CSV text. */
  async resultFile(id: string, options?: RequestOptions): Promise<string> {
    const reply = await this.client.send('GET', `${BATCHES}/${encodeURIComponent(id)}/result.csv`, undefined, options);
    if (reply.status === 200) return reply.text;
    const envelope = reply.json as Partial<ErrorEnvelope> | undefined;
    throw new PaygateError(
      reply.status,
      typeof envelope?.code === 'number' ? envelope.code : reply.status,
      envelope?.error_code ?? String(reply.status),
      envelope?.message ?? `HTTP ${reply.status}`,
      reply.headers.get('x-request-id') ?? reply.requestId,
    );
  }

  /** Cancels a batch still pending or processing: rows not yet run are skipped. */
  async cancel(id: string, options?: RequestOptions): Promise<BatchInfo> {
    return (
      await invoke<'cancelBatch'>(
        this.client,
        'POST',
        `${BATCHES}/${encodeURIComponent(id)}/cancel`,
        undefined,
        options,
      )
    ).batch_info;
  }
}

/** The merchant's balances and the ledger entries behind them (docs/ledger.md). */
class BalancesApi {
  constructor(private readonly client: PaygateClient) {}

  /** One balance per currency: available, incoming, reserved, on hold. */
  async get(options?: RequestOptions): Promise<Balance[]> {
    return (await invoke<'getBalances'>(this.client, 'GET', `${TREASURY}/balances`, undefined, options)).balances;
  }

  /** The entries that moved the merchant's money, newest first; filters as `{ 'filter[type][_eq]': 'refund' }`. */
  async transactions(page: ListPage = {}, options?: RequestOptions): Promise<BalanceTransactionPage> {
    return invoke<'listBalanceTransactions'>(
      this.client,
      'GET',
      `${TREASURY}/balance_transactions${listQuery(page)}`,
      undefined,
      options,
    );
  }
}

/** Identity-verified users (operation 2): the cardholders of issued cards (docs/issuing.md). */
class UsersApi {
  constructor(private readonly client: PaygateClient) {}

  /** Registers a user; returns its user_id. Its identity check starts at once: read it for verification_status. */
  async create(user: UserInput, options?: RequestOptions): Promise<string> {
    return (await invoke<'createUser'>(this.client, 'POST', `${TREASURY}/user`, { user }, options)).user_id;
  }

  /** A user by its reference_id (or its user_id). */
  async get(referenceId: string, options?: RequestOptions): Promise<User> {
    return (
      await invoke<'getUser'>(
        this.client,
        'GET',
        `${TREASURY}/user/${encodeURIComponent(referenceId)}`,
        undefined,
        options,
      )
    ).user;
  }

  /** Replaces the fields given; a change of identity sends the user to the identity check again. */
  async update(referenceId: string, change: UserChange, options?: RequestOptions): Promise<User> {
    return (
      await invoke<'updateUser'>(
        this.client,
        'PUT',
        `${TREASURY}/user/${encodeURIComponent(referenceId)}`,
        { user: change },
        options,
      )
    ).user;
  }
}

/** Cards issued to approved users (docs/issuing.md). */
class CardsApi {
  constructor(private readonly client: PaygateClient) {}

  async create(card: IssuedCardInput, options?: RequestOptions): Promise<IssuedCard> {
    return (await invoke<'createCard'>(this.client, 'POST', `${TREASURY}/cards`, { card }, options)).card;
  }

  /** A page of the merchant's cards, newest first (only one user's with `user_id`). */
  async list(
    page: { offset?: number; limit?: number; user_id?: string } = {},
    options?: RequestOptions,
  ): Promise<IssuedCardPage> {
    const { user_id: userId, ...rest } = page;
    return invoke<'listCards'>(
      this.client,
      'GET',
      `${TREASURY}/cards${listQuery({ ...rest, ...(userId !== undefined && { filters: { user_id: userId } }) })}`,
      undefined,
      options,
    );
  }

  async get(id: string, options?: RequestOptions): Promise<IssuedCard> {
    return (
      await invoke<'getCard'>(this.client, 'GET', `${TREASURY}/cards/${encodeURIComponent(id)}`, undefined, options)
    ).card;
  }

  /** The full number and CVV (every read is audited). */
  async fullNumber(id: string, options?: RequestOptions): Promise<ReplyData<'getCardFullNumber'>['card']> {
    return (
      await invoke<'getCardFullNumber'>(
        this.client,
        'GET',
        `${TREASURY}/cards/${encodeURIComponent(id)}/full_number`,
        undefined,
        options,
      )
    ).card;
  }

  async lock(id: string, options?: RequestOptions): Promise<IssuedCard> {
    return (
      await invoke<'lockCard'>(
        this.client,
        'POST',
        `${TREASURY}/cards/${encodeURIComponent(id)}/lock`,
        undefined,
        options,
      )
    ).card;
  }

  async unlock(id: string, options?: RequestOptions): Promise<IssuedCard> {
    return (
      await invoke<'unlockCard'>(
        this.client,
        'POST',
        `${TREASURY}/cards/${encodeURIComponent(id)}/unlock`,
        undefined,
        options,
      )
    ).card;
  }

  /** For good. */
  async terminate(id: string, options?: RequestOptions): Promise<IssuedCard> {
    return (
      await invoke<'terminateCard'>(
        this.client,
        'POST',
        `${TREASURY}/cards/${encodeURIComponent(id)}/terminate`,
        undefined,
        options,
      )
    ).card;
  }

  /** Replaces every limit: a period left out has none any more. */
  async setLimits(id: string, limits: CardLimitsInput, options?: RequestOptions): Promise<IssuedCard> {
    return (
      await invoke<'setCardLimits'>(
        this.client,
        'PUT',
        `${TREASURY}/cards/${encodeURIComponent(id)}/limits`,
        { limits },
        options,
      )
    ).card;
  }

  /** Operation 4: card transactions, newest first; one card's with `card`. */
  async transactions(
    page: { offset?: number; limit?: number; card?: string } = {},
    options?: RequestOptions,
  ): Promise<CardTransaction[]> {
    const { card, ...rest } = page;
    const query = listQuery({ ...rest, ...(card !== undefined && { filters: { card } }) });
    return (
      await invoke<'listCardTransactions'>(this.client, 'GET', `${TREASURY}/transactions${query}`, undefined, options)
    ).transactions;
  }

  /** Registers the real-time authorisation endpoint (signed requests; 2 seconds to answer, then the default). */
  async setAuthorizationEndpoint(
    endpoint: RequestBody<'setAuthorizationEndpoint'>,
    options?: RequestOptions,
  ): Promise<ReplyData<'setAuthorizationEndpoint'>['authorization_endpoint']> {
    return (
      await invoke<'setAuthorizationEndpoint'>(
        this.client,
        'PUT',
        `${TREASURY}/issuing/authorization_endpoint`,
        endpoint,
        options,
      )
    ).authorization_endpoint;
  }

  async removeAuthorizationEndpoint(options?: RequestOptions): Promise<boolean> {
    return (
      await invoke<'removeAuthorizationEndpoint'>(
        this.client,
        'DELETE',
        `${TREASURY}/issuing/authorization_endpoint`,
        undefined,
        options,
      )
    ).removed;
  }

  async limitChanges(id: string, options?: RequestOptions): Promise<ReplyData<'listCardLimitChanges'>['changes']> {
    return (
      await invoke<'listCardLimitChanges'>(
        this.client,
        'GET',
        `${TREASURY}/cards/${encodeURIComponent(id)}/limit_changes`,
        undefined,
        options,
      )
    ).changes;
  }
}

/** Payees: who payouts go to, each with a Hong Kong FPS account (docs/payouts.md). */
class PayeesApi {
  constructor(private readonly client: PaygateClient) {}

  async create(payee: PayeeInput, options?: RequestOptions): Promise<Payee> {
    return (await invoke<'createPayee'>(this.client, 'POST', `${TREASURY}/payees`, { payee }, options)).payee;
  }

  /** A page of the merchant's payees, newest first. */
  async list(page: { offset?: number; limit?: number } = {}, options?: RequestOptions): Promise<PayeePage> {
    return invoke<'listPayees'>(this.client, 'GET', `${TREASURY}/payees${listQuery(page)}`, undefined, options);
  }

  async get(id: string, options?: RequestOptions): Promise<Payee> {
    return (
      await invoke<'getPayee'>(this.client, 'GET', `${TREASURY}/payees/${encodeURIComponent(id)}`, undefined, options)
    ).payee;
  }

  /** Refused while a payout to the payee is in flight. */
  async delete(id: string, options?: RequestOptions): Promise<ReplyData<'deletePayee'>> {
    return invoke<'deletePayee'>(
      this.client,
      'DELETE',
      `${TREASURY}/payees/${encodeURIComponent(id)}`,
      undefined,
      options,
    );
  }
}

/** Payout requests (operation 9): approval, scheduling, and the transfer's progress at the bank (docs/payouts.md). */
class PayoutsApi {
  constructor(private readonly client: PaygateClient) {}

  async create(payoutRequest: PayoutInput, options?: RequestOptions): Promise<PayoutRequest> {
    return (
      await invoke<'createPayoutRequest'>(
        this.client,
        'POST',
        `${TREASURY}/payout_requests`,
        { payout_request: payoutRequest },
        options,
      )
    ).payout_request;
  }

  /** Newest first; filters as `{ 'filter[schedule_status][_eq]': 'Pending Approval' }`. */
  async list(page: ListPage = {}, options?: RequestOptions): Promise<PayoutRequestPage> {
    return invoke<'listPayoutRequests'>(
      this.client,
      'GET',
      `${TREASURY}/payout_requests${listQuery(page)}`,
      undefined,
      options,
    );
  }

  async get(id: string, options?: RequestOptions): Promise<PayoutRequest> {
    return (
      await invoke<'getPayoutRequest'>(
        this.client,
        'GET',
        `${TREASURY}/payout_requests/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).payout_request;
  }

  async approve(id: string, options?: RequestOptions): Promise<PayoutRequest> {
    return (
      await invoke<'approvePayoutRequest'>(
        this.client,
        'POST',
        `${TREASURY}/payout_requests/${encodeURIComponent(id)}/approve`,
        undefined,
        options,
      )
    ).payout_request;
  }

  async reject(id: string, reason?: string, options?: RequestOptions): Promise<PayoutRequest> {
    const body = reason === undefined ? {} : { reason };
    return (
      await invoke<'rejectPayoutRequest'>(
        this.client,
        'POST',
        `${TREASURY}/payout_requests/${encodeURIComponent(id)}/reject`,
        body,
        options,
      )
    ).payout_request;
  }

  async cancel(id: string, reason?: string, options?: RequestOptions): Promise<PayoutRequest> {
    const body = reason === undefined ? {} : { reason };
    return (
      await invoke<'cancelPayoutRequest'>(
        this.client,
        'POST',
        `${TREASURY}/payout_requests/${encodeURIComponent(id)}/cancel`,
        body,
        options,
      )
    ).payout_request;
  }
}

class TransactionsApi {
  constructor(private readonly client: PaygateClient) {}

  async check(
    transactionUuid: string,
    order?: OrderReference,
    options?: RequestOptions,
  ): Promise<OrderWithTransaction> {
    return invoke<'checkTransaction'>(
      this.client,
      'POST',
      `${GATEWAY}/transactions/check`,
      { ...(order && { order }), transaction: { uuid: transactionUuid } },
      options,
    );
  }

  /** Captures a pre-authorisation, once; all of it when no amount is given. */
  async capture(
    transactionUuid: string,
    amount?: AmountInput,
    options?: RequestOptions,
  ): Promise<OrderWithTransaction> {
    const body = { transaction: { uuid: transactionUuid }, ...(amount !== undefined && { capture: { amount } }) };
    return invoke<'captureTransaction'>(this.client, 'POST', `${GATEWAY}/transactions/capture`, body, options);
  }

  /** Voids a transaction before settlement (or releases an open authorisation). */
  async void(transactionUuid: string, options?: RequestOptions): Promise<OrderWithTransaction> {
    return invoke<'voidTransaction'>(
      this.client,
      'POST',
      `${GATEWAY}/transactions/void`,
      { transaction: { uuid: transactionUuid } },
      options,
    );
  }

  /** Refunds part or all of a settled transaction. */
  async refund(
    transactionUuid: string,
    refund: RequestBody<'refundTransaction'>['refund'],
    options?: RequestOptions,
  ): Promise<OrderWithTransaction> {
    return invoke<'refundTransaction'>(
      this.client,
      'POST',
      `${GATEWAY}/orders/refund`,
      { transaction: { uuid: transactionUuid }, refund },
      options,
    );
  }
}

class WebhooksApi {
  constructor(private readonly client: PaygateClient) {}

  /** Sends an event again, now, to each of its destinations, with a fresh set of retries. */
  async redeliver(eventId: string, options?: RequestOptions): Promise<WebhookEvent> {
    return (
      await invoke<'redeliverEvent'>(
        this.client,
        'POST',
        `${GATEWAY}/webhooks/redeliver`,
        { event_id: eventId },
        options,
      )
    ).event;
  }
}

const SANDBOX = '/svc/sandbox/api/v1';

/** Sandbox mode only. */
class SandboxApi {
  constructor(private readonly client: PaygateClient) {}

  async clock(options?: RequestOptions): Promise<SandboxClock> {
    return invoke<'readSandboxClock'>(this.client, 'GET', `${SANDBOX}/clock`, undefined, options);
  }

  /** Moves the merchant's business clock forward; returns once everything due on the way has run. */
  async advanceClock(
    seconds: RequestBody<'advanceSandboxClock'>['advance_seconds'],
    options?: RequestOptions,
  ): Promise<SandboxClock> {
    return invoke<'advanceSandboxClock'>(
      this.client,
      'POST',
      `${SANDBOX}/clock`,
      { advance_seconds: seconds },
      options,
    );
  }

  /** Completes a pending transaction as the payer would (3-D Secure passed, wallet payment made) ... */
  async succeed(transactionUuid: string, options?: RequestOptions): Promise<OrderWithTransaction> {
    return invoke<'succeedSandboxTransaction'>(
      this.client,
      'POST',
      `${SANDBOX}/transactions/${encodeURIComponent(transactionUuid)}/succeed`,
      undefined,
      options,
    );
  }

  /** ... or fails it (3-D Secure failed, wallet payment refused). */
  async fail(transactionUuid: string, options?: RequestOptions): Promise<OrderWithTransaction> {
    return invoke<'failSandboxTransaction'>(
      this.client,
      'POST',
      `${SANDBOX}/transactions/${encodeURIComponent(transactionUuid)}/fail`,
      undefined,
      options,
    );
  }

  /** Funds the available balance, as money arriving from the merchant's bank would. */
  async topUp(
    topUp: RequestBody<'topUpSandboxBalance'>,
    options?: RequestOptions,
  ): Promise<ReplyData<'topUpSandboxBalance'>> {
    return invoke<'topUpSandboxBalance'>(this.client, 'POST', `${SANDBOX}/balance/top_up`, topUp, options);
  }

  /**
   * Settles a user whose identity check is pending (a last name of `Review`), as the provider finishing its review
   * would.
   */
  async approveUser(userId: string, options?: RequestOptions): Promise<User> {
    return (
      await invoke<'approveSandboxUser'>(
        this.client,
        'POST',
        `${SANDBOX}/users/${encodeURIComponent(userId)}/approve`,
        undefined,
        options,
      )
    ).user;
  }

  async rejectUser(userId: string, reason?: string, options?: RequestOptions): Promise<User> {
    const body = reason === undefined ? {} : { reason };
    return (
      await invoke<'rejectSandboxUser'>(
        this.client,
        'POST',
        `${SANDBOX}/users/${encodeURIComponent(userId)}/reject`,
        body,
        options,
      )
    ).user;
  }

  /** The sandbox bank: moves a payout to its next state now, without moving the clock. */
  async advancePayout(id: string, options?: RequestOptions): Promise<PayoutRequest> {
    return (
      await invoke<'advanceSandboxPayout'>(
        this.client,
        'POST',
        `${SANDBOX}/payout_requests/${encodeURIComponent(id)}/advance`,
        undefined,
        options,
      )
    ).payout_request;
  }

  /** The card network simulator: a purchase with an issued card, approved (held) or declined with its reason. */
  async authorize(purchase: CardSpend, options?: RequestOptions): Promise<SimulatedCardTransaction> {
    return invoke<'simulateAuthorization'>(this.client, 'POST', `${SANDBOX}/issuing/authorizations`, purchase, options);
  }

  async increment(
    authorizationId: string,
    amount: AmountInput,
    options?: RequestOptions,
  ): Promise<SimulatedCardTransaction> {
    return invoke<'simulateIncrement'>(
      this.client,
      'POST',
      `${SANDBOX}/issuing/authorizations/${encodeURIComponent(authorizationId)}/increment`,
      { amount },
      options,
    );
  }

  /** Reverses part of an authorisation, or all of it without an amount. */
  async reverse(
    authorizationId: string,
    amount?: AmountInput,
    options?: RequestOptions,
  ): Promise<SimulatedCardTransaction> {
    const body = amount === undefined ? {} : { amount };
    return invoke<'simulateReversal'>(
      this.client,
      'POST',
      `${SANDBOX}/issuing/authorizations/${encodeURIComponent(authorizationId)}/reverse`,
      body,
      options,
    );
  }

  /** Clears an authorisation: the authorised amount, or another. */
  async settle(
    authorizationId: string,
    clearing: RequestBody<'simulateSettlement'> = {},
    options?: RequestOptions,
  ): Promise<SimulatedCardTransaction> {
    return invoke<'simulateSettlement'>(
      this.client,
      'POST',
      `${SANDBOX}/issuing/authorizations/${encodeURIComponent(authorizationId)}/settle`,
      clearing,
      options,
    );
  }

  async refundToCard(refund: CardSpend, options?: RequestOptions): Promise<SimulatedCardTransaction> {
    return invoke<'simulateCardRefund'>(this.client, 'POST', `${SANDBOX}/issuing/refunds`, refund, options);
  }

  async withdraw(withdrawal: CardSpend, options?: RequestOptions): Promise<SimulatedCardTransaction> {
    return invoke<'simulateWithdrawal'>(this.client, 'POST', `${SANDBOX}/issuing/withdrawals`, withdrawal, options);
  }

  /** Settles a pending card binding as the cardholder passing (`succeed`) or failing 3-D Secure would. */
  async settleToken(token: string, outcome: 'succeed' | 'fail', options?: RequestOptions): Promise<PaymentToken> {
    return (
      await invoke<'succeedSandboxPaymentToken' | 'failSandboxPaymentToken'>(
        this.client,
        'POST',
        `${SANDBOX}/payment_tokens/${encodeURIComponent(token)}/${outcome}`,
        undefined,
        options,
      )
    ).payment_token;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
