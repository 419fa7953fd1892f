export { issuingModule } from './module.js';
export { DECLINE_REASONS } from './spend-rules.js';
