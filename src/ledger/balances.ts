import { type Context, inTransaction } from '../context/context.js';
import { readCurrency, readMoney } from '../platform/money/money.js';
import { type Page, parseFilters } from '../platform/query/filters.js';
import { isMerchantAccount } from './accounts.js';
import { postTopUp } from './post.js';
import type { Balance } from './present.js';
import {
  accountBalances,
  ENTRY_FILTERS,
  type EntryRecord,
  insertTopUp,
  listEntries,
  lockAccount,
  type TopUpRecord,
} from './store.js';

const empty = (currency: string): Balance => ({ currency, available: 0, incoming: 0, reserved: 0, on_hold: 0 });

/**
 * The merchant's balances, one per currency it has ever held; its default currency at zero when it has none yet
 * (a new merchant sees where its money will be).
 */
export async function readBalances(ctx: Context): Promise<Balance[]> {
  const byCurrency = new Map<string, Balance>();
  for (const { currency, account, balance } of await accountBalances(ctx.db, ctx.merchant.id)) {
    if (!isMerchantAccount(account)) continue;
    const held = byCurrency.get(currency) ?? empty(currency);
    held[account] = balance;
    byCurrency.set(currency, held);
  }
  if (byCurrency.size === 0) return [empty(ctx.config.defaultCurrency)];
  return [...byCurrency.values()];
}

export async function balanceIn(ctx: Context, currency: string): Promise<Balance> {
  return (await readBalances(ctx)).find((balance) => balance.currency === currency) ?? empty(currency);
}

/**
 * The merchant's `available` funds in `currency`, its account locked until the transaction ends: what a spend
 * checks before it holds or pays, so that two spends at once cannot both take the same funds.
 */
export async function lockAvailable(ctx: Context, currency: string): Promise<number> {
  return lockAccount(ctx.db, ctx.merchant.id, currency, 'available');
}

/** The journal entries of the merchant, newest first. */
export async function listBalanceTransactions(
  ctx: Context,
  query: Record<string, unknown>,
  page: Page,
): Promise<{ rows: EntryRecord[]; total: number }> {
  return listEntries(ctx.db, ctx.merchant.id, parseFilters(query, ENTRY_FILTERS), page);
}

/** Sandbox funding: credits `available` with money from the bank, recorded as a top-up. */
export async function topUp(
  ctx: Context,
  input: { currency: string; amount: string | number },
): Promise<{ topUp: TopUpRecord; balance: Balance }> {
  const currency = readCurrency(input.currency, 'currency');
  const { minor } = readMoney(input.amount, currency, 'amount');
  return inTransaction(
    ctx,
    async (tx) => {
      const now = tx.clock.now().getTime();
      const record: TopUpRecord = {
        id: ctx.ids.sortable(now),
        merchant_id: tx.merchant.id,
        currency: currency.code,
        amount: minor,
        created_by: actorName(tx),
        created_at: now,
      };
      await insertTopUp(tx.db, record);
      await postTopUp(tx, record);
      return { topUp: record, balance: await balanceIn(tx, currency.code) };
    },
    { completesRequest: true },
  );
}

function actorName(ctx: Context): string {
  return ctx.actor.kind === 'app' ? ctx.actor.appId : ctx.actor.kind;
}
