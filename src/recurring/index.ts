export { createBillingConfig, createItem } from './catalogue.js';
export { cancelPlan } from './changes.js';
export { RECURRING_ERRORS } from './errors.js';
export { recurringModule } from './module.js';
export { createPlan, getPlan } from './plans.js';
export {
  CancelPlanBody,
  CreateBillingConfigBody,
  CreateItemBody,
  CreatePlanBody,
} from './schemas.js';
