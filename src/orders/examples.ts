import type { Static } from 'typebox';
import type { EventSchema } from '../events/schemas.js';
import type { OrderReply, TransactionReply } from './present.js';

/**
 * The orders of the API reference's examples (/docs): one café order, ORDER-1001, created, paid by card, voided
 * or refunded, and a pre-authorised ORDER-1002 that is captured. The values are what the sandbox answers for
 * those requests (ids and times aside); test/http/docs-page.test.ts checks each reply against its route's schema.
 */
export const EXAMPLE_ORDER = {
  reference: 'ORDER-1001',
  number: '261121080000123456',
  saleUuid: '3f6c1a2e-8d4b-4c1f-9e7a-5b2d0c8f1a34',
  refundUuid: '9a0e4c7d-2b5f-4e8a-b1c3-6d7f8e9a0b12',
  eventId: '01a21428-900e-7000-9b2a-0384628679f3',
} as const;

export const EXAMPLE_PREAUTH = {
  reference: 'ORDER-1002',
  number: '261121081500654321',
  authorizationUuid: '7b1d9e3c-5a2f-4d6b-8c0e-1f3a5b7d9e24',
  captureUuid: 'e4a8c2f0-6b1d-4f3e-9a5c-7d0b2e4f6a81',
} as const;

export const EXAMPLE_CARD = {
  number: '4242424242424242',
  exp_month: '12',
  exp_year: '2030',
  cvv: '123',
  holder_name: 'Chan Tai Man',
} as const;

const BUSINESS = { id: '8b3f1c52-6d0e-4a7b-9c1d-2e5f7a9b0c14', business_name: 'Kowloon Coffee Roasters' };
const CREATED = '2026-11-21T08:00:00.000Z';
const PAID = '2026-11-21T08:02:10.000Z';
const FAILED_3DS = '3-D Secure authentication failed';

export const EXAMPLE_LINE_ITEMS = [
  { purchasable_type: 'Charge', price: '28.00', quantity: 2, label: 'Flat white' },
  { purchasable_type: 'Charge', price: '12.00', quantity: 1, label: 'Almond croissant' },
] as const;

/** The card's part of a transaction's payment_data, as the sandbox acquirer fills it in. */
function cardData(transactionUuid: string, authCode: string, rrn: string): TransactionReply['payment_data'] {
  const compact = transactionUuid.replace(/-/g, '');
  return {
    acquirer_name: 'paygate sandbox acquirer',
    acquirer_type: 'sandbox',
    brn: 'BRN8B3F1C526D',
    new_gateway_txn_id: compact,
    payment_method: 'credit_card',
    receipt_id: compact.slice(0, 12).toUpperCase(),
    transaction_state: 'APPROVED',
    auth_code: authCode,
    card_number_len: 16,
    card_read_mode: 'ecommerce',
    credit_card_type: 'VISA',
    first_6_digits: '424242',
    last_4_digits: '4242',
    merchant_id: 'MID8B3F1C526D',
    rrn,
    holder_name: EXAMPLE_CARD.holder_name,
    exp_month: EXAMPLE_CARD.exp_month,
    exp_year: EXAMPLE_CARD.exp_year,
    resp_code: '00',
    resp_msg: 'Approved',
  };
}

type TransactionFields = Pick<TransactionReply, 'type' | 'uuid' | 'amount' | 'created_at' | 'updated_at'> &
  Partial<TransactionReply>;

export function exampleTransaction(fields: TransactionFields & { authCode?: string; rrn?: string }): TransactionReply {
  const { authCode = 'Q0ZLC7', rrn = '060837590798', ...rest } = fields;
  return {
    currency: 'HKD',
    success: true,
    is_pending: false,
    captured: true,
    allow_void: true,
    allow_refund: false,
    void_is_pending: false,
    voided: false,
    payment_method: 'credit_card',
    note: null,
    payment_data: cardData(fields.uuid, authCode, rrn),
    original_transaction_uuid: null,
    ...rest,
  };
}

type OrderFields = Pick<OrderReply, 'paid_total' | 'unpaid_total' | 'state' | 'correspondence_state' | 'updated_at'> &
  Partial<OrderReply>;

