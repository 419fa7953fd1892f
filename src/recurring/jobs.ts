import Type from 'typebox';
import { type JobDefinition, merchantJob } from '../scheduler/scheduler.js';
import { REFUND_CREDIT_JOB, refundCreditAgainLater, runRefundCredit } from './cancellation.js';
import { BILLING_JOB, billAgainLater, runDuePlans } from './engine.js';

/** One billing job per merchant and time, shared by every plan due then: it carries nothing. */
const BillingPayload = Type.Null();
const RefundCreditPayload = Type.Object({
  planId: Type.String(),
  orderNumber: Type.String(),
  /** Minor units. */
  amount: Type.Integer(),
});

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'recurring.bill': typeof BillingPayload;
    'recurring.refund_credit': typeof RefundCreditPayload;
  }
}

/** The work recurring plans leave due on a merchant's business clock. */
export const RECURRING_JOBS: JobDefinition[] = [
  merchantJob(BILLING_JOB, BillingPayload, { run: (ctx) => runDuePlans(ctx), giveUp: billAgainLater }),
  merchantJob(REFUND_CREDIT_JOB, RefundCreditPayload, { run: runRefundCredit, giveUp: refundCreditAgainLater }),
];
