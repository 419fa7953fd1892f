import type { Static } from 'typebox';
import { iso } from '../platform/clock.js';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import { isMerchantAccount, MERCHANT_ACCOUNTS, type MerchantAccount } from './accounts.js';
import type { BalanceSchema, BalanceTransactionSchema } from './schemas.js';
import { type EntryRecord, linesOf, type TopUpRecord } from './store.js';

export type Balance = { currency: string } & Record<MerchantAccount, number>;
export type BalanceReply = Static<typeof BalanceSchema>;
export type BalanceTransactionReply = Static<typeof BalanceTransactionSchema>;

export function presentBalance(balance: Balance): BalanceReply {
  const exponent = exponentOf(balance.currency);
  const [available, incoming, reserved, onHold] = MERCHANT_ACCOUNTS.map((account) =>
    formatAmount(balance[account], exponent),
  );
  return {
    currency: balance.currency,
    available: available!,
    incoming: incoming!,
    reserved: reserved!,
    on_hold: onHold!,
  };
}

export function presentEntry(entry: EntryRecord): BalanceTransactionReply {
  const money = (minor: number) => formatAmount(minor, entry.currency_exponent);
  return {
    id: entry.id,
    type: entry.type as BalanceTransactionReply['type'],
    amount: money(entry.amount),
    fee: money(entry.fee),
    net: money(entry.amount - entry.fee),
    currency: entry.currency,
    source: { type: entry.source_type as BalanceTransactionReply['source']['type'], id: entry.source_id },
    created_at: iso(entry.created_at),
    available_on: entry.available_on === null ? null : iso(entry.available_on),
    lines: Object.entries(linesOf(entry))
      .filter((line): line is [MerchantAccount, number] => isMerchantAccount(line[0]))
      .sort(([a], [b]) => MERCHANT_ACCOUNTS.indexOf(a) - MERCHANT_ACCOUNTS.indexOf(b))
      .map(([account, amount]) => ({ account, amount: money(amount) })),
  };
}

export function presentTopUp(topUp: TopUpRecord): { id: string; currency: string; amount: string; created_at: string } {
  return {
    id: topUp.id,
    currency: topUp.currency,
    amount: formatAmount(topUp.amount, exponentOf(topUp.currency)),
    created_at: iso(topUp.created_at),
  };
}