/** ORDER-1001 in one of its states. */
export function exampleOrder(fields: OrderFields): OrderReply {
  return {
    source: 'OpenAPI',
    type: 'Online',
    number: EXAMPLE_ORDER.number,
    reference_number: EXAMPLE_ORDER.reference,
    due_date: null,
    initial_total: 68,
    initial_tips: 0,
    subtotal: 68,
    currency: 'HKD',
    note: 'Table 12',
    return_url: 'https://shop.example.com/orders/1001',
    notify_url: 'https://shop.example.com/paygate/webhooks',
    business: BUSINESS,
    created_at: CREATED,
    line_items: [
      {
        uuid: '9e2ec865-13ae-441a-b93d-3740858a31d5',
        purchasable_type: 'Charge',
        price: 28,
        quantity: 2,
        total: 56,
        label: 'Flat white',
      },
      {
        uuid: '413badf9-088c-4ebc-b513-fdd0cb6156e3',
        purchasable_type: 'Charge',
        price: 12,
        quantity: 1,
        total: 12,
        label: 'Almond croissant',
      },
    ],
    transactions: [],
    ...fields,
  };
}

export const EXAMPLE_SALE = exampleTransaction({
  type: 'Sales',
  uuid: EXAMPLE_ORDER.saleUuid,
  amount: 68,
  created_at: '2026-11-21T08:02:09.000Z',
  updated_at: PAID,
});

export const UNPAID_ORDER = exampleOrder({
  paid_total: '0.00',
  unpaid_total: '68.00',
  state: 'invoiced',
  correspondence_state: 'unpaid',
  updated_at: CREATED,
});
export const PAID_ORDER = exampleOrder({
  paid_total: '68.00',
  unpaid_total: '0.00',
  state: 'completed',
  correspondence_state: 'paid',
  updated_at: PAID,
  transactions: [EXAMPLE_SALE],
});

/** ORDER-1002, pre-authorised and then captured in full. */
export function capturedExample(): { order: OrderReply; transaction: TransactionReply } {
  const captured = '2026-11-21T09:00:00.000Z';
  const authorization = exampleTransaction({
    type: 'Authorization',
    uuid: EXAMPLE_PREAUTH.authorizationUuid,
    amount: 68,
    allow_void: false,
    created_at: '2026-11-21T08:15:00.000Z',
    updated_at: captured,
    authCode: 'XK42PL',
    rrn: '448120395716',
  });
  const capture = exampleTransaction({
    type: 'Capture',
    uuid: EXAMPLE_PREAUTH.captureUuid,
    amount: 68,
    original_transaction_uuid: EXAMPLE_PREAUTH.authorizationUuid,
    created_at: captured,
    updated_at: captured,
    authCode: '2L86JV',
    rrn: '786054679565',
  });
  const order = exampleOrder({
    number: EXAMPLE_PREAUTH.number,
    reference_number: EXAMPLE_PREAUTH.reference,
    note: null,
    line_items: null,
    paid_total: '68.00',
    unpaid_total: '0.00',
    state: 'completed',
    correspondence_state: 'paid',
    created_at: '2026-11-21T08:14:58.000Z',
    updated_at: captured,
    transactions: [authorization, capture],
  });
  delete order.return_url;
  return { order, transaction: capture };
}

/** ORDER-1001's sale, voided the same day (before settlement). */
export function voidedExample(): { order: OrderReply; transaction: TransactionReply } {
  const at = '2026-11-21T08:30:00.000Z';
  const transaction = { ...EXAMPLE_SALE, allow_void: false, voided: true, updated_at: at };
  return {
    order: exampleOrder({
      paid_total: '0.00',
      unpaid_total: '68.00',
      state: 'completed',
      correspondence_state: 'voided',
      updated_at: at,
      transactions: [transaction],
    }),
    transaction,
  };
}

/** HKD 20.00 of ORDER-1001's sale refunded the next day, once it had settled. */
export function refundedExample(): { order: OrderReply; transaction: TransactionReply } {
  const at = '2026-11-22T10:00:00.000Z';
  const refund = exampleTransaction({
    type: 'Refund',
    uuid: EXAMPLE_ORDER.refundUuid,
    amount: 20,
    captured: false,
    allow_void: false,
    note: null,
    original_transaction_uuid: EXAMPLE_ORDER.saleUuid,
    created_at: at,
    updated_at: at,
    authCode: '38TU8Z',
    rrn: '512908374615',
  });
  const sale = { ...EXAMPLE_SALE, allow_void: false, allow_refund: true, updated_at: at };
  return {
    order: exampleOrder({
      paid_total: '48.00',
      unpaid_total: '20.00',
      state: 'in_completed',
      correspondence_state: 'partial_paid',
      updated_at: at,
      transactions: [sale, refund],
    }),
    transaction: refund,
  };
}

