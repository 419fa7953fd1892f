import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CARDS, card } from './fixtures.js';
import { type RawReply, signedRaw, type TestMerchant, type TestServer } from './server.js';

/**
 * A merchant with one of everything the signed API can name, made through the API as a client would: a
 * customer with a bound payment token, paid and settled orders, a delivered webhook event; and makers for the
 * objects an operation uses up (an authorisation to capture, a pending payment to complete...). Every object
 * it makes can be read back by any value that names it, to show it unchanged.
 */

export const API = '/svc/payment/api/v1/openapi';
export const SANDBOX = '/svc/sandbox/api/v1';
export const TREASURY = '/svc/ts/api/v1/openapi';

export interface OrderNames {
  number: string;
  reference_number: string;
}

export interface Payment {
  order: OrderNames;
  transactionUuid: string;
}

const DAY_SECONDS = 24 * 60 * 60;

/** How long the file host holds a request for a held file before it answers 404. */
const HOLD_MS = 5_000;
let fileHost: Promise<string> | undefined;

/**
 * Where batches' files are fetched from: `/held/...` is answered only after HOLD_MS (404), so that a batch made
 * from it stays `processing` meanwhile; any other path is answered 404 at once (the batch fails).
 */
function batchFileHost(): Promise<string> {
  fileHost ??= new Promise((resolve) => {
    const host = createServer((request, response) => {
      if (!request.url?.startsWith('/held/')) return void response.writeHead(404).end();
      const timer = setTimeout(() => response.writeHead(404).end(), HOLD_MS);
      timer.unref();
      response.on('close', () => clearTimeout(timer));
    });
    host.listen(0, '127.0.0.1', () => {
      host.unref();
      resolve(`http://127.0.0.1:${(host.address() as AddressInfo).port}`);
    });
  });
  return fileHost;
}

export class MerchantWorld {
  private readonly readers = new Map<string, () => Promise<unknown>>();
  customer!: { uuid: string; reference: string };
  /** Bound successfully (a frictionless card): chargeable, checkable. */
  token!: { token: string; verifyUuid: string };
  /** Paid by a settled sale, with its webhook events delivered to the notify URL. */
  paidOrder!: Payment;
  /** A large settled sale, refunded a cent at a time: refunds of it keep succeeding. */
  refundable!: Payment;
  /** A batch whose file could not be fetched: failed, so it reads the same every time. */
  batch!: { id: string };
  /** The paid order's first event, delivered. */
  event!: { id: string; order: OrderNames };
  /** A recurring item and a billing config, not deleted. */
  item!: { id: string };
  config!: { id: string };
  /** A monthly plan of the customer, paid by the world's token, that starts in 2029. */
  plan!: { id: string };
  /** The first order of the customer's annual plan, paid. */
  planOrder!: { number: string };
  /** An identity-verified user, approved. */
  user!: { id: string; reference: string };
  /** A card of that user, Active, with limits. */
  card!: { id: string };
  /** An authorisation of that card, open (the merchant's HKD balance is funded). */
  cardTransaction!: { id: string };
  /** A payee with an FPS id, and a payout to it waiting for approval (it reads the same until decided). */
  payee!: { id: string };
  payout!: { id: string };
  /** Where the world's webhooks go (a receiver that answers 200). */
  notifyUrl!: string;

  private constructor(
    readonly server: TestServer,
    readonly merchant: TestMerchant,
  ) {}

  /** Builds the world; `notifyUrl` receives the webhooks of its paid order (a receiver that answers 200). */
  static async build(server: TestServer, merchant: TestMerchant, notifyUrl: string): Promise<MerchantWorld> {
    const world = new MerchantWorld(server, merchant);
    await world.populate(notifyUrl);
    return world;
  }

