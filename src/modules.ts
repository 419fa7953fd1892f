import { CUSTOMER_ERRORS } from './customers/errors.js';
import { HTTP_ERRORS } from './http/errors.js';
import { MERCHANT_ERRORS } from './merchants/errors.js';
import { ORDER_ERRORS } from './orders/errors.js';
import { TOKEN_ERRORS } from './payment-tokens/errors.js';
import { PLATFORM_ERRORS, type ErrorDefinition } from './platform/errors.js';
import { RAIL_ERRORS } from './rails/errors.js';
import { EVENT_ERRORS } from './events/errors.js';

/** The closed list of error codes: every area's, joined, by code (the two text codes found in the wild first). */
export const ERRORS = byCode({
  ...PLATFORM_ERRORS, ...HTTP_ERRORS, ...MERCHANT_ERRORS, ...CUSTOMER_ERRORS, ...TOKEN_ERRORS, ...ORDER_ERRORS, ...RAIL_ERRORS, ...EVENT_ERRORS,
});

function byCode<T extends Record<string, ErrorDefinition>>(errors: T): T {
  const key = (error: ErrorDefinition) => (/^\d+$/.test(error.code) ? Number(error.code) : -1);
  const order = (a: ErrorDefinition, b: ErrorDefinition) => key(a) - key(b) || a.code.localeCompare(b.code);
  return Object.fromEntries(Object.entries(errors).sort(([, a], [, b]) => order(a, b))) as T;
}
