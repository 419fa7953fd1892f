import type { Static } from 'typebox';
import { EXAMPLE_USER_ID } from '../users/index.js';
import type { CardSchema, CreateCardBody } from './schemas.js';

/** The card of the API reference's examples (/docs); test/http/docs-page.test.ts checks them against the schemas. */
export const EXAMPLE_CARD_ID = '6a1f7c3e-2b9d-4e58-8f0a-1c2d3e4f5a6b';

export const EXAMPLE_NEW_CARD: Static<typeof CreateCardBody>['card'] = {
  user_id: EXAMPLE_USER_ID,
  reference_id: 'CARD-0042',
  title: 'Travel',
  settlement_currency: 'HKD',
  limits: [
    { period: 'transaction', limit_amount: '2000.00' },
    { period: 'monthly', limit_amount: '20000.00' },
  ],
};

export const EXAMPLE_CARD: Static<typeof CardSchema> = {
  id: EXAMPLE_CARD_ID,
  p_user_id: EXAMPLE_USER_ID,
  reference_id: 'CARD-0042',
  type: 'Expense',
  title: 'Travel',
  expiration_date: '12/29',
  settlement_currency: 'HKD',
  first_6_digits: '356999',
  last_4_digits: '0427',
  status: 'Active',
  pan: '356999******0427',
  issuer_brand: 'JCB',
  is_encrypt: false,
  business_name: 'Demo Shop',
  limits: [
    { period: 'transaction', limit_amount: '2000.00', used_amount: '0.00' },
    { period: 'monthly', limit_amount: '20000.00', used_amount: '0.00' },
  ],
  created_at: '2026-12-01T02:00:00.000Z',
};
