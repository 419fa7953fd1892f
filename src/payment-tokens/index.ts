export { bindPaymentToken, completeBinding } from './bind.js';
export { DEFAULT_TOKENS } from './default-token.js';
export { TOKEN_ERRORS } from './errors.js';
export { BINDING_LINK } from './links.js';
export { paymentTokensModule } from './module.js';
export { BindTokenBody } from './schemas.js';
export type { TokenRow } from './tokens.js';
export { bindingLink, bindingOfOperation, chargeableToken, deleteToken } from './tokens.js';
