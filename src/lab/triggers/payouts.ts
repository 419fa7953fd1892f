import { balanceIn, TopUpBody, topUp } from '../../ledger/index.js';
import {
  approvalThreshold,
  approvePayout,
  CreatePayeeBody,
  CreatePayoutBody,
  cancelPayout,
  createPayee,
  createPayout,
  DecisionBody,
  rejectPayout,
} from '../../payouts/index.js';
import { formatAmount, readCurrency } from '../../platform/money/money.js';
import { inboxUrl } from '../inbox/inbox.js';
import { majorUnits, optional } from './common.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';

const MINUTE_S = 60;
const HOUR_S = 60 * MINUTE_S;

const PAYOUT_FIELDS = [
  field('reference_id', 'text', "the payout's reference id (a fresh TRIGGER-PAYOUT-… by default)"),
  field('currency', 'text', "the payout's (and its payee account's) currency, HKD or CNY (HKD by default)"),
  field('remark', 'text', "the payout's remark"),
  field('callback_url', 'text', "where the payout's events are sent (the merchant's capture inbox by default)"),
  field('nickname', 'text', "the payee's nickname"),
];
const AMOUNT = field('amount', 'amount', 'the amount paid out (100 in the currency by default)');
const WITH_AMOUNT = [...PAYOUT_FIELDS, AMOUNT];

/** The bank's outcome, steered by the end of the payee's account number (docs/sandbox.md's bank). */
type BankOutcome = 'settles' | 'rejects' | 'returns';
const ACCOUNT_ENDING: Record<BankOutcome, string> = { settles: '0001', rejects: '0002', returns: '0003' };

interface PayoutPlan {
  /** What to pay: an amount, the approval threshold (it waits for approval), or more than the balance holds. */
  amount: 'given' | 'threshold' | 'beyond-balance';
  /** Runs a day from now: nothing happens to it before then. */
  tomorrow?: boolean;
  /** Funds the balance for it first. */
  funded?: boolean;
  bank?: BankOutcome;
}

/** A payee (a company paid by FPS to a bank account) and a payout to it, as `POST payees` and operation 9 make them. */
async function newPayout(run: TriggerRun, plan: PayoutPlan): Promise<{ id: string; pending: boolean }> {
  const currencyText = run.value('currency', 'HKD');
  // The verbs would refuse an unknown currency the same way; it is read first to size the amount in it.
  const currency = readCurrency(typeof currencyText === 'string' ? currencyText : '', 'payout_request.currency');
  const payee = await createPayee(
    run.ctx,
    run.check(CreatePayeeBody, {
      payee: {
        type: 'Company',
        nickname: run.value('nickname', 'Trigger Supplies'),
        payout_account: {
          country: 'HK',
          currency: currencyText,
          transfer_method: 'HK FPS - Account Number',
          hk_fps: {
            bank_account: {
              bank_code: '004',
              account_name: 'Trigger Supplies Ltd',
              account_number: `${run.digits(5)}${ACCOUNT_ENDING[plan.bank ?? 'settles']}`,
            },
          },
        },
      },
    }).payee,
  );
  run.made('payee', { id: payee.id });
  let amount: unknown;
  if (plan.amount === 'given') amount = run.value('amount', majorUnits(currency.code, 100));
  else if (plan.amount === 'threshold')
    amount = formatAmount(
      Math.max(await approvalThreshold(run.ctx, currency.code), 10 ** currency.exponent),
      currency.exponent,
    );
  else
    amount = formatAmount(
      Math.max(0, (await balanceIn(run.ctx, currency.code)).available) + 100 * 10 ** currency.exponent,
      currency.exponent,
    );
  if (plan.funded) {
    const { topUp: record } = await topUp(run.ctx, run.check(TopUpBody, { currency: currency.code, amount }));
    run.made('top_up', { id: record.id });
  }
  const request: Record<string, unknown> = {
    payee_id: payee.id,
    currency: currencyText,
    amount,
    callback_url: run.value('callback_url', inboxOf(run)),
    reference_id: run.value('reference_id', run.unique('TRIGGER-PAYOUT')),
  };
  optional(run, request, 'remark');
  if (plan.tomorrow)
    request.schedule_at = `${new Date(run.ctx.clock.now().getTime() + 24 * HOUR_S * 1000).toISOString().slice(0, 19)}Z`;
  const payout = await createPayout(run.ctx, run.check(CreatePayoutBody, { payout_request: request }).payout_request);
  run.made('payout_request', {
    id: payout.id,
    ...(payout.reference_id !== null && { reference_id: payout.reference_id }),
  });
  return { id: payout.id, pending: payout.schedule_status === 'Pending Approval' };
}

