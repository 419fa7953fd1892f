/**
 * The accounts of one merchant in one currency. The merchant's own hold its funds: positive is what the platform
 * owes it. The platform's side carries the other half of every entry, so that each entry sums to zero.
 */
export const MERCHANT_ACCOUNTS = ['available', 'incoming', 'reserved', 'on_hold'] as const;
export const PLATFORM_ACCOUNTS = ['acquirer_clearing', 'fees', 'bank', 'card_network'] as const;

export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];
export type PlatformAccount = (typeof PLATFORM_ACCOUNTS)[number];
export type Account = MerchantAccount | PlatformAccount;

export const ENTRY_TYPES = [
  'payment',
  'capture',
  'void',
  'settlement',
  'refund',
  'top_up',
  'card_hold',
  'card_release',
  'card_settlement',
  'card_refund',
  'card_withdrawal',
  'payout_reserve',
  'payout_release',
  'payout_settlement',
  'payout_return',
  'payout_refund',
] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export const SOURCE_TYPES = ['transaction', 'top_up', 'card_transaction', 'payout_request'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export function isMerchantAccount(account: string): account is MerchantAccount {
  return (MERCHANT_ACCOUNTS as readonly string[]).includes(account);
}
