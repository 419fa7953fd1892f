export { issueCard, moveCard, setCardLimits } from './cards.js';
export { incrementAuthorization, reverseAuthorization, settleAuthorization } from './clearing.js';
export { ISSUING_ERRORS } from './errors.js';
export { issuingModule } from './module.js';
export { authorizePurchase, creditRefund, withdrawCash } from './network.js';
export { CardLimitsBody, CreateCardBody } from './schemas.js';
export { DECLINE_REASONS } from './spend-rules.js';
export { IncrementBody, ReverseBody, SimulatedSpendBody } from './transactions/schemas.js';
