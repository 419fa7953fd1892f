export { completeBinding } from './bind.js';
export { DEFAULT_TOKENS } from './default-token.js';
export { TOKEN_ERRORS } from './errors.js';
export { BINDING_LINK } from './links.js';
export { paymentTokensModule } from './module.js';
export type { TokenRow } from './tokens.js';
export { bindingLink, bindingOfOperation, chargeableToken } from './tokens.js';
