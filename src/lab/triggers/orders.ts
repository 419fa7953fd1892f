import {
  CreateOrderBody,
  createOrder,
  OpenPaymentBody,
  type OrderView,
  payOrder,
  RefundBody,
  refundTransaction,
  transactionsOfOrder,
  voidOrder,
  voidTransaction,
} from '../../orders/index.js';
import { formatAmount } from '../../platform/money/money.js';
import { expiry, majorUnits, optional, SANDBOX_CARDS } from './common.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';

const ORDER_FIELDS = [
  field('reference_number', 'text', "the order's reference number (a fresh TRIGGER-ORDER-… by default)"),
  field('currency', 'text', "the order's currency (HKD by default)"),
  field('charge_fee', 'amount', 'the amount to pay (50 in the currency by default)'),
  field('note', 'text', "the order's note"),
  field('callback_url', 'text', 'where its events are sent too (its notify_url)'),
  field('customer_uuid', 'text', 'a customer of the merchant the order belongs to'),
];

/** An order, as `POST orders` makes it. */
async function newOrder(run: TriggerRun): Promise<OrderView> {
  const currency = run.value('currency', 'HKD');
  const order: Record<string, unknown> = {
    reference_number: run.value('reference_number', run.unique('TRIGGER-ORDER')),
    currency,
    charge_fee: run.value('charge_fee', majorUnits(currency, 50)),
  };
  optional(run, order, 'note');
  optional(run, order, 'callback_url');
  const body: Record<string, unknown> = { order };
  optional(run, body, 'customer_uuid');
  const view = await createOrder(run.ctx, run.check(CreateOrderBody, body));
  run.made('order', { number: view.order.number, reference_number: view.order.reference_number });
  return view;
}

/** A card payment of the whole order, as `POST open_payments` makes it. */
/** A new order and one card payment of it (a sale or a pre-authorisation): the order's id. */
async function orderPaidWith(run: TriggerRun, number: string, consumeMode: 'sales' | 'pre_authorize'): Promise<string> {
  const view = await newOrder(run);
  await pay(run, view, number, consumeMode);
  return view.order.id;
}

async function pay(run: TriggerRun, view: OrderView, number: string, consumeMode: 'sales' | 'pre_authorize') {
  const body = {
    reference_number: view.order.reference_number,
    payment: {
      credit_card: { number, ...expiry(run), cvv: '123', holder_name: 'Trigger Cardholder', consume_mode: consumeMode },
    },
  };
  const outcome = await payOrder(run.ctx, run.check(OpenPaymentBody, body));
  run.made('transaction', { uuid: outcome.transaction.id });
  return outcome;
}

const ofOrder = (view: OrderView) => ({ reference_number: view.order.reference_number });

export const ORDER_TRIGGERS = [
  defineTrigger({
    kind: 'order.created',
    makes: 'an order',
    clock: 'none',
    fields: ORDER_FIELDS,
    run: async (run) => (await newOrder(run)).order.id,
  }),
  defineTrigger({
    kind: 'order.authorized',
    makes: 'an order, pre-authorised with the card 4242 4242 4242 4242',
    clock: 'none',
    fields: ORDER_FIELDS,
    run: (run) => orderPaidWith(run, SANDBOX_CARDS.approved, 'pre_authorize'),
  }),
  defineTrigger({
    kind: 'order.paid',
    makes: 'an order, paid in full with the card 4242 4242 4242 4242',
    clock: 'none',
    fields: ORDER_FIELDS,
    run: (run) => orderPaidWith(run, SANDBOX_CARDS.approved, 'sales'),
  }),
  defineTrigger({
    kind: 'order.payment_failure',
    makes: 'an order, and a payment with the card 4000 0000 0000 0002, declined (05)',
    clock: 'none',
    fields: ORDER_FIELDS,
    run: (run) => orderPaidWith(run, SANDBOX_CARDS.declined, 'sales'),
  }),
  defineTrigger({
    kind: 'order.voided',
    makes: 'an order, voided unpaid (`orders/void`)',
    clock: 'none',
    fields: ORDER_FIELDS,
    async run(run) {
      const view = await newOrder(run);
      await voidOrder(run.ctx, ofOrder(view));
      return view.order.id;
    },
  }),
  defineTrigger({
    kind: 'order.refunded',
    makes: 'an order paid with 4242 4242 4242 4242, settled, then refunded (all of it, or `refund.amount`)',
    clock: 'to the next daily settlement (at most a day)',
    fields: [...ORDER_FIELDS, field('refund.amount', 'amount', 'how much to refund (all of it by default)')],
    async run(run) {
      const view = await newOrder(run);
      const { transaction } = await pay(run, view, SANDBOX_CARDS.approved, 'sales');
      // Only a settled payment is refunded: the clock moves to the merchant's daily settlement.
      const settled = async () =>
        (await transactionsOfOrder(run.ctx, view.order.id)).some(
          (t) => t.id === transaction.id && t.settled_at !== null,
        );
      await passToSettlement(run, settled);
      const body = {
        order: ofOrder(view),
        transaction: { uuid: transaction.id },
        refund: { amount: run.value('refund.amount', formatAmount(transaction.amount, view.order.currency_exponent)) },
      };
      const checked = run.check(RefundBody, body);
      const refund = await refundTransaction(
        run.ctx,
        { order: checked.order, transactionId: checked.transaction.uuid },
        checked.refund,
      );
      run.made('refund', { uuid: refund.transaction.id });
      return view.order.id;
    },
  }),
  defineTrigger({
    kind: 'transaction.voided',
    makes: 'an order paid with 4242 4242 4242 4242, and the sale voided before settlement',
    clock: 'none',
    fields: ORDER_FIELDS,
    async run(run) {
      const view = await newOrder(run);
      const { transaction } = await pay(run, view, SANDBOX_CARDS.approved, 'sales');
      await voidTransaction(run.ctx, { order: ofOrder(view), transactionId: transaction.id });
      return view.order.id;
    },
  }),
];

/** A day and a little: the daily settlement comes within it, whatever the merchant's settlement hour. */
const SETTLEMENT_LIMIT_S = 26 * 60 * 60;

async function passToSettlement(run: TriggerRun, settled: () => Promise<boolean>): Promise<void> {
  await run.passTimeUntil(settled, SETTLEMENT_LIMIT_S, 'The daily settlement');
}