  private async populate(notifyUrl: string): Promise<void> {
    this.notifyUrl = notifyUrl;
    const reference = this.unique('customer');
    const customer = await this.call('POST', `${API}/customers`, {
      customer: { name: 'Chan Tai Man', phone: '91234567', reference_number: reference },
    });
    this.customer = { uuid: customer.customer.uuid, reference };
    const readCustomer = () => this.readCustomer(this.customer.uuid);
    this.remember([this.customer.uuid, reference], readCustomer);

    const bound = await this.call('POST', `${API}/customers/${this.customer.uuid}/payment_tokens`, {
      card: card(CARDS.frictionless),
    });
    assert.equal(bound.payment_token.state, 'success', 'a frictionless card is bound at once');
    this.token = { token: bound.payment_token.token, verifyUuid: bound.payment_token.verify_uuid };
    this.remember([this.token.token, this.token.verifyUuid], () => this.readToken(this.token.token));

    this.paidOrder = await this.newPayment('sale', { amount: '10.00', notifyUrl });
    this.refundable = await this.newPayment('sale', { amount: '100000.00' });

    this.item = { id: await this.newItem() };
    this.config = { id: await this.newBillingConfig() };
    const { plan } = await this.call('POST', `${API}/recurring_payments/plan`, {
      plan: {
        name: 'Gold',
        reference_number: this.unique('plan'),
        customer_uuid: this.customer.uuid,
        default_payment_token: this.token.token,
        // Starting in the future: nothing bills, so reads of it are stable while the route tests compare them.
        cycles: [
          {
            recurring_items: [{ id: this.item.id }],
            recurring_billing_config: this.config.id,
            estimated_start_date: '2029-01-01',
          },
        ],
      },
    });
    this.plan = { id: plan.id };
    this.remember([plan.id], () => this.call('GET', `${API}/recurring_payments/plan/${plan.id}`));
    // A plan that bills at once, and annually: its first order is generated during the clock move below.
    const yearly = await this.call('POST', `${API}/recurring_payments/billing_configs`, {
      config: { billing_interval: 'yearly', billing_type: 'automated' },
    });
    const { plan: billed } = await this.call('POST', `${API}/recurring_payments/plan`, {
      plan: {
        name: 'Annual',
        reference_number: this.unique('plan'),
        customer_uuid: this.customer.uuid,
        default_payment_token: this.token.token,
        cycles: [{ recurring_items: [{ id: this.item.id }], recurring_billing_config: yearly.config.id }],
      },
    });

    // Past the daily settlement: sales can then be refunded.
    await this.call('POST', `${SANDBOX}/clock`, { advance_seconds: DAY_SECONDS + 60 });

    const generated = await this.call('GET', `${API}/recurring_payments/orders/list?filter[plan.id][_eq]=${billed.id}`);
    assert.equal(generated.length, 1, 'the annual plan billed once');
    this.planOrder = { number: generated[0].order.order_number };
    this.remember([this.planOrder.number], () =>
      this.call('POST', `${API}/recurring_payments/orders/check`, { order: this.planOrder }),
    );

    this.user = await this.newUser();
    this.card = { id: await this.newCard() };
    await this.call('POST', `${SANDBOX}/balance/top_up`, { currency: 'HKD', amount: '1000000.00' });
    this.cardTransaction = { id: await this.newAuthorization() };
    this.payee = { id: await this.newPayee() };
    this.payout = { id: await this.newPayout() };

    this.batch = { id: await this.newBatch() };
    for (
      let i = 0;
      i < 200 &&
      (await this.call('GET', `${API}/batch_mit_transactions/${this.batch.id}`)).batch_info.upload_status !== 'failed';
      i += 1
    )
      await sleep(25);

    const events = await this.deliveredEvents(this.paidOrder.order);
    this.event = { id: events[0]!.event_id, order: this.paidOrder.order };
    this.remember([this.event.id], () => this.readEvent(this.event.id, this.event.order));
  }

  /** A value no other test run or merchant uses. */
  unique(label: string): string {
    return `${label}-${randomUUID()}`;
  }

  send(method: string, target: string, body?: unknown): Promise<RawReply> {
    return this.sendRaw(method, target, body === undefined ? undefined : JSON.stringify(body));
  }

  /** A signed request with the body's exact text. */
  sendRaw(method: string, target: string, body?: string, headers: Record<string, string> = {}): Promise<RawReply> {
    // Node's client sends a DELETE body only with its length given (POST and PUT bodies go chunked without).
    const length: Record<string, string> =
      body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    return signedRaw(this.server.url, this.merchant, {
      method,
      target,
      headers: { ...length, ...headers },
      ...(body !== undefined && { body }),
    });
  }

