import Type from 'typebox';
import { type JobDefinition, merchantJob } from '../scheduler/scheduler.js';
import { abandonBinding, EXPIRE_BINDING_JOB, expireBinding } from './bind.js';

const BindingPayload = Type.Object({ tokenId: Type.String() });

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'payment_tokens.expire_binding': typeof BindingPayload;
  }
}

/** The work payment tokens leave due on a merchant's business clock. */
export const TOKEN_JOBS: JobDefinition[] = [
  merchantJob(EXPIRE_BINDING_JOB, BindingPayload, { run: expireBinding, giveUp: abandonBinding }),
];
