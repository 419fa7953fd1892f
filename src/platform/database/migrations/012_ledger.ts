import { type Kysely, sql } from 'kysely';
import { newSortableId } from '../../ids.js';
import { currencyExponent } from '../../money/currencies.js';
import { nextLocalHour } from '../../time-zone.js';

/**
 * The ledger (docs/ledger.md): per merchant and currency, the balance of each account; the journal of entries, each
 * with its lines (JSON: account to amount, one B-tree insert per entry rather than one per line) that sum to zero; and
 * the sandbox's top-ups. A database made before it is backfilled here from its
 * transactions, so that `paygate ledger check` passes on it: a payment and capture credit `incoming`, a void takes
 * it back, a settlement moves it to `available` (with no fee: none was charged before the ledger existed), a refund
 * debits `available`. The rules are written out again here on purpose: a migration is frozen as it shipped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger_accounts')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_accounts_key', ['merchant_id', 'currency', 'account'])
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('currency_exponent', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('fee', 'bigint', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('available_on', 'bigint')
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // One entry of a kind per source: what makes posting twice impossible, whatever runs twice.
  await db.schema
    .createIndex('ledger_entries_once')
    .on('ledger_entries')
    .columns(['merchant_id', 'source_type', 'source_id', 'type'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ledger_entries_list')
    .on('ledger_entries')
    .columns(['merchant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('ledger_top_ups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await backfill(db);
}

interface PastTransaction {
  id: string;
  merchant_id: string;
  type: string;
  currency: string;
  amount: number | string;
  voided: number | string;
  voided_at: number | string | null;
  settled_at: number | string | null;
  created_at: number | string;
  timezone: string;
  settlement_hour: number | string;
}

type Lines = Record<string, number>;

async function backfill(db: Kysely<unknown>): Promise<void> {
  const balances = new Map<string, { merchant: string; currency: string; account: string; balance: number }>();
  let after = '';
  for (;;) {
    const { rows } = await sql<PastTransaction>`
      SELECT t.id, t.merchant_id, t.type, t.currency, t.amount, t.voided, t.voided_at, t.settled_at, t.created_at, m.timezone, m.settlement_hour
      FROM transactions t JOIN merchants m ON m.id = t.merchant_id
      WHERE t.status = 'succeeded' AND t.type IN ('Sales', 'Capture', 'Refund') AND t.id > ${after}
      ORDER BY t.id LIMIT 500`.execute(db);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    const entries: Array<Record<string, unknown>> = [];
    const add = (t: PastTransaction, type: string, at: number, accountLines: Lines, availableOn: number | null) => {
      const id = newSortableId(at);
      const net = (accountLines.incoming ?? 0) + (accountLines.available ?? 0);
      entries.push({
        id,
        merchant_id: t.merchant_id,
        currency: t.currency,
        currency_exponent: currencyExponent(t.currency) ?? 2,
        type,
        amount: net,
        fee: 0,
        source_type: 'transaction',
        source_id: t.id,
        available_on: availableOn,
        lines: JSON.stringify(accountLines),
        created_at: at,
      });
      for (const [account, amount] of Object.entries(accountLines)) {
        const key = `${t.merchant_id}\u0000${t.currency}\u0000${account}`;
        const held = balances.get(key) ?? { merchant: t.merchant_id, currency: t.currency, account, balance: 0 };
        held.balance += amount;
        balances.set(key, held);
      }
    };
    for (const t of rows) {
      const amount = Number(t.amount);
      const created = Number(t.created_at);
      if (t.type === 'Refund') {
        add(t, 'refund', created, { acquirer_clearing: amount, available: -amount }, created);
        continue;
      }
      const settledAt = t.settled_at === null ? null : Number(t.settled_at);
      const availableOn = settledAt ?? nextLocalHour(created, Number(t.settlement_hour), t.timezone);
      add(
        t,
        t.type === 'Sales' ? 'payment' : 'capture',
        created,
        { acquirer_clearing: -amount, incoming: amount },
        availableOn,
      );
      if (Number(t.voided) === 1)
        add(t, 'void', Number(t.voided_at ?? created), { acquirer_clearing: amount, incoming: -amount }, null);
      else if (settledAt !== null) add(t, 'settlement', settledAt, { available: amount, incoming: -amount }, settledAt);
    }
    for (let i = 0; i < entries.length; i += 200)
      await db
        .insertInto('ledger_entries' as never)
        .values(entries.slice(i, i + 200) as never)
        .execute();
  }
  const accounts = [...balances.values()].map((a) => ({
    merchant_id: a.merchant,
    currency: a.currency,
    account: a.account,
    balance: a.balance,
    updated_at: 0,
  }));
  for (let i = 0; i < accounts.length; i += 500)
    await db
      .insertInto('ledger_accounts' as never)
      .values(accounts.slice(i, i + 500) as never)
      .execute();
}
