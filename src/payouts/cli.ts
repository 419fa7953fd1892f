import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { MERCHANT_OPTION, operatorContext } from '../cli/operator.js';
import { print, UsageError } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import type { Context } from '../context/context.js';
import { formatAmount, readCurrency, readMoney } from '../platform/money/money.js';
import { approvePayout, cancelPayout, listMerchantPayouts, type PayoutRow, rejectPayout } from './payouts.js';
import { type PayoutReply, presentPayout } from './present.js';
import { SCHEDULE_STATUSES } from './schemas.js';
import { approvalThreshold, setApprovalThreshold } from './thresholds.js';

const ID_ARGUMENT = [{ name: 'payoutId', description: 'the payout request, by its id' }] as const;

const LIST = defineCommand({
  name: 'list',
  summary: "list a merchant's payout requests, newest first, with both of their statuses",
  options: {
    merchant: MERCHANT_OPTION,
    status: {
      type: 'string',
      value: 'STATUS',
      description: `only payouts of this schedule_status: ${SCHEDULE_STATUSES.join(', ')}`,
    },
    limit: { type: 'string', value: 'N', default: '50', description: 'how many to list, from 1 to 1000' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError('--limit must be a whole number from 1 to 1000');
    if (options.status !== undefined && !(SCHEDULE_STATUSES as readonly string[]).includes(options.status)) {
      throw new UsageError(
        `--status takes one of ${SCHEDULE_STATUSES.join(', ')} (got ${JSON.stringify(options.status)})`,
      );
    }
    const filters = options.status === undefined ? {} : { 'filter[schedule_status][_eq]': options.status };
    const { rows, total } = await withPlatform(deps, async (platform) =>
      listMerchantPayouts(await operatorContext(platform, options.merchant, 'cli:payouts'), filters, {
        offset: 0,
        limit,
      }),
    );
    const payouts = rows.map(presentPayout);
    print(options, { payout_requests: payouts, limit, total }, () => describe(payouts, total));
  },
});

/** approve, reject and cancel: the operator decides, recorded as `operator`. */
function decisionCommand(
  name: 'approve' | 'reject' | 'cancel',
  summary: string,
  decide: (ctx: Context, id: string, reason: string | undefined) => Promise<PayoutRow>,
) {
  return defineCommand({
    name,
    summary,
    arguments: ID_ARGUMENT,
    options: {
      merchant: MERCHANT_OPTION,
      ...(name !== 'approve' && {
        reason: { type: 'string', value: 'TEXT', description: 'why (kept as status_reason)' },
      }),
      json: JSON_OPTION,
    },
    async run({ options, args }, deps) {
      const reason = (options as { reason?: string }).reason;
      const payout = await withPlatform(deps, async (platform) =>
        decide(await operatorContext(platform, options.merchant, 'cli:payouts'), args.payoutId, reason),
      );
      const shown = presentPayout(payout);
      print(
        options,
        { payout_request: shown },
        () => `Payout ${shown.id}: ${shown.schedule_status}, ${shown.transfer_status}`,
      );
    },
  });
}

const THRESHOLD = defineCommand({
  name: 'threshold',
  summary: "set from which amount a merchant's payouts in a currency wait for approval (default 10000 in any currency)",
  description:
    'A payout whose amount is at or above the threshold is created Pending Approval; below it, Approved. 0: every payout waits. ' +
    'Without --amount, shows the threshold in force.',
  options: {
    merchant: MERCHANT_OPTION,
    currency: { type: 'string', value: 'CODE', required: true, description: 'ISO 4217 code, such as HKD' },
    amount: { type: 'string', value: 'N', description: 'decimal amount in the currency, such as 5000 or 5000.00' },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const currency = readCurrency(options.currency, '--currency');
    const threshold = await withPlatform(deps, async (platform) => {
      const ctx = await operatorContext(platform, options.merchant, 'cli:payouts');
      if (options.amount !== undefined) {
        const { minor } = readMoney(options.amount, currency, '--amount', { allowZero: true });
        await setApprovalThreshold(platform, ctx.merchant.id, currency.code, minor);
      }
      return approvalThreshold(ctx, currency.code);
    });
    const amount = formatAmount(threshold, currency.exponent);
    print(
      options,
      { merchant_id: options.merchant, currency: currency.code, threshold: amount },
      () => `Payouts of ${amount} ${currency.code} or more wait for approval.`,
    );
  },
});

export const PAYOUTS_COMMAND = defineCommandGroup({
  name: 'payouts',
  summary: "see merchants' payout requests, approve, reject or cancel them, and set the approval threshold",
  commands: [
    LIST,
    decisionCommand('approve', 'approve a payout request pending approval', (ctx, id) => approvePayout(ctx, id)),
    decisionCommand('reject', 'reject a payout request pending approval', rejectPayout),
    decisionCommand('cancel', 'cancel a payout request pending approval, or approved and not yet run', cancelPayout),
    THRESHOLD,
  ],
});

function describe(payouts: PayoutReply[], total: number): string {
  if (payouts.length === 0) return 'No payout requests.';
  const header = ['ID', 'AMOUNT', 'CURRENCY', 'SCHEDULE', 'TRANSFER', 'SCHEDULE AT', 'CREATED'];
  const rows = payouts.map((p) => [
    p.id,
    p.amount,
    p.currency,
    p.schedule_status,
    p.transfer_status,
    p.schedule_at ?? '-',
    p.created_at,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const shown =
    payouts.length < total
      ? `${payouts.length} of ${total} payout requests (--limit for more)`
      : `${total} payout request${total === 1 ? '' : 's'}`;
  return [line(header), ...rows.map(line), shown].join('\n');
}
