import Type from 'typebox';
import { Nullable, StringEnum } from '../platform/schema.js';

export const PAYEE_TYPES = ['Company', 'People'] as const;
export const TRANSFER_METHODS = [
  'HK FPS - Account Number',
  'HK FPS - Mobile',
  'HK FPS - Email',
  'HK FPS- FPS ID',
] as const;
export const SCHEDULE_STATUSES = ['Pending Approval', 'Approved', 'Rejected', 'Cancelled', 'Failed'] as const;
export const TRANSFER_STATUSES = [
  'Initiated',
  'Processing Transfer',
  'Settled',
  'Terminated',
  'Reversed',
  'Refunded',
] as const;

export type TransferMethod = (typeof TRANSFER_METHODS)[number];
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** Identifiers the method does not use may be absent, null or empty; the rules of each method are in payee-rules.ts. */
const optionalText = (maxLength: number, description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength, ...(description && { description }) })));

const HkFps = Type.Object({
  bank_account: Type.Optional(
    Nullable(
      Type.Object({
        bank_code: optionalText(3, 'HK FPS - Account Number: the 3-digit bank code'),
        account_name: optionalText(140, 'HK FPS - Account Number: the name on the account'),
        account_number: optionalText(12, 'HK FPS - Account Number: 6 to 12 digits'),
      }),
    ),
  ),
  email: optionalText(254, 'HK FPS - Email: the email address registered with FPS'),
  mobile: optionalText(16, 'HK FPS - Mobile: a Hong Kong mobile number, 8 digits from 4 to 9, optionally after +852'),
  fps_id: optionalText(9, 'HK FPS- FPS ID: 7 to 9 digits'),
});

export const CreatePayeeBody = Type.Object({
  payee: Type.Object({
    type: StringEnum(PAYEE_TYPES),
    nickname: Type.String({ minLength: 1, maxLength: 100 }),
    email: optionalText(254, "The payee's own email address"),
    phone_country_code: optionalText(4, '1 to 3 digits, optionally after +'),
    phone_number: optionalText(15, '4 to 15 digits'),
    payout_account: Type.Object({
      country: Type.String({
        pattern: '^[A-Za-z]{2}$',
        description: 'ISO 3166 alpha-2: HK (every method is Hong Kong FPS)',
      }),
      currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'HKD or CNY: the currencies FPS carries' }),
      transfer_method: StringEnum(TRANSFER_METHODS),
      hk_fps: HkFps,
    }),
  }),
});

export const PayeeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const PayeeSchema = Type.Object({
  id: Type.String(),
  type: StringEnum(PAYEE_TYPES),
  nickname: Type.String(),
  email: Nullable(Type.String()),
  phone_country_code: Nullable(Type.String()),
  phone_number: Nullable(Type.String()),
  payout_account: Type.Object({
    country: Type.String(),
    currency: Type.String(),
    transfer_method: StringEnum(TRANSFER_METHODS),
    hk_fps: Type.Object({
      bank_account: Nullable(
        Type.Object({ bank_code: Type.String(), account_name: Type.String(), account_number: Type.String() }),
      ),
      email: Nullable(Type.String()),
      mobile: Nullable(Type.String({ description: 'As +852-XXXXXXXX.' })),
      fps_id: Nullable(Type.String()),
    }),
  }),
  created_at: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
});

export const PayeeData = Type.Object({ payee: PayeeSchema });
export const PayeeListData = Type.Object({
  payees: Type.Array(PayeeSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});
export const DeletedPayeeData = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export const CreatePayoutBody = Type.Object({
  payout_request: Type.Object({
    payee_id: Type.String({ minLength: 1, maxLength: 64, description: "Required: one of the merchant's payees." }),
    currency: Type.String({ maxLength: 8, description: "The payee account's currency." }),
    amount: Type.String({
      maxLength: 32,
      description: 'Decimal text, positive, within the currency\'s exponent: "1500.00".',
    }),
    callback_url: Type.String({
      maxLength: 2048,
      description: 'An http or https URL; anything else is refused with 820007.',
    }),
    remark: Type.Optional(Type.String({ maxLength: 120 })),
    reference_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        description: 'Unique per merchant: the same reference with the same content is the same payout.',
      }),
    ),
    schedule_at: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'YYYY-MM-DDTHH:mm:ssZ exactly (UTC, seconds, the Z), in the future on the business clock.',
      }),
    ),
  }),
});

export const PayoutParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DecisionBody = Type.Object({
  reason: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Why it was rejected or cancelled.' }),
  ),
});

export const PayoutSchema = Type.Object({
  id: Type.String(),
  amount: Type.String({ description: 'Decimal text.' }),
  currency: Type.String(),
  transfer_status: StringEnum(TRANSFER_STATUSES),
  schedule_status: StringEnum(SCHEDULE_STATUSES),
  created_at: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
  payee_id: Type.String({ description: 'paygate: the payee paid.' }),
  reference_id: Nullable(Type.String()),
  remark: Nullable(Type.String()),
  callback_url: Type.String(),
  schedule_at: Nullable(Type.String({ description: 'paygate: as given, YYYY-MM-DDTHH:mm:ssZ.' })),
  status_reason: Nullable(
    Type.String({
      description: 'paygate: why it failed, was rejected or cancelled, or why the bank terminated or returned it.',
    }),
  ),
  decided_by: Nullable(
    Type.String({ description: 'paygate: who approved, rejected or cancelled it: app:<AppID> or operator.' }),
  ),
  updated_at: Type.String(),
});

export const PayoutData = Type.Object({ payout_request: PayoutSchema });
export const PayoutListData = Type.Object({
  payout_requests: Type.Array(PayoutSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});
