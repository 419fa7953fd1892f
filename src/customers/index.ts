export type { CustomerRow } from './customers.js';
export {
  createOrUpdateCustomer,
  findCustomer,
  getCustomer,
  lockCustomerOf,
  setDefaultToken,
  unusable,
} from './customers.js';
export type { DefaultTokens, PaymentTokenReply } from './default-token.js';
export { CUSTOMER_ERRORS } from './errors.js';
export { EXAMPLE_CUSTOMER_UUID, EXAMPLE_PROFILE, EXAMPLE_TOKEN, exampleToken } from './examples.js';
export { customersModule } from './module.js';
export { CreateCustomerBody, PaymentTokenSchema } from './schemas.js';
