import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { operatorMerchant } from '../cli/operator.js';
import { print } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import { merchantContext } from '../context/context.js';
import { findMerchant } from '../platform/tenants.js';
import { readBalances } from './balances.js';
import { checkLedger } from './check.js';
import { type BalanceReply, presentBalance } from './present.js';
import { ledgerMerchants } from './store.js';

export const BALANCE_COMMAND = defineCommand({
  name: 'balance',
  summary: "show merchants' balances: available, incoming, reserved and on hold, per currency",
  description:
    'Reads the database of the data folder (or DATABASE_URL) directly; every merchant unless --merchant names one.',
  options: {
    merchant: { type: 'string', value: 'ID', description: 'only this merchant' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const merchants = await withPlatform(deps, async (platform) => {
      // One merchant, refused when the database has no such; else every merchant that has a ledger.
      const ids =
        options.merchant !== undefined
          ? [(await operatorMerchant(platform, options.merchant)).id]
          : await ledgerMerchants(platform.db);
      const out: Array<{ merchant_id: string; name: string; balances: BalanceReply[] }> = [];
      for (const id of ids) {
        const merchant = (await findMerchant(platform.db, id))!;
        const balances = await readBalances(merchantContext(platform, merchant, { kind: 'operator' }, 'cli-balance'));
        out.push({ merchant_id: id, name: merchant.name, balances: balances.map(presentBalance) });
      }
      return out;
    });
    print(
      options,
      { merchants },
      () =>
        merchants
          .map((m) =>
            [
              `${m.name} (${m.merchant_id})`,
              ...m.balances.map(
                (b) =>
                  `  ${b.currency}  available ${b.available}  incoming ${b.incoming}  reserved ${b.reserved}  on hold ${b.on_hold}`,
              ),
            ].join('\n'),
          )
          .join('\n') || 'No merchants.',
    );
  },
});

const CHECK = defineCommand({
  name: 'check',
  summary: 'recompute every balance from the journal and from the records that caused it; exit 1 on any difference',
  description:
    "Checks, for every merchant (or --merchant's): each account's stored balance against the sum of its lines; each entry's " +
    'lines against zero; what each record should have posted, as it stands, against what it did post: transactions (sale, capture, ' +
    'void, settlement, refund), card transactions, payouts and top-ups; and entries naming no such record. Prints every difference.',
  options: {
    merchant: { type: 'string', value: 'ID', description: 'only this merchant' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const result = await withPlatform(deps, async (platform) =>
      checkLedger(
        platform,
        options.merchant !== undefined
          ? { merchantIds: [(await operatorMerchant(platform, options.merchant)).id] }
          : {},
      ),
    );
    print(options, result, () =>
      result.differences.length === 0
        ? `The ledger agrees with itself and with its records (${result.merchants} merchant${result.merchants === 1 ? '' : 's'} checked).`
        : [
            `${result.differences.length} difference${result.differences.length === 1 ? '' : 's'}:`,
            ...result.differences.map(
              (d) =>
                `  merchant ${d.merchant_id} ${d.currency} ${d.kind} ${d.subject} ${d.account}: expected ${d.expected}, found ${d.found}`,
            ),
          ].join('\n'),
    );
    return result.differences.length === 0 ? 0 : 1;
  },
});

export const LEDGER_COMMAND = defineCommandGroup({
  name: 'ledger',
  summary: 'check the ledger of every merchant',
  commands: [CHECK],
});