/**
 * The merchant's capture inbox (docs/lab.md): where a trigger's payouts report when `callback_url` is not set, so
 * that nothing is sent to an address the merchant did not give.
 */
const inboxOf = (run: TriggerRun) => inboxUrl(run.ctx.config, run.ctx.merchant.id);

/** A payout that runs now: funded, approved when its amount waits for approval, then taken by the bank. */
async function runningPayout(run: TriggerRun, bank: BankOutcome): Promise<string> {
  const payout = await newPayout(run, { amount: 'given', funded: true, bank });
  if (payout.pending) await approvePayout(run.ctx, payout.id);
  return payout.id;
}

const ran = (kind: string, makes: string, bank: BankOutcome, seconds: number, clock: string) =>
  defineTrigger({
    kind,
    makes,
    clock,
    fields: WITH_AMOUNT,
    async run(run) {
      const id = await runningPayout(run, bank);
      // The payout runs (the bank takes it) where the clock stands; the bank reports from then on.
      await run.runDueWork();
      if (seconds > 0) await run.passTime(seconds);
      return id;
    },
  });

export const PAYOUT_TRIGGERS = [
  defineTrigger({
    kind: 'payout.created',
    makes: 'a payee, and a payout to it scheduled for tomorrow',
    clock: 'none',
    fields: WITH_AMOUNT,
    run: async (run) => (await newPayout(run, { amount: 'given', tomorrow: true })).id,
  }),
  defineTrigger({
    kind: 'payout.approved',
    makes: "a payout of the merchant's approval threshold (10,000 by default), scheduled for tomorrow, approved",
    clock: 'none',
    fields: PAYOUT_FIELDS,
    async run(run) {
      const payout = await newPayout(run, { amount: 'threshold', tomorrow: true });
      await approvePayout(run.ctx, payout.id);
      return payout.id;
    },
  }),
  defineTrigger({
    kind: 'payout.rejected',
    makes: "a payout of the merchant's approval threshold, rejected",
    clock: 'none',
    fields: PAYOUT_FIELDS,
    async run(run) {
      const payout = await newPayout(run, { amount: 'threshold' });
      await rejectPayout(
        run.ctx,
        payout.id,
        run.check(DecisionBody, { reason: 'Rejected by paygate trigger.' }).reason,
      );
      return payout.id;
    },
  }),
  defineTrigger({
    kind: 'payout.cancelled',
    makes: 'a payout scheduled for tomorrow, cancelled',
    clock: 'none',
    fields: WITH_AMOUNT,
    async run(run) {
      const payout = await newPayout(run, { amount: 'given', tomorrow: true });
      await cancelPayout(
        run.ctx,
        payout.id,
        run.check(DecisionBody, { reason: 'Cancelled by paygate trigger.' }).reason,
      );
      return payout.id;
    },
  }),
  defineTrigger({
    kind: 'payout.failed',
    makes: 'a payout of more than the available balance (approved if it must be), which fails as it runs',
    clock: 'none',
    fields: PAYOUT_FIELDS,
    async run(run) {
      const payout = await newPayout(run, { amount: 'beyond-balance' });
      if (payout.pending) await approvePayout(run.ctx, payout.id);
      return payout.id;
    },
  }),
  ran(
    'payout.processing',
    'the balance topped up, a payee and a payout to it, which runs: the bank takes it',
    'settles',
    0,
    'none',
  ),
  ran(
    'payout.settled',
    'a payout that runs (as payout.processing), then the bank pays it',
    'settles',
    30 * MINUTE_S,
    '30 minutes',
  ),
  ran(
    'payout.terminated',
    'a payout that runs, to an account ending 0002: the bank rejects it',
    'rejects',
    30 * MINUTE_S,
    '30 minutes',
  ),
  ran(
    'payout.reversed',
    'a payout that runs, to an account ending 0003: paid, then returned by the payee’s bank',
    'returns',
    30 * MINUTE_S + 24 * HOUR_S,
    '1 day 30 minutes',
  ),
  ran(
    'payout.refunded',
    'a payout that runs, to an account ending 0003: paid, returned, and the money back',
    'returns',
    30 * MINUTE_S + 25 * HOUR_S,
    '1 day 1 hour 30 minutes',
  ),
];
