import Type from 'typebox';
import { PAGING, StringEnum } from '../platform/schema.js';
import { ENTRY_TYPES, MERCHANT_ACCOUNTS, SOURCE_TYPES } from './accounts.js';

const Amount = (description: string) =>
  Type.String({ description: `${description} Decimal text with the currency's decimals, like paid_total.` });

export const BalanceSchema = Type.Object({
  currency: Type.String(),
  available: Amount('What the merchant may spend or pay out now.'),
  incoming: Amount('Captured, not yet settled.'),
  reserved: Amount('Held for payouts in flight.'),
  on_hold: Amount('Held for card authorisations.'),
});

export const BalancesData = Type.Object({ balances: Type.Array(BalanceSchema) });

export const BalanceTransactionSchema = Type.Object({
  id: Type.String(),
  type: StringEnum(ENTRY_TYPES),
  amount: Amount("What the entry changes the merchant's funds by, before its fee (a settlement only moves funds: 0)."),
  fee: Amount('The fee the entry takes: settlements, by the fee schedule.'),
  net: Amount("amount less fee: the sum of every entry's net is the merchant's funds."),
  currency: Type.String(),
  source: Type.Object({
    type: StringEnum(SOURCE_TYPES),
    id: Type.String({
      description:
        "The transaction's uuid, the top-up's id, or the card transaction's id (its first entry) or its later step's id (docs/ledger.md).",
    }),
  }),
  created_at: Type.String({ description: 'Business time, ISO 8601 UTC.' }),
  available_on: Type.Union([Type.String(), Type.Null()], {
    description:
      'When the funds become available: for a payment or capture, the settlement it waits for, fixed when posted; null for a void.',
  }),
  lines: Type.Array(
    Type.Object({
      account: StringEnum(MERCHANT_ACCOUNTS),
      amount: Type.String({ description: 'What the entry adds to that balance (negative: takes).' }),
    }),
    { description: "paygate: how the entry moved the merchant's balances." },
  ),
});

export const BalanceTransactionsQuery = Type.Object({
  ...PAGING,
});

export const BalanceTransactionsData = Type.Object({
  balance_transactions: Type.Array(BalanceTransactionSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

export const TopUpBody = Type.Object({
  currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217.' }),
  amount: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
    description: 'Positive, with at most the currency\'s decimals: "1000.00".',
  }),
});

export const TopUpData = Type.Object({
  top_up: Type.Object({ id: Type.String(), currency: Type.String(), amount: Type.String(), created_at: Type.String() }),
  balance: BalanceSchema,
});
