import type { Static } from 'typebox';
import type { CustomerSchema, PaymentTokenSchema } from './schemas.js';

/**
 * The customer of the API reference's examples (/docs), with the card bound to it as a payment token. The values
 * are what the sandbox answers (ids aside); test/http/docs-page.test.ts checks them against the routes' schemas.
 */
export const EXAMPLE_CUSTOMER_UUID = '5fbed7a6-112c-410f-91d1-45fbc2155bb9';
export const EXAMPLE_TOKEN = {
  token: '07b70b4b087bdd19544d1938ba399cd8',
  verifyUuid: '53fdeeb2-e96b-461b-a2a6-7126cd3dc100',
} as const;

export const EXAMPLE_PROFILE = {
  name: 'Chan Tai Man',
  phone: '91234567',
  dial_code: '852',
  email: 'chan@example.com',
} as const;

type Token = Static<typeof PaymentTokenSchema>;

/** The bound card (a 3-D Secure card of the sandbox) in one of its states. */
export function exampleToken(state: Token['state'], isDefault = false): Token {
  return {
    token_type: 'CreditCard',
    token: EXAMPLE_TOKEN.token,
    state,
    default: isDefault,
    verify_url: state === 'pending' ? 'https://paygate.example.com/pay/3ds/M8wOQcumj_jHTQfPxNJBDA' : null,
    verify_uuid: EXAMPLE_TOKEN.verifyUuid,
    ...(state === 'failed' && { error_code: '05', error_msg: '3-D Secure authentication failed' }),
    credit_card: {
      number: '400000******3220',
      exp_month: '12',
      exp_year: '2030',
      holder_name: 'Chan Tai Man',
      brand: 'VISA',
      billing_currency: 'HKD',
    },
  };
}

export function exampleCustomer(withDefaultToken: boolean): Static<typeof CustomerSchema> {
  return {
    uuid: EXAMPLE_CUSTOMER_UUID,
    reference_number: 'CUSTOMER-1001',
    ...EXAMPLE_PROFILE,
    ...(withDefaultToken && { default_payment_token: exampleToken('success', true) }),
  };
}
