import type { Scheduler } from '../scheduler/scheduler.js';
import { EXPIRE_BINDING_JOB, expireBinding } from './bind.js';

export function registerPaymentTokenJobs(scheduler: Scheduler): void {
  scheduler.registerMerchantJob(EXPIRE_BINDING_JOB, (ctx, payload) => expireBinding(ctx, payload as { tokenId: string }));
}
