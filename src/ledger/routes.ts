import { clientCall } from '../http/examples.js';
import { listParameters, pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { listBalanceTransactions, readBalances } from './balances.js';
import { EXAMPLE_BALANCE, EXAMPLE_ENTRIES } from './examples.js';
import { presentBalance, presentEntry } from './present.js';
import { BalancesData, BalanceTransactionsData, BalanceTransactionsQuery } from './schemas.js';

const BASE = '/svc/ts/api/v1/openapi';
const TAGS = ['ledger'];

export const LEDGER_ROUTES = [
  defineRoute({
    method: 'GET',
    url: `${BASE}/balances`,
    operationId: 'getBalances',
    summary: "The merchant's balances, one per currency: available, incoming, reserved and on hold (docs/ledger.md).",
    tags: TAGS,
    data: BalancesData,
    errors: [],
    handler: async ({ ctx }) => ({ balances: (await readBalances(ctx)).map(presentBalance) }),
    example: { request: {}, reply: { balances: [EXAMPLE_BALANCE] }, client: clientCall('balances.get') },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/balance_transactions`,
    operationId: 'listBalanceTransactions',
    summary:
      "The ledger's entries that moved the merchant's money, newest first, with filter[field][operator]=value (docs/ledger.md).",
    tags: TAGS,
    querystring: BalanceTransactionsQuery,
    data: BalanceTransactionsData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listBalanceTransactions(ctx, listParameters(query), query);
      return pageReply('balance_transactions', query, rows.map(presentEntry), total);
    },
    example: {
      request: { query: { 'filter[source.id][_eq]': EXAMPLE_ENTRIES[0]!.source.id } },
      reply: { balance_transactions: EXAMPLE_ENTRIES, offset: 0, limit: 20, total: 2 },
      client: clientCall('balances.transactions', {
        filters: { 'filter[source.id][_eq]': EXAMPLE_ENTRIES[0]!.source.id },
      }),
    },
  }),
];
