import Type from 'typebox';
import { AmountInput, Nullable, PAGING, StringEnum } from '../../platform/schema.js';

/** Operation 4's card transaction, exactly as interface.md gives it: every field text. */
export const CardTransactionSchema = Type.Object({
  id: Type.String(),
  p_business_id: Nullable(Type.String()),
  p_user_id: Nullable(Type.String()),
  card: Type.String(),
  status: StringEnum(['Authorized', 'Declined', 'Settled'] as const),
  type: StringEnum(['Sales', 'Refund', 'Withdrawal'] as const),
  transaction_currency: Type.String(),
  transaction_amount: Type.String({
    description: 'Signed decimal text: negative for a purchase or a withdrawal, positive for a refund.',
  }),
  local_currency: Type.String(),
  local_amount: Type.String({
    description: "The amount converted into the card's currency at the authorisation's rate.",
  }),
  final_local_amount: Type.String({
    description:
      "What was debited in the end: the settled amount at the settlement's rate plus the fee; 0 until settled.",
  }),
  calculated_fee: Type.String({ description: 'The foreign-exchange fee.' }),
  merchant_id: Type.String(),
  merchant_country: Type.String(),
  merchant_city: Type.String(),
  merchant_name: Type.String(),
  p_created_at: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
});

export const CardTransactionsQuery = Type.Object({
  ...PAGING,
  card: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only this card's transactions." })),
});

export const CardTransactionsData = Type.Object({ transactions: Type.Array(CardTransactionSchema) });

const NetworkMerchant = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  city: Type.String({ minLength: 1, maxLength: 64 }),
  country: Type.String({ pattern: '^[A-Za-z]{2,3}$', description: 'ISO 3166 code, such as HK or HKG' }),
  category: Type.String({ pattern: '^[0-9]{4}$', description: 'A four-digit merchant category code (MCC)' }),
});

export const SimulatedSpendBody = Type.Object({
  card_id: Type.String({ minLength: 1, maxLength: 64 }),
  amount: AmountInput({ description: 'Decimal text in currency, positive.' }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  merchant: NetworkMerchant,
});

export const IncrementBody = Type.Object({ amount: AmountInput() });
export const ReverseBody = Type.Object({
  amount: Type.Optional(AmountInput({ description: 'What to reverse; all that is authorised when absent.' })),
});
export const SettleBody = Type.Object({
  amount: Type.Optional(
    AmountInput({ description: 'What clears: less or more than authorised; the authorised amount when absent.' }),
  ),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: "The authorisation's currency." })),
});
export const AuthorizationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const SimulatedTransactionData = Type.Object({
  transaction: CardTransactionSchema,
  decline_reason: Nullable(Type.String({ description: 'Why it was declined (docs/issuing.md); null when approved.' })),
});
