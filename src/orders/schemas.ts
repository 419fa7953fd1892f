import Type from 'typebox';
import { AmountInput, DigitsInput, Nullable, PAGING, StringEnum } from '../platform/schema.js';
import { CORRESPONDENCE_STATES, ORDER_STATES, TRANSACTION_TYPES } from './tables.js';

export const PURCHASABLE_TYPES = ['RearTips', 'Charge', 'Listing', 'Rounding', 'SurchargeFee'] as const;
export const CONSUME_MODES = ['sales', 'pre_authorize', 'preauth'] as const;

const text = (maxLength: number) => Type.String({ maxLength });
const optionalUrl = () => Type.Optional(Nullable(Type.String({ maxLength: 2048 })));

// ---- input ----

const LineItemInput = Type.Object({
  purchasable_type: StringEnum(PURCHASABLE_TYPES),
  purchase_id: Type.Optional(Nullable(Type.Integer())),
  price: AmountInput(),
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  total: Type.Optional(AmountInput({ description: 'price × quantity; checked when sent' })),
  label: Type.Optional(Nullable(text(255))),
});

/** Names an order: by its number, its reference number, or both (then both must name it). */
const OrderReference = Type.Object({
  number: Type.Optional(text(64)),
  reference_number: Type.Optional(text(255)),
});

