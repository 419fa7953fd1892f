import { DEFAULT_PAYMENT_METHODS } from '@paygate/client';
import Type from 'typebox';
import { Nullable, StringEnum } from '../platform/schema.js';

const text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const requiredText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

/** The editable profile. Optional fields: omitted keeps the stored value, `null` clears it. */
const profile = {
  name: requiredText(255),
  phone: requiredText(255),
  email: Type.Optional(Nullable(text(255))),
  dial_code: Type.Optional(Nullable(text(6, 'Mobile phone country code, such as 852.'))),
  company_name: Type.Optional(Nullable(text(255))),
  default_payment_method: Type.Optional(Nullable(StringEnum(DEFAULT_PAYMENT_METHODS))),
  default_payment_token: Type.Optional(
    Nullable(text(255, 'A successfully bound token of this customer to make the default.')),
  ),
};

export const CreateCustomerBody = Type.Object({
  customer: Type.Object({
    ...profile,
    reference_number: requiredText(255, 'Client-side unique number; cannot change.'),
  }),
});

/** Flat, not wrapped. `reference_number` may be repeated but not changed. */
export const EditCustomerBody = Type.Object({ ...profile, reference_number: Type.Optional(text(255)) });

export const CustomerParams = Type.Object({ uuid: Type.String({ description: 'The service-side customer uuid.' }) });

export const PaymentTokenSchema = Type.Object({
  token_type: StringEnum(['CreditCard', 'WechatPayAutoDebit', 'AlipayAutoDebit'] as const),
  token: Type.String(),
  state: StringEnum(['pending', 'success', 'failed'] as const),
  default: Type.Boolean(),
  verify_url: Type.Optional(Nullable(Type.String())),
  verify_uuid: Type.Optional(Type.String()),
  error_code: Type.Optional(Type.String()),
  error_msg: Type.Optional(Type.String()),
  credit_card: Type.Optional(
    Type.Object({
      number: Type.String(),
      exp_month: Type.String(),
      exp_year: Type.String(),
      holder_name: Type.String(),
      brand: Type.String(),
      billing_currency: Type.String(),
    }),
  ),
});

export const CustomerSchema = Type.Object({
  uuid: Type.String(),
  reference_number: Type.String(),
  name: Type.String(),
  phone: Type.String(),
  dial_code: Type.String({ description: 'Always present; empty when unknown.' }),
  email: Type.Optional(Type.String()),
  company_name: Type.Optional(Type.String()),
  default_payment_method: Type.Optional(StringEnum(DEFAULT_PAYMENT_METHODS)),
  default_payment_token: Type.Optional(PaymentTokenSchema),
});

export const CustomerData = Type.Object({ customer: CustomerSchema });
