import Type from 'typebox';
import { type JobDefinition, merchantJob } from '../scheduler/scheduler.js';
import {
  FOLLOW_JOB,
  failUnrunPayout,
  followAgainLater,
  followTransfer,
  REPORT_JOB,
  RUN_JOB,
  receiveReport,
  reportAgainLater,
  runPayout,
} from './running.js';

/** A transfer's status as the bank reports it (rails/bank.ts), and `Initiated` before its first report. */
const TransferStatus = Type.Union([
  Type.Literal('Processing Transfer'),
  Type.Literal('Settled'),
  Type.Literal('Terminated'),
  Type.Literal('Reversed'),
  Type.Literal('Refunded'),
]);
const RunPayload = Type.Object({ payoutId: Type.String() });
const FollowPayload = Type.Object({
  payoutId: Type.String(),
  status: TransferStatus,
  attempt: Type.Optional(Type.Integer()),
});
const ReportPayload = Type.Object({
  payoutId: Type.String(),
  from: Type.Union([Type.Literal('Initiated'), TransferStatus]),
  to: TransferStatus,
  reason: Type.Union([Type.String(), Type.Null()]),
});

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'payouts.run': typeof RunPayload;
    'payouts.follow': typeof FollowPayload;
    'payouts.report': typeof ReportPayload;
  }
}

/** The work payouts leave due on a merchant's business clock. */
export const PAYOUT_JOBS: JobDefinition[] = [
  merchantJob(RUN_JOB, RunPayload, {
    run: async (ctx, { payoutId }) => void (await runPayout(ctx, payoutId)),
    giveUp: failUnrunPayout,
  }),
  merchantJob(FOLLOW_JOB, FollowPayload, { run: followTransfer, giveUp: followAgainLater }),
  merchantJob(REPORT_JOB, ReportPayload, { run: receiveReport, giveUp: reportAgainLater }),
];
