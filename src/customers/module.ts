import { defineModule, type Module } from '../module.js';
import type { DefaultTokens } from './default-token.js';
import { CUSTOMER_ERRORS } from './errors.js';
import { customerRoutes } from './routes.js';

/** Customers of a merchant (operations 6 and 7); their default payment token follows the tokens' rules. */
export const customersModule = (defaultTokens: DefaultTokens): Module =>
  defineModule({
    name: 'customers',
    routes: customerRoutes(defaultTokens),
    tags: [{ name: 'customers', description: 'Customers of the merchant.' }],
    errors: CUSTOMER_ERRORS,
  });
