import type { BalanceReply, BalanceTransactionReply } from './present.js';

/** The merchant of the API reference's examples (/docs): a day of card sales, one settled and refunded in part. */
export const EXAMPLE_BALANCE: BalanceReply = {
  currency: 'HKD',
  available: '1172.54',
  incoming: '388.00',
  reserved: '0.00',
  on_hold: '0.00',
};

export const EXAMPLE_TOP_UP = { currency: 'HKD', amount: '1000.00' };

const SALE = '4c1d9e2f-7a3b-4b8c-9d1e-2f3a4b5c6d7e';

export const EXAMPLE_ENTRIES: BalanceTransactionReply[] = [
  {
    id: '019ad2f0-9b40-7002-8a1c-3e5f7a9b1c2d',
    type: 'settlement',
    amount: '0.00',
    fee: '13.60',
    net: '-13.60',
    currency: 'HKD',
    source: { type: 'transaction', id: SALE },
    created_at: '2026-12-01T15:00:00.000Z',
    available_on: '2026-12-01T15:00:00.000Z',
    lines: [
      { account: 'available', amount: '374.40' },
      { account: 'incoming', amount: '-388.00' },
    ],
  },
  {
    id: '019ad0a1-4c2e-7001-9d1f-5b8e2a7c3f61',
    type: 'payment',
    amount: '388.00',
    fee: '0.00',
    net: '388.00',
    currency: 'HKD',
    source: { type: 'transaction', id: SALE },
    created_at: '2026-12-01T03:12:09.000Z',
    available_on: '2026-12-01T15:00:00.000Z',
    lines: [{ account: 'incoming', amount: '388.00' }],
  },
];
