import { CreateCustomerBody, createOrUpdateCustomer } from '../../customers/index.js';
import { BindTokenBody, bindPaymentToken, DEFAULT_TOKENS, type TokenRow } from '../../payment-tokens/index.js';
import { expiry } from './common.js';
import { field, type TriggerRun } from './trigger.js';

export const CUSTOMER_FIELDS = [
  field('customer_uuid', 'text', 'an existing customer of the merchant to use, instead of a new one'),
  field('customer.reference_number', 'text', "the new customer's reference number (a fresh one by default)"),
  field('customer.name', 'text', "the new customer's name"),
];

export const CARD_FIELDS = [
  field('holder_name', 'text', "the bound card's holder name"),
  field('billing_currency', 'text', "the bound card's billing currency (HKD by default)"),
];

/** The customer `customer_uuid` names, or a new one as `POST customers` makes it: its uuid. */
export async function theCustomer(run: TriggerRun): Promise<string> {
  if (run.given('customer_uuid')) {
    const uuid = String(run.value('customer_uuid', ''));
    run.made('customer', { uuid });
    return uuid;
  }
  const body = {
    customer: {
      reference_number: run.value('customer.reference_number', run.unique('TRIGGER-CUSTOMER')),
      name: run.value('customer.name', 'Trigger Customer'),
      phone: `6${run.digits(7)}`,
    },
  };
  const view = await createOrUpdateCustomer(run.ctx, DEFAULT_TOKENS, run.check(CreateCustomerBody, body).customer);
  run.made('customer', { uuid: view.row.id, reference_number: view.row.reference_number });
  return view.row.id;
}

/** A card bound to the customer as a payment token, as `POST customers/{uuid}/payment_tokens` binds it. */
export async function bindCard(run: TriggerRun, customerUuid: string, number: string): Promise<TokenRow> {
  const card: Record<string, unknown> = {
    number,
    ...expiry(run),
    cvv: '123',
    holder_name: run.value('holder_name', 'Trigger Cardholder'),
  };
  if (run.given('billing_currency')) card.billing_currency = run.value('billing_currency', undefined);
  const token = await bindPaymentToken(run.ctx, customerUuid, run.check(BindTokenBody, { card }));
  run.made('payment_token', { token: token.token });
  return token;
}
