import Type from 'typebox';
import { AmountInput, PAGING, StringEnum } from '../platform/schema.js';
import { LIMIT_PERIODS } from './limits.js';
import { SETTLEMENT_CURRENCIES } from './program.js';

export const CARD_STATUSES = ['Active', 'Locked', 'Terminated'] as const;

const LimitInput = Type.Object({
  period: StringEnum(LIMIT_PERIODS),
  limit_amount: AmountInput({ description: "Decimal text in the card's settlement currency, positive." }),
});
const LimitsInput = Type.Array(LimitInput, {
  maxItems: LIMIT_PERIODS.length,
  description: 'At most one limit per period.',
});

export const CreateCardBody = Type.Object({
  card: Type.Object({
    user_id: Type.String({ minLength: 1, maxLength: 64, description: 'An approved user of the merchant.' }),
    reference_id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The merchant's own id for the card; unique per merchant.",
    }),
    title: Type.String({ minLength: 1, maxLength: 100 }),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Expense when absent.' })),
    settlement_currency: StringEnum(SETTLEMENT_CURRENCIES),
    limits: Type.Optional(LimitsInput),
  }),
});

export const CardLimitsBody = Type.Object({ limits: LimitsInput });

export const CardParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CardListQuery = Type.Object({
  ...PAGING,
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only this user's cards." })),
});

export const CardLimitSchema = Type.Object({
  period: StringEnum(LIMIT_PERIODS),
  limit_amount: Type.String(),
  used_amount: Type.String({
    description: 'What the current period has spent (authorised and settled), in the same currency.',
  }),
});

export const CardSchema = Type.Object({
  id: Type.String(),
  p_user_id: Type.String(),
  reference_id: Type.String(),
  type: Type.String(),
  title: Type.String(),
  expiration_date: Type.String({ description: 'MM/YY' }),
  settlement_currency: Type.String(),
  first_6_digits: Type.String(),
  last_4_digits: Type.String(),
  status: StringEnum(CARD_STATUSES),
  pan: Type.String({ description: 'Masked: first six and last four digits.' }),
  issuer_brand: Type.Literal('JCB'),
  is_encrypt: Type.Boolean({
    description: 'Whether pan is encrypted: false, since it is masked; the full number is only in full_number.',
  }),
  business_name: Type.String(),
  limits: Type.Array(CardLimitSchema),
  created_at: Type.String(),
});

export const CardData = Type.Object({ card: CardSchema });
export const CardListData = Type.Object({
  cards: Type.Array(CardSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});
export const FullNumberData = Type.Object({
  card: Type.Object({ id: Type.String(), pan: Type.String(), cvv: Type.String(), expiration_date: Type.String() }),
});
export const LimitHistoryData = Type.Object({
  changes: Type.Array(
    Type.Object({
      limits: Type.Array(Type.Object({ period: StringEnum(LIMIT_PERIODS), limit_amount: Type.String() })),
      changed_by: Type.String(),
      created_at: Type.String(),
    }),
  ),
});
