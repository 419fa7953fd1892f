import Type from 'typebox';
import { PaymentTokenSchema } from '../customers/index.js';

const Url = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }));

const AutoDebit = (wallet: string) =>
  Type.Optional(
    Type.Object(
      {},
      {
        description: `Bind a ${wallet} auto-debit agreement instead of a card: pending with verify_url (the page where the payer allows it).`,
      },
    ),
  );

export const BindTokenBody = Type.Object({
  alipay: AutoDebit('Alipay'),
  wechatpay: AutoDebit('WeChat Pay'),
  card: Type.Optional(
    Type.Object({
      number: Type.String({ maxLength: 32 }),
      exp_month: Type.Union([Type.String({ maxLength: 2 }), Type.Integer({ minimum: 1, maximum: 12 })]),
      exp_year: Type.Union([Type.String({ maxLength: 4 }), Type.Integer({ minimum: 0, maximum: 9999 })]),
      cvv: Type.Optional(Type.String({ maxLength: 4 })),
      holder_name: Type.String({ minLength: 1, maxLength: 255 }),
      billing_currency: Type.Optional(
        Type.String({ minLength: 3, maxLength: 3, description: "The card's billing currency; HKD when absent." }),
      ),
      billing_address: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Kept as sent.' })),
      '3ds': Type.Optional(
        Type.Object({
          success_return_url: Url('Where the cardholder is sent after passing 3-D Secure.'),
          fail_return_url: Url('Where the cardholder is sent after failing it.'),
        }),
      ),
    }),
  ),
});

const TokenReference = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 128 }),
  verify_uuid: Type.Optional(Type.String({ maxLength: 64, description: "When sent, must be the token's own." })),
});

export const CheckTokenBody = Type.Object({ payment_token: TokenReference });

/** `{"payment_token": {"token": ...}}`, or the bare `{"token": ...}` some clients send. */
export const DeleteTokenBody = Type.Object({
  payment_token: Type.Optional(Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) })),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const CustomerPathParams = Type.Object({
  uuid: Type.String({ maxLength: 64, description: 'The customer uuid.' }),
});

export const TokenData = Type.Object({ payment_token: PaymentTokenSchema });
export const TokenListData = Type.Object({ payment_tokens: Type.Array(PaymentTokenSchema) });
export const BindingLinkData = Type.Object({
  wallet_link: Type.String({
    description: 'A page where the customer binds a card themselves (docs/payment-tokens.md).',
  }),
  expires_at: Type.String(),
});
