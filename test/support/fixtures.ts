import { randomUUID } from 'node:crypto';
import type {
  BindCardInput,
  CardInput,
  Customer,
  CustomerInput,
  Order,
  OrderInput,
  OrderWithTransaction,
  PaygateClient,
} from '@paygate/client';
import { MAX_ADVANCE_SECONDS } from '../../src/sandbox/clock.js';

/**
 * What many tests make, defined once: the sandbox's magic cards (docs/sandbox.md), a card with an expiry that is
 * always ahead of the clock, and orders and customers with fresh references.
 */
export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  jcb: '3530111333300000',
  doNotHonour: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expiredCard: '4000000000000069',
  incorrectCvv: '4000000000000127',
  challenge: '4000000000003220',
  frictionless: '4000000000003055',
  /** Binds (frictionless), then every charge, of its token or of the number, is declined: 51 "Insufficient funds". */
  bindsThenDeclines: '4000000000000341',
  slow: '4000000000006207',
  fault: '4000000000000119',
} as const;

/** December, three years after the year the clock reads now: never in the past, whenever the tests run. */
export function futureExpiry(now: Date = new Date()): { exp_month: string; exp_year: string } {
  return { exp_month: '12', exp_year: String(now.getUTCFullYear() + 3) };
}

/** A card as the API takes it: the number, a future expiry, a CVV and a holder, any of them overridden. */
export function card(number: string = CARDS.visa, extra: Partial<CardInput> = {}): CardInput {
  return { number, ...futureExpiry(), cvv: '123', holder_name: 'Chan Tai Man', ...extra };
}

/** A card to bind as a payment token (there the holder's name is required). */
export function bindingCard(number: string = CARDS.visa, extra: Partial<BindCardInput> = {}): BindCardInput {
  return { number, ...futureExpiry(), cvv: '123', holder_name: 'Chan Tai Man', ...extra };
}

/** The same card as a hosted page's form takes it (the expiry as MM/YY). */
export function pageCard(number: string = CARDS.visa): {
  holder_name: string;
  number: string;
  expiry: string;
  cvv: string;
} {
  const { exp_month, exp_year } = futureExpiry();
  return {
    holder_name: 'Chan Tai Man',
    number: number.replace(/(\d{4})(?=\d)/g, '$1 '),
    expiry: `${exp_month}/${exp_year.slice(2)}`,
    cvv: '123',
  };
}

/** A reference no test has used: `label` and a fresh uuid. */
export const uniqueReference = (label: string) => `${label}-${randomUUID()}`;

/** An HKD order of `charge_fee` under a fresh reference. */
export function orderInput(overrides: Partial<OrderInput> = {}): OrderInput {
  return { reference_number: uniqueReference('ORDER'), currency: 'HKD', charge_fee: '20.00', ...overrides };
}

/** A customer under a fresh reference. */
export function customerInput(overrides: Partial<CustomerInput> = {}): CustomerInput {
  return { reference_number: uniqueReference('CUSTOMER'), name: 'Chan Tai Man', phone: '91234567', ...overrides };
}

/** A new order of the merchant whose client this is. */
export function newOrder(client: PaygateClient, overrides: Partial<OrderInput> = {}): Promise<Order> {
  return client.orders.create(orderInput(overrides));
}

/** A new HKD order of `total`, paid by card: a sale, or with `pre_authorize` an authorisation. */
export async function paidOrder(
  client: PaygateClient,
  total: string,
  consumeMode: CardInput['consume_mode'] = 'sales',
): Promise<OrderWithTransaction> {
  const order = await newOrder(client, { charge_fee: total });
  const paid = await client.orders.pay(
    { number: order.number },
    { credit_card: card(CARDS.visa, { consume_mode: consumeMode }) },
  );
  if (!paid.transaction.success) throw new Error(`the card payment of order ${order.number} did not succeed`);
  return paid;
}

/** A new customer of the merchant whose client this is. */
export function newCustomer(client: PaygateClient, overrides: Partial<CustomerInput> = {}): Promise<Customer> {
  return client.customers.create(customerInput(overrides));
}

/**
 * The first year after this one that is not a leap year. Tests that bill over fixed month ends (28 February, a
 * 31st) set their dates in it, so that the dates stay ahead of the business clock whenever the suite runs.
 */
export function commonYearAhead(now: Date = new Date()): number {
  let year = now.getUTCFullYear() + 1;
  while (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) year += 1;
  return year;
}

/** Moves the merchant's business clock forward to `at` exactly, in moves of at most MAX_ADVANCE_SECONDS. */
export async function moveClockTo(client: PaygateClient, at: string): Promise<void> {
  let now = Date.parse((await client.sandbox.clock()).now);
  const target = Date.parse(at);
  while (now < target) {
    const step = Math.min(Math.ceil((target - now) / 1000), MAX_ADVANCE_SECONDS);
    // A year's move stops at every daily settlement: far longer than the client's default timeout on a loaded machine.
    now = Date.parse((await client.sandbox.advanceClock(step, { timeoutMs: 180_000 })).now);
  }
}