  /** `data` of a successful reply; anything else fails the test. */
  async call(method: string, target: string, body?: unknown): Promise<any> {
    const reply = await this.send(method, target, body);
    assert.equal(reply.status, 200, `${method} ${target}: ${reply.text.slice(0, 300)}`);
    return reply.json.data;
  }

  /** A user of its own reference, phone and document; approved unless its last name steers the identity check. */
  async newUser(lastName = 'Chan'): Promise<{ id: string; reference: string }> {
    const reference = this.unique('user');
    const digits = String(Math.floor(Math.random() * 1e11)).padStart(11, '0');
    const { user_id: id } = await this.call('POST', `${TREASURY}/user`, {
      user: {
        reference_id: reference,
        calling_code: '852',
        phone_number: digits,
        document_type: 'PASSPORT',
        document_number: `P${digits}`,
        first_name: 'Tai Man',
        last_name: lastName,
        date_of_birth: '1990-04-01',
        issuing_country: 'HKG',
      },
    });
    this.remember([id, reference], () => this.call('GET', `${TREASURY}/user/${id}`));
    return { id, reference };
  }

  /** A card of the world's user (Locked when asked). */
  async newCard(options: { locked?: boolean } = {}): Promise<string> {
    const { card } = await this.call('POST', `${TREASURY}/cards`, {
      card: {
        user_id: this.user.id,
        reference_id: this.unique('card'),
        title: 'Travel',
        settlement_currency: 'HKD',
        limits: [
          { period: 'transaction', limit_amount: '2000.00' },
          { period: 'daily', limit_amount: '5000.00' },
        ],
      },
    });
    if (options.locked) await this.call('POST', `${TREASURY}/cards/${card.id}/lock`);
    this.remember([card.id], () => this.call('GET', `${TREASURY}/cards/${card.id}`));
    return card.id;
  }

  /** An open authorisation of the world's card, for a small amount (its limits allow thousands). */
  async newAuthorization(): Promise<string> {
    const { transaction } = await this.call('POST', `${SANDBOX}/issuing/authorizations`, {
      card_id: this.card.id,
      amount: '1.00',
      currency: 'HKD',
      merchant: { id: 'MID-1', name: 'Kiosk', city: 'Hong Kong', country: 'HK', category: '5499' },
    });
    this.remember([transaction.id], () => this.call('GET', `${TREASURY}/transactions?card=${this.card.id}`));
    return transaction.id;
  }

  /** A payee paid by FPS id; the sandbox bank settles its transfers (its id ends in 1). */
  async newPayee(): Promise<string> {
    const { payee } = await this.call('POST', `${TREASURY}/payees`, {
      payee: {
        type: 'People',
        nickname: 'Chan Tai Man',
        payout_account: {
          country: 'HK',
          currency: 'HKD',
          transfer_method: 'HK FPS- FPS ID',
          hk_fps: { fps_id: `${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}1` },
        },
      },
    });
    this.remember([payee.id], () => this.call('GET', `${TREASURY}/payees/${payee.id}`));
    return payee.id;
  }

  /**
   * A payout to the world's payee, scheduled in 2099 so that it never runs by itself: pending approval by default
   * (at or above the default threshold), approved for an amount below it.
   */
  async newPayout(amount = '20000.00'): Promise<string> {
    const { payout_request: payout } = await this.call('POST', `${TREASURY}/payout_requests`, {
      payout_request: {
        payee_id: this.payee.id,
        currency: 'HKD',
        amount,
        callback_url: 'http://127.0.0.1:9/payouts',
        reference_id: this.unique('payout'),
        schedule_at: '2099-01-01T00:00:00Z',
      },
    });
    this.remember([payout.id], () => this.call('GET', `${TREASURY}/payout_requests/${payout.id}`));
    return payout.id;
  }

