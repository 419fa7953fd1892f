import { merchantContext, type PlatformContext } from '../context/context.js';
import { moneyTransactions } from '../orders/lookup.js';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import { findMerchant } from '../platform/tenants.js';
import { isMerchantAccount, type Account } from './accounts.js';
import { accountBalances, allEntries, ledgerMerchants, linesOf, topUps } from './store.js';

/** One thing the check found wrong, said so that an operator can act on it. */
export interface LedgerDifference {
  merchant_id: string;
  currency: string;
  /** What disagrees: an account's stored balance, an entry, or what a record (a transaction, a top-up) should have posted. */
  kind: 'balance' | 'entry' | 'source';
  subject: string;
  account: string;
  expected: string;
  found: string;
}

export interface LedgerCheck {
  merchants: number;
  differences: LedgerDifference[];
}

type Sums = Map<string, number>;
const key = (currency: string, subject: string, account: string) => `${currency}\u0000${subject}\u0000${account}`;
const add = (sums: Sums, k: string, amount: number) => sums.set(k, (sums.get(k) ?? 0) + amount);

/**
 * Recomputes every balance twice: from the journal (each account's stored balance against the sum of its lines,
 * each entry's lines against zero and against its amount less fee), and from the records that caused it (what each
 * transaction and top-up should have posted, as they stand now, against what it did post). Answers every difference.
 */
export async function checkLedger(platform: PlatformContext, options: { merchantIds?: string[] } = {}): Promise<LedgerCheck> {
  const merchantIds = options.merchantIds ?? (await ledgerMerchants(platform.db));
  const differences: LedgerDifference[] = [];
  for (const merchantId of merchantIds) differences.push(...(await checkMerchant(platform, merchantId)));
  return { merchants: merchantIds.length, differences };
}

async function checkMerchant(platform: PlatformContext, merchantId: string): Promise<LedgerDifference[]> {
  const merchant = await findMerchant(platform.db, merchantId);
  if (!merchant) return [];
  const ctx = merchantContext(platform, merchant, { kind: 'operator' }, 'ledger-check');
  const found: LedgerDifference[] = [];
  const differ = (kind: LedgerDifference['kind'], currency: string, subject: string, account: string, expected: number, actual: number) => {
    const exponent = exponentOf(currency);
    found.push({ merchant_id: merchantId, currency, kind, subject, account, expected: formatAmount(expected, exponent), found: formatAmount(actual, exponent) });
  };

  // One pass over the journal: each account's sum of lines, each source's lines by account, each settlement's fee;
  // and each entry against zero and against its amount less fee.
  const summed: Sums = new Map();
  const posted: Sums = new Map();
  const fees = new Map<string, number>();
  for await (const entry of allEntries(ctx.db, merchantId)) {
    let total = 0;
    let funds = 0;
    for (const [account, amount] of Object.entries(linesOf(entry))) {
      total += amount;
      if (isMerchantAccount(account)) funds += amount;
      add(summed, key(entry.currency, '', account), amount);
      add(posted, key(entry.currency, `${entry.source_type}:${entry.source_id}`, account), amount);
    }
    if (total !== 0) differ('entry', entry.currency, entry.id, 'all lines', 0, total);
    if (funds !== entry.amount - entry.fee) differ('entry', entry.currency, entry.id, 'amount less fee', funds, entry.amount - entry.fee);
    if (entry.type === 'settlement') fees.set(entry.source_id, entry.fee);
  }
  const stored: Sums = new Map();
  for (const row of await accountBalances(ctx.db, merchantId)) stored.set(key(row.currency, '', row.account), row.balance);
  for (const k of new Set([...stored.keys(), ...summed.keys()])) {
    const [currency, , account] = k.split('\u0000') as [string, string, string];
    if ((stored.get(k) ?? 0) !== (summed.get(k) ?? 0)) differ('balance', currency, 'sum of its lines', account, summed.get(k) ?? 0, stored.get(k) ?? 0);
  }

  // The journal against the records.
  const expected: Sums = new Map();
  const expect = (currency: string, subject: string, lines: Partial<Record<Account, number>>) => {
    for (const [account, amount] of Object.entries(lines)) add(expected, key(currency, subject, account), amount);
  };
  for (const t of await moneyTransactions(ctx)) {
    const subject = `transaction:${t.id}`;
    if (t.type === 'Refund') {
      expect(t.currency, subject, { available: -t.amount, acquirer_clearing: t.amount });
    } else if (t.voided === 1) {
      expect(t.currency, subject, {});
    } else if (t.settled_at !== null) {
      const fee = fees.get(t.id) ?? 0;
      if (fee < 0 || fee > t.amount) differ('source', t.currency, subject, 'fees', Math.min(Math.max(fee, 0), t.amount), fee);
      expect(t.currency, subject, { acquirer_clearing: -t.amount, available: t.amount - fee, fees: fee });
    } else {
      expect(t.currency, subject, { incoming: t.amount, acquirer_clearing: -t.amount });
    }
  }
  for (const topUp of await topUps(ctx.db, merchantId)) expect(topUp.currency, `top_up:${topUp.id}`, { available: topUp.amount, bank: -topUp.amount });
  for (const k of new Set([...expected.keys(), ...posted.keys()])) {
    const want = expected.get(k) ?? 0;
    const have = posted.get(k) ?? 0;
    if (want === have) continue;
    const [currency, subject, account] = k.split('\u0000') as [string, string, string];
    differ('source', currency, subject, account, want, have);
  }
  return found;
}
