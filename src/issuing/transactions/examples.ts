import { EXAMPLE_USER_ID } from '../../users/index.js';
import { EXAMPLE_CARD_ID } from '../examples.js';
import type { CardTransactionReply } from './present.js';

/**
 * A purchase in US dollars on an HKD card, authorised and settled two days later (docs/issuing.md's worked example).
 */
export const EXAMPLE_AUTHORIZATION_ID = '2c8e4b1a-7d3f-4a6e-9b5c-0d1e2f3a4b5c';
export const EXAMPLE_MERCHANT_ID = '0b7e2d4c-9a1f-4c3e-8d5b-6a7f8e9d0c1b';

export const EXAMPLE_PURCHASE = {
  card_id: EXAMPLE_CARD_ID,
  amount: '100.00',
  currency: 'USD',
  merchant: { id: 'MID-88001', name: 'Blue Bottle Coffee', city: 'San Francisco', country: 'US', category: '5814' },
};

export const EXAMPLE_AUTHORIZED: CardTransactionReply = {
  id: EXAMPLE_AUTHORIZATION_ID,
  p_business_id: EXAMPLE_MERCHANT_ID,
  p_user_id: EXAMPLE_USER_ID,
  card: EXAMPLE_CARD_ID,
  status: 'Authorized',
  type: 'Sales',
  transaction_currency: 'USD',
  transaction_amount: '-100.00',
  local_currency: 'HKD',
  local_amount: '780.00',
  final_local_amount: '0.00',
  calculated_fee: '11.70',
  merchant_id: 'MID-88001',
  merchant_country: 'US',
  merchant_city: 'San Francisco',
  merchant_name: 'Blue Bottle Coffee',
  p_created_at: '2026-12-01T02:00:00.000Z',
};

export const EXAMPLE_SETTLED: CardTransactionReply = {
  ...EXAMPLE_AUTHORIZED,
  status: 'Settled',
  transaction_amount: '-100.00',
  calculated_fee: '11.72',
  final_local_amount: '793.28',
};
