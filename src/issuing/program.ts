/**
 * The card program's terms (docs/issuing.md): the currencies a card settles in, how long a card is valid. The
 * card network simulator's exchange rates and fees sit beside them.
 */
export const SETTLEMENT_CURRENCIES = ['HKD', 'USD'] as const;
export type SettlementCurrency = (typeof SETTLEMENT_CURRENCIES)[number];

/** A card expires at the end of the month of issue, this many years on (business time). */
export const CARD_VALID_YEARS = 3;

export const DEFAULT_CARD_TYPE = 'Expense';
