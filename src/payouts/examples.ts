import type { PayeeReply, PayoutReply } from './present.js';

/**
 * The payee and payout of the API reference's examples (/docs); test/http/docs-page.test.ts checks them against the
 * schemas.
 */
export const EXAMPLE_PAYEE_ID = '019ad3b2-6f10-7c3e-9a51-3d2c8e4f7a10';
export const EXAMPLE_PAYOUT_ID = '019ad3b4-0c22-7d41-8b6e-5f1a2b3c4d5e';

export const EXAMPLE_NEW_PAYEE = {
  type: 'Company',
  nickname: 'Kowloon Stationery',
  email: 'accounts@kowloon-stationery.example',
  phone_country_code: '852',
  phone_number: '21234567',
  payout_account: {
    country: 'HK',
    currency: 'HKD',
    transfer_method: 'HK FPS - Account Number',
    hk_fps: { bank_account: { bank_code: '004', account_name: 'Kowloon Stationery Ltd', account_number: '123456789' } },
  },
} as const;

export const EXAMPLE_PAYEE: PayeeReply = {
  id: EXAMPLE_PAYEE_ID,
  type: 'Company',
  nickname: EXAMPLE_NEW_PAYEE.nickname,
  email: EXAMPLE_NEW_PAYEE.email,
  phone_country_code: '852',
  phone_number: '21234567',
  payout_account: {
    country: 'HK',
    currency: 'HKD',
    transfer_method: 'HK FPS - Account Number',
    hk_fps: {
      bank_account: { bank_code: '004', account_name: 'Kowloon Stationery Ltd', account_number: '123456789' },
      email: null,
      mobile: null,
      fps_id: null,
    },
  },
  created_at: '2026-12-01T02:00:00.000Z',
};

export const EXAMPLE_NEW_PAYOUT = {
  payee_id: EXAMPLE_PAYEE_ID,
  currency: 'HKD',
  amount: '1500.00',
  callback_url: 'https://shop.example/payouts/callback',
  remark: 'Invoice 2026-118',
  reference_id: 'PAYOUT-2026-118',
} as const;

export const EXAMPLE_PAYOUT: PayoutReply = {
  id: EXAMPLE_PAYOUT_ID,
  amount: '1500.00',
  currency: 'HKD',
  transfer_status: 'Initiated',
  schedule_status: 'Approved',
  created_at: '2026-12-01T02:05:00.000Z',
  payee_id: EXAMPLE_PAYEE_ID,
  reference_id: EXAMPLE_NEW_PAYOUT.reference_id,
  remark: EXAMPLE_NEW_PAYOUT.remark,
  callback_url: EXAMPLE_NEW_PAYOUT.callback_url,
  schedule_at: null,
  status_reason: null,
  decided_by: null,
  updated_at: '2026-12-01T02:05:00.000Z',
};
