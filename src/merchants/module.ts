import { defineModule } from '../module.js';
import { APP_COMMAND } from './cli/app.js';
import { CALL_COMMAND } from './cli/call.js';
import { MERCHANT_COMMAND } from './cli/merchant.js';
import { MERCHANT_ERRORS } from './errors.js';

/** The operator's merchants and apps (keys, allow lists, webhook endpoints), and signed calls from the command line. */
export const merchantsModule = defineModule({
  name: 'merchants',
  errors: MERCHANT_ERRORS,
  commands: [MERCHANT_COMMAND, APP_COMMAND, CALL_COMMAND],
});
