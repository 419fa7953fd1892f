export { PAYOUT_ERRORS } from './errors.js';
export { payoutsModule } from './module.js';
export { createPayee } from './payees.js';
export { approvePayout, cancelPayout, createPayout, rejectPayout } from './payouts.js';
export { CreatePayeeBody, CreatePayoutBody, DecisionBody } from './schemas.js';
export { approvalThreshold } from './thresholds.js';