/** ORDER-1001 paid after a 3-D Secure challenge: the payment pending, then completed by the payer (or the sandbox). */
export function challengedExample(outcome: 'pending' | 'succeed' | 'fail'): {
  order: OrderReply;
  transaction: TransactionReply;
} {
  const started = '2026-11-21T08:02:09.000Z';
  const pending = exampleTransaction({
    type: 'Sales',
    uuid: EXAMPLE_ORDER.saleUuid,
    amount: 68,
    success: false,
    is_pending: true,
    captured: false,
    allow_void: false,
    created_at: started,
    updated_at: started,
    '3ds': { enrolled: 'Y', redirect_url: 'https://paygate.example.com/pay/3ds/4wqlJOYLKXKdFJTOQd3rhg' },
  });
  pending.payment_data = {
    ...pending.payment_data,
    transaction_state: 'PENDING',
    first_6_digits: '400000',
    last_4_digits: '3220',
    resp_code: '1A',
    resp_msg: 'Additional customer authentication required',
  };
  delete pending.payment_data.auth_code;
  if (outcome === 'pending') {
    return {
      order: exampleOrder({
        paid_total: '0.00',
        unpaid_total: '68.00',
        state: 'invoiced',
        correspondence_state: 'unpaid',
        updated_at: started,
        transactions: [pending],
      }),
      transaction: pending,
    };
  }
  const { '3ds': _challenge, ...rest } = pending;
  const transaction: TransactionReply =
    outcome === 'succeed'
      ? {
          ...rest,
          success: true,
          is_pending: false,
          captured: true,
          allow_void: true,
          updated_at: PAID,
          payment_data: {
            ...rest.payment_data,
            transaction_state: 'APPROVED',
            auth_code: 'MEQSGC',
            resp_code: '00',
            resp_msg: 'Approved',
          },
        }
      : {
          ...rest,
          is_pending: false,
          updated_at: PAID,
          payment_data: {
            ...rest.payment_data,
            transaction_state: 'DECLINED',
            resp_code: '05',
            resp_msg: FAILED_3DS,
            error_code: '05',
            error_desc: FAILED_3DS,
          },
        };
  const order =
    outcome === 'succeed'
      ? exampleOrder({
          paid_total: '68.00',
          unpaid_total: '0.00',
          state: 'completed',
          correspondence_state: 'paid',
          updated_at: PAID,
          transactions: [transaction],
        })
      : exampleOrder({
          paid_total: '0.00',
          unpaid_total: '68.00',
          state: 'invoiced',
          correspondence_state: 'unpaid',
          updated_at: PAID,
          transactions: [transaction],
        });
  return { order, transaction };
}

type EventReply = Static<typeof EventSchema>;

/** ORDER-1001's webhook events: made when it was created and when it was paid, each delivered to notify_url. */
export function exampleEvents(): EventReply[] {
  const event = (action: string, id: string, at: string, order: OrderReply, deliveredAt: string): EventReply => ({
    event_id: id,
    action,
    created_at: at,
    body: { code: 200, message: 'success', data: { order } },
    deliveries: [
      {
        destination: 'notify_url',
        url: 'https://shop.example.com/paygate/webhooks',
        state: 'delivered',
        next_attempt_at: null,
        delivered_at: deliveredAt,
        last_status: 200,
        last_error: null,
        attempts: [
          { attempt: 1, started_at: at, duration_ms: 41, status_code: 200, error: null, outcome: 'delivered' },
        ],
      },
    ],
  });
  return [
    event('order.created', '01a21428-8fdb-7000-acba-ecb314004c8d', CREATED, UNPAID_ORDER, '2026-11-21T08:00:00.041Z'),
    event('order.paid', EXAMPLE_ORDER.eventId, PAID, PAID_ORDER, '2026-11-21T08:02:10.038Z'),
  ];
}
