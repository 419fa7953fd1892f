import Type from 'typebox';
import { type JobDefinition, merchantJob } from '../scheduler/scheduler.js';
import { expireAuthorizations } from './clearing.js';
import { EXPIRE_AUTHORIZATIONS_JOB, expireAgainLater } from './expiry.js';

/** One sweep per merchant and minute, of every authorisation due by then: it carries nothing. */
const SweepPayload = Type.Null();

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'issuing.expire_authorizations': typeof SweepPayload;
  }
}

/** The work issuing leaves due on a merchant's business clock. */
export const ISSUING_JOBS: JobDefinition[] = [
  merchantJob(EXPIRE_AUTHORIZATIONS_JOB, SweepPayload, {
    run: (ctx) => expireAuthorizations(ctx),
    giveUp: expireAgainLater,
  }),
];