  /** A capture of the lab's inbox: an order's order.created sent to the world's notify URL, tapped. */
  async newCapture(): Promise<string> {
    await this.call('POST', `${SANDBOX}/inbox/taps`, { endpoint: this.notifyUrl });
    const order = await this.newOrder({ amount: '1.00', notifyUrl: this.notifyUrl });
    for (let tries = 0; tries < 200; tries += 1) {
      const page = await this.call('GET', `${SANDBOX}/inbox?object=${order.number}&event_type=order.created`);
      const id = page.captures[0]?.id as string | undefined;
      if (id) {
        this.remember([id], () => this.call('GET', `${SANDBOX}/inbox/captures/${id}`));
        return id;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no capture of order ${order.number}'s order.created`);
  }

  /** A fault rule on an endpoint nothing sends to: it never applies. */
  async newFaultRule(): Promise<string> {
    const { rule } = await this.call('POST', `${SANDBOX}/faults`, {
      endpoint: 'http://127.0.0.1:9/never',
      status: 503,
      next: 1,
    });
    this.remember([rule.id], async () =>
      (await this.call('GET', `${SANDBOX}/faults`)).rules.find((r: { id: string }) => r.id === rule.id),
    );
    return rule.id;
  }

  /** An unpaid order of the world's customer. */
  async newOrder(options: { amount?: string; notifyUrl?: string } = {}): Promise<OrderNames> {
    const reference = this.unique('order');
    const { order } = await this.call('POST', `${API}/orders`, {
      order: {
        reference_number: reference,
        currency: 'HKD',
        charge_fee: options.amount ?? '100000.00',
        ...(options.notifyUrl !== undefined && { callback_url: options.notifyUrl }),
      },
      customer_uuid: this.customer.uuid,
    });
    const names = { number: order.number, reference_number: reference };
    this.remember([names.number, reference], () => this.readOrder(names));
    return names;
  }

  /**
   * A new order paid by card: a sale (voidable until settled), an authorisation (capturable), or a payment
   * pending its 3-D Secure challenge (to complete through the sandbox).
   */
  async newPayment(
    kind: 'sale' | 'authorisation' | 'challenge',
    options: { amount?: string; notifyUrl?: string } = {},
  ): Promise<Payment> {
    const order = await this.newOrder({
      amount: options.amount ?? '10.00',
      ...(options.notifyUrl !== undefined && { notifyUrl: options.notifyUrl }),
    });
    const paid = await this.call('POST', `${API}/open_payments`, {
      order: { number: order.number },
      payment: {
        credit_card: {
          ...card(kind === 'challenge' ? CARDS.challenge : CARDS.visa),
          consume_mode: kind === 'authorisation' ? 'pre_authorize' : 'sales',
        },
      },
    });
    assert.equal(paid.transaction.is_pending, kind === 'challenge', `a ${kind} is pending only when challenged`);
    const transactionUuid: string = paid.transaction.uuid;
    this.remember([transactionUuid], () => this.readTransaction(transactionUuid));
    return { order, transactionUuid };
  }

  /** A recurring item of HKD 99.90 a unit. */
  /** A plan of its own for a route that changes it (cancels, recovers, extends): starting in the future, 12 months. */
  async newPlan(options: { pendingCancel?: boolean } = {}): Promise<string> {
    const { plan } = await this.call('POST', `${API}/recurring_payments/plan`, {
      plan: {
        name: 'Gold',
        reference_number: this.unique('plan'),
        customer_uuid: this.customer.uuid,
        default_payment_token: this.token.token,
        cycles: [
          {
            recurring_items: [{ id: this.item.id }],
            recurring_billing_config: this.config.id,
            estimated_start_date: '2029-01-01',
            interval_counts: 12,
          },
        ],
      },
    });
    if (options.pendingCancel)
      await this.call('POST', `${API}/recurring_payments/plan/${plan.id}/cancel`, {
        activate_type: 'next_billing_date',
      });
    this.remember([plan.id], () => this.call('GET', `${API}/recurring_payments/plan/${plan.id}`));
    return plan.id;
  }

  async newItem(): Promise<string> {
    const { item } = await this.call('POST', `${API}/recurring_payments/items`, {
      item: { label: 'Gold membership', price: '99.90', currency: 'HKD' },
    });
    this.remember([item.id], () => this.call('GET', `${API}/recurring_payments/items/${item.id}`));
    return item.id;
  }

  /** A monthly billing config. */
  async newBillingConfig(): Promise<string> {
    const { config } = await this.call('POST', `${API}/recurring_payments/billing_configs`, {
      config: { billing_interval: 'monthly', billing_type: 'automated' },
    });
    this.remember([config.id], () => this.call('GET', `${API}/recurring_payments/billing_configs/${config.id}`));
    return config.id;
  }

  /** A batch from a file_url: `held`, it stays processing for a few seconds (to cancel); else it fails at once. */
  async newBatch(options: { held?: boolean } = {}): Promise<string> {
    const fileUrl = `${await batchFileHost()}/${options.held ? 'held/' : ''}${this.unique('dues')}.csv`;
    const { batch_info: batch } = await this.call('POST', `${API}/batch_mit_transactions`, {
      batch: { file_url: fileUrl, batch_name: 'Dues' },
    });
    const read = () => this.call('GET', `${API}/batch_mit_transactions/${batch.id}`);
    // A held batch moves on by itself (processing, then failed when the hold ends): what no other merchant may
    // change is whether it was cancelled, and what the owner gave it.
    this.remember(
      [batch.id],
      options.held
        ? async () => {
            const { batch_info: info } = await read();
            return {
              id: info.id,
              batch_name: info.batch_name,
              created_by: info.created_by,
              deleted_at: info.deleted_at,
              cancelled: info.upload_status === 'cancelled',
            };
          }
        : read,
    );
    return batch.id;
  }

  /** A card binding waiting for its 3-D Secure challenge. */
  async newPendingToken(): Promise<string> {
    const { payment_token: token } = await this.call('POST', `${API}/customers/${this.customer.uuid}/payment_tokens`, {
      card: card(CARDS.visa),
    });
    assert.equal(token.state, 'pending');
    this.remember([token.token, token.verify_uuid], () => this.readToken(token.token));
    return token.token;
  }

  /** The object this world made that `value` names, as its owner reads it now. */
  readBack(value: string): Promise<unknown> {
    const read = this.readers.get(value);
    assert.ok(read, `the world made no object named ${value}: make it through MerchantWorld, so it can be read back`);
    return read();
  }

  private remember(values: string[], read: () => Promise<unknown>): void {
    for (const value of values) this.readers.set(value, read);
  }

  async readCustomer(uuid: string): Promise<unknown> {
    const customer = await this.call('GET', `${API}/customers/${uuid}`);
    const tokens = await this.call('GET', `${API}/customers/${uuid}/payment_tokens`);
    return { ...customer, ...tokens };
  }

  readOrder(order: OrderNames): Promise<unknown> {
    return this.call('POST', `${API}/orders/check`, { order });
  }

  readTransaction(uuid: string): Promise<unknown> {
    return this.call('POST', `${API}/transactions/check`, { transaction: { uuid } });
  }

  /** The interface's literal `customers/uuid/...` path reads a token by its value alone. */
  readToken(token: string): Promise<unknown> {
    return this.call('POST', `${API}/customers/uuid/payment_tokens/check`, { payment_token: { token } });
  }

  async readEvent(id: string, order: OrderNames): Promise<unknown> {
    const { events } = await this.call('POST', `${API}/orders/events`, { order });
    return (events as Array<{ event_id: string }>).find((event) => event.event_id === id);
  }

  /** The order's events once every delivery is done, so reading them again shows the same. */
  private async deliveredEvents(order: OrderNames): Promise<Array<{ event_id: string }>> {
    for (let attempt = 0; ; attempt += 1) {
      const { events } = await this.call('POST', `${API}/orders/events`, { order });
      const deliveries = (events as Array<{ deliveries: Array<{ state: string }> }>).flatMap(
        (event) => event.deliveries,
      );
      if (events.length > 0 && deliveries.length > 0 && deliveries.every((delivery) => delivery.state === 'delivered'))
        return events;
      assert.ok(
        attempt < 200,
        `the webhooks of order ${order.number} were not delivered: ${JSON.stringify(deliveries)}`,
      );
      await sleep(50);
    }
  }
}
