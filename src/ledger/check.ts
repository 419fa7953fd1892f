import { type Context, type LedgerSource, merchantContext, type PlatformContext } from '../context/context.js';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import { findMerchant } from '../platform/tenants.js';
import { type Account, isMerchantAccount } from './accounts.js';
import {
  accountBalances,
  type EntryRecord,
  entriesOfSources,
  entryPages,
  ledgerMerchants,
  linesOf,
  topUpPages,
  topUpsAmong,
} from './store.js';

/** One thing the check found wrong, said so that an operator can act on it. */
export interface LedgerDifference {
  merchant_id: string;
  currency: string;
  /**
   * What disagrees: an account's stored balance, an entry, or what a record (a transaction, a top-up) should have
   * posted.
   */
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

type Differ = (
  kind: LedgerDifference['kind'],
  currency: string,
  subject: string,
  account: string,
  expected: number,
  found: number,
) => void;

/**
 * Recomputes every balance twice, and answers every difference:
 * - from the records that caused it: what each record of every capability's ledger source (a transaction, a card
 *   transaction, a payout) and each top-up should have posted, as it stands now, against what was posted under its
 *   names (a card transaction's later entries are named by its steps);
 * - from the journal: each entry's lines against zero and against its amount less fee, each entry's source against
 *   the records (an entry naming nothing that moved money), and each account's stored balance against the sum of
 *   its lines.
 * Both go a page at a time: the check never holds a merchant's whole history.
 */
export async function checkLedger(
  platform: PlatformContext,
  options: { merchantIds?: string[] } = {},
): Promise<LedgerCheck> {
  const merchantIds = options.merchantIds ?? (await ledgerMerchants(platform.db));
  const differences: LedgerDifference[] = [];
  for (const merchantId of merchantIds) {
    const merchant = await findMerchant(platform.db, merchantId);
    if (!merchant) continue;
    const ctx = merchantContext(platform, merchant, { kind: 'operator' }, 'ledger-check');
    const differ: Differ = (kind, currency, subject, account, expected, found) => {
      const exponent = exponentOf(currency);
      differences.push({
        merchant_id: merchantId,
        currency,
        kind,
        subject,
        account,
        expected: formatAmount(expected, exponent),
        found: formatAmount(found, exponent),
      });
    };
    await checkRecords(ctx, differ);
    await checkJournal(ctx, differ);
  }
  return { merchants: merchantIds.length, differences };
}

const TOP_UP_LEDGER: LedgerSource = {
  type: 'top_up',
  async *pages(ctx) {
    for await (const page of topUpPages(ctx.db, ctx.merchant.id)) {
      yield page.map((topUp) => ({
        subject: `top_up:${topUp.id}`,
        currency: topUp.currency,
        entryNames: [topUp.id],
        expected: () => ({ available: topUp.amount, bank: -topUp.amount }),
      }));
    }
  },
  among: (ctx, ids) => topUpsAmong(ctx.db, ctx.merchant.id, ids),
};

/**
 * The ledger's own top-ups, and what every capability moves (its module's ledger sources). A platform opened without
 * them would check the top-ups alone and call every other entry an orphan: refused rather than half done.
 */
function sourcesOf(ctx: Context): LedgerSource[] {
  if (!ctx.ledgerSources)
    throw new Error('the ledger check needs the ledger sources of the modules (openComposedPlatform passes them)');
  return [...ctx.ledgerSources, TOP_UP_LEDGER];
}

async function checkRecords(ctx: Context, differ: Differ): Promise<void> {
  for (const source of sourcesOf(ctx)) {
    for await (const page of source.pages(ctx)) {
      const entries = await entriesOfSources(
        ctx.db,
        ctx.merchant.id,
        source.type,
        page.flatMap((record) => record.entryNames),
      );
      for (const record of page) {
        const own = record.entryNames.flatMap((name) => entries.get(name) ?? []);
        compare(differ, record.subject, record.currency, record.expected(own), own);
      }
    }
  }
}

/** A source's expected lines against the sum of its entries' lines, account by account (and currency by currency). */
function compare(
  differ: Differ,
  subject: string,
  currency: string,
  expected: Readonly<Record<string, number>>,
  entries: EntryRecord[],
): void {
  const posted = new Map<string, number>();
  for (const entry of entries) {
    for (const [account, amount] of Object.entries(linesOf(entry)))
      posted.set(`${entry.currency}\u0000${account}`, (posted.get(`${entry.currency}\u0000${account}`) ?? 0) + amount);
  }
  const wanted = new Map(Object.entries(expected).map(([account, amount]) => [`${currency}\u0000${account}`, amount]));
  for (const k of new Set([...wanted.keys(), ...posted.keys()])) {
    const want = wanted.get(k) ?? 0;
    const have = posted.get(k) ?? 0;
    if (want === have) continue;
    const [inCurrency, account] = k.split('\u0000') as [string, Account];
    differ('source', inCurrency, subject, account, want, have);
  }
}

async function checkJournal(ctx: Context, differ: Differ): Promise<void> {
  const summed = new Map<string, number>();
  for await (const page of entryPages(ctx.db, ctx.merchant.id)) {
    for (const entry of page) {
      let total = 0;
      let funds = 0;
      for (const [account, amount] of Object.entries(linesOf(entry))) {
        total += amount;
        if (isMerchantAccount(account)) funds += amount;
        summed.set(
          `${entry.currency}\u0000${account}`,
          (summed.get(`${entry.currency}\u0000${account}`) ?? 0) + amount,
        );
      }
      if (total !== 0) differ('entry', entry.currency, entry.id, 'all lines', 0, total);
      if (funds !== entry.amount - entry.fee)
        differ('entry', entry.currency, entry.id, 'amount less fee', funds, entry.amount - entry.fee);
    }
    // Entries whose source moved no money (a failed payment, a transaction or top-up that does not exist).
    const known = new Map<string, Set<string>>();
    for (const source of sourcesOf(ctx)) {
      const names = [
        ...new Set(page.filter((entry) => entry.source_type === source.type).map((entry) => entry.source_id)),
      ];
      known.set(source.type, names.length === 0 ? new Set() : await source.among(ctx, names));
    }
    for (const entry of page) {
      if (known.get(entry.source_type)?.has(entry.source_id) === true) continue;
      for (const [account, amount] of Object.entries(linesOf(entry)))
        differ('source', entry.currency, `${entry.source_type}:${entry.source_id}`, account, 0, amount);
    }
  }
  const stored = new Map<string, number>();
  for (const row of await accountBalances(ctx.db, ctx.merchant.id))
    stored.set(`${row.currency}\u0000${row.account}`, row.balance);
  for (const k of new Set([...stored.keys(), ...summed.keys()])) {
    const [currency, account] = k.split('\u0000') as [string, string];
    if ((stored.get(k) ?? 0) !== (summed.get(k) ?? 0))
      differ('balance', currency, 'sum of its lines', account, summed.get(k) ?? 0, stored.get(k) ?? 0);
  }
}