export const CreateOrderBody = Type.Object({
  order: Type.Object({
    reference_number: Type.String({ minLength: 1, maxLength: 255 }),
    currency: Type.String({ minLength: 1, maxLength: 16, description: 'ISO 4217, e.g. HKD' }),
    charge_fee: AmountInput({ description: 'The amount to charge, tips included.' }),
    tips: Type.Optional(AmountInput()),
    subtotal: Type.Optional(AmountInput({ description: 'charge_fee − tips; checked when sent' })),
    due_date: Type.Optional(Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' }))),
    note: Type.Optional(Nullable(text(254))),
    line_items: Type.Optional(Nullable(Type.Array(LineItemInput, { maxItems: 500 }))),
    callback_url: optionalUrl(),
    redirect_url: optionalUrl(),
  }),
  customer_uuid: Type.Optional(Nullable(text(64))),
});

const CreditCardInput = Type.Object({
  number: Type.String({ maxLength: 32 }),
  exp_month: DigitsInput(2),
  exp_year: DigitsInput(4),
  cvv: Type.Optional(Type.String({ maxLength: 4 })),
  holder_name: Type.Optional(text(255)),
  consume_mode: Type.Optional(StringEnum(CONSUME_MODES)),
});

/** A wallet names no details of its own here: the payer provides them in the wallet's app. */
const WalletInput = (description: string) => Type.Object({}, { description });

export const OpenPaymentBody = Type.Object({
  number: Type.Optional(text(64)),
  reference_number: Type.Optional(text(255)),
  order: Type.Optional(OrderReference),
  payment: Type.Object({
    uuid: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Idempotency key of this payment.' })),
    amount: Type.Optional(AmountInput({ description: 'Part of the order to pay; the unpaid total when absent.' })),
    note: Type.Optional(Nullable(text(254))),
    credit_card: Type.Optional(CreditCardInput),
    payment_token: Type.Optional(
      Type.Object(
        {
          token: Type.String({
            minLength: 1,
            maxLength: 128,
            description: 'A successfully bound payment token (docs/payment-tokens.md).',
          }),
          amount: Type.Optional(
            AmountInput({ description: 'As payment.amount; sending both with different values is refused.' }),
          ),
          consume_mode: Type.Optional(StringEnum(CONSUME_MODES)),
          entry_type: Type.Optional(
            StringEnum(['cit', 'mit'] as const, { description: 'Cardholder- or merchant-initiated; cit when absent.' }),
          ),
        },
        { description: 'Charge a stored card: no card details, no new 3-D Secure challenge.' },
      ),
    ),
    alipay: Type.Optional(
      WalletInput('Pay with Alipay: the payer scans `wallet.qr_code` or is sent to `wallet.redirect_url`.'),
    ),
    wechatpay: Type.Optional(WalletInput('Pay with WeChat Pay: the payer scans `wallet.qr_code`.')),
    fps: Type.Optional(
      WalletInput('Pay by FPS: the payer scans `wallet.qr_code` (an EMVCo payload) in a banking app.'),
    ),
  }),
});

const TransactionReference = Type.Object({ uuid: Type.String({ minLength: 1, maxLength: 64 }) });

export const CheckOrderBody = Type.Object({
  order: Type.Optional(OrderReference),
  transaction: Type.Optional(TransactionReference),
});

export const TransactionBody = Type.Object({
  order: Type.Optional(OrderReference),
  transaction: TransactionReference,
});

export const CaptureBody = Type.Object({
  order: Type.Optional(OrderReference),
  transaction: TransactionReference,
  capture: Type.Optional(Type.Object({ amount: Type.Optional(AmountInput()) })),
});

export const VoidBody = Type.Object({
  order: Type.Optional(OrderReference),
  transaction: Type.Optional(TransactionReference),
});

export const RefundBody = Type.Object({
  order: Type.Optional(OrderReference),
  transaction: TransactionReference,
  refund: Type.Object({
    amount: AmountInput(),
    note: Type.Optional(Nullable(text(254))),
    reason: Type.Optional(Nullable(text(254))),
  }),
});

const WithPaymentLink = Type.Optional(
  Type.Boolean({ description: 'Also give data.payment_link, a new link to the hosted payment page.' }),
);
export const CreateOrderQuery = Type.Object({ with_payment_link: WithPaymentLink });
export const CheckOrderQuery = Type.Object({
  with_payment_link: WithPaymentLink,
  with_download_link: Type.Optional(
    Type.Boolean({ description: 'Also give data.download_link, a new link to the PDF receipt.' }),
  ),
});

export const ListOrdersQuery = Type.Object({
  ...PAGING,
  customer_uuid: Type.Optional(text(64)),
});

// ---- replies ----

const LineItemSchema = Type.Object({
  uuid: Type.String(),
  purchasable_type: StringEnum(PURCHASABLE_TYPES),
  purchase_id: Type.Optional(Type.Integer()),
  price: Type.Number(),
  quantity: Type.Integer(),
  total: Type.Number(),
  label: Type.Optional(Type.String()),
});

export const PaymentDataSchema = Type.Object({
  acquirer_name: Type.String(),
  acquirer_type: Type.String(),
  auth_code: Type.Optional(Type.String()),
  brn: Type.String(),
  card_number_len: Type.Optional(Type.Integer()),
  card_read_mode: Type.Optional(Type.String()),
  credit_card_type: Type.Optional(Type.String()),
  first_6_digits: Type.Optional(Type.String()),
  last_4_digits: Type.Optional(Type.String()),
  merchant_id: Type.Optional(Type.String()),
  new_gateway_txn_id: Type.String(),
  payment_method: Type.String(),
  receipt_id: Type.String(),
  rrn: Type.Optional(Type.String()),
  transaction_state: Type.String(),
  token: Type.Optional(Type.String()),
  holder_name: Type.Optional(Type.String()),
  exp_month: Type.Optional(Type.String()),
  exp_year: Type.Optional(Type.String()),
  resp_code: Type.Optional(Type.String()),
  resp_msg: Type.Optional(Type.String()),
  error_code: Type.Optional(Type.String()),
  error_desc: Type.Optional(Type.String()),
  consumer_country_code: Type.Optional(Type.String()),
});

export const TransactionSchema = Type.Object({
  type: StringEnum(TRANSACTION_TYPES),
  uuid: Type.String(),
  currency: Type.String(),
  amount: Type.Number(),
  success: Type.Boolean(),
  is_pending: Type.Boolean(),
  captured: Type.Boolean(),
  allow_void: Type.Boolean(),
  allow_refund: Type.Boolean(),
  void_is_pending: Type.Boolean(),
  voided: Type.Boolean(),
  payment_method: Type.String(),
  note: Nullable(Type.String()),
  payment_data: PaymentDataSchema,
  original_transaction_uuid: Nullable(Type.String()),
  '3ds': Type.Optional(Type.Object({ enrolled: Type.String(), redirect_url: Type.String() })),
  wallet: Type.Optional(
    Type.Object(
      {
        qr_code: Type.Optional(
          Type.String({ description: 'What the payer scans: a URL, or for FPS an EMVCo QR payload.' }),
        ),
        redirect_url: Type.Optional(Type.String({ description: 'Where to send the payer to pay (Alipay).' })),
        expires_at: Type.String({
          description: 'When the payment fails unless paid: 15 minutes after it was started.',
        }),
      },
      { description: 'While a wallet payment is pending: what the payer needs to pay.' },
    ),
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const OrderSchema = Type.Object({
  source: Type.String(),
  type: Type.String(),
  number: Type.String(),
  reference_number: Type.String(),
  due_date: Nullable(Type.String()),
  initial_total: Type.Number(),
  initial_tips: Type.Number(),
  subtotal: Type.Number(),
  paid_total: Type.String({ description: "Decimal text with the currency's decimals." }),
  unpaid_total: Type.String({ description: 'initial_total − paid_total; negative when over-paid.' }),
  state: StringEnum(ORDER_STATES),
  correspondence_state: StringEnum(CORRESPONDENCE_STATES),
  currency: Type.String(),
  note: Nullable(Type.String()),
  return_url: Type.Optional(Type.String()),
  notify_url: Type.Optional(Type.String()),
  customer_uuid: Type.Optional(Type.String()),
  business: Type.Object({ id: Type.String(), business_name: Type.String() }),
  created_at: Type.String(),
  updated_at: Type.String(),
  line_items: Nullable(Type.Array(LineItemSchema)),
  transactions: Type.Array(TransactionSchema),
});

export const OrderData = Type.Object({
  order: OrderSchema,
  payment_link: Type.Optional(
    Type.String({ description: 'With with_payment_link=true: the page where the payer pays (docs/hosted-pages.md).' }),
  ),
  download_link: Type.Optional(
    Type.String({ description: 'With with_download_link=true: an expiring link to the PDF receipt.' }),
  ),
});
export const OrderTransactionData = Type.Object({ order: OrderSchema, transaction: TransactionSchema });
export const OrderListData = Type.Object({
  orders: Type.Array(OrderSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Orders matching the filters, in all.' }),
});
