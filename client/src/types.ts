/** Shapes of what paygate returns and accepts, as the OpenAPI document at `/openapi.json` declares them. */

export const DEFAULT_PAYMENT_METHODS = ['Credit Card', 'Alipay', 'Wechat Pay'] as const;
export type DefaultPaymentMethod = (typeof DEFAULT_PAYMENT_METHODS)[number];

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export interface ErrorEnvelope {
  code: number;
  error_code: string;
  message: string;
  data: null;
}

export interface Customer {
  uuid: string;
  reference_number: string;
  name: string;
  phone: string;
  /** Always present; `""` when unknown. */
  dial_code: string;
  email?: string;
  company_name?: string;
  default_payment_method?: DefaultPaymentMethod;
  default_payment_token?: PaymentToken;
}

export interface PaymentToken {
  token_type: 'CreditCard' | 'WechatPayAutoDebit' | 'AlipayAutoDebit';
  token: string;
  state: 'pending' | 'success' | 'failed';
  default: boolean;
  verify_url?: string | null;
  verify_uuid?: string;
  error_code?: string;
  error_msg?: string;
  credit_card?: {
    number: string;
    exp_month: string;
    exp_year: string;
    holder_name: string;
    brand: string;
    billing_currency: string;
  };
}

/** Optional fields: omit to keep the stored value, send `null` to clear it. */
export interface CustomerFields {
  name: string;
  phone: string;
  email?: string | null;
  dial_code?: string | null;
  company_name?: string | null;
  default_payment_method?: DefaultPaymentMethod | null;
  default_payment_token?: string | null;
}

export interface CustomerInput extends CustomerFields {
  reference_number: string;
}
