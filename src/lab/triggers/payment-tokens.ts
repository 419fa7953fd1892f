import { deleteToken } from '../../payment-tokens/index.js';
import { SANDBOX_CARDS } from './common.js';
import { bindCard, CARD_FIELDS, CUSTOMER_FIELDS, theCustomer } from './customers.js';
import { defineTrigger } from './trigger.js';

const FIELDS = [...CUSTOMER_FIELDS, ...CARD_FIELDS];

export const PAYMENT_TOKEN_TRIGGERS = [
  defineTrigger({
    kind: 'payment_token.succeeded',
    makes: 'a customer, and the card 4000 0000 0000 3055 bound to it (frictionless 3-D Secure)',
    clock: 'none',
    fields: FIELDS,
    run: async (run) => (await bindCard(run, await theCustomer(run), SANDBOX_CARDS.frictionless)).id,
  }),
  defineTrigger({
    kind: 'payment_token.failed',
    makes: 'a customer, and the card 4000 0000 0000 0002 refused as it binds (05)',
    clock: 'none',
    fields: FIELDS,
    run: async (run) => (await bindCard(run, await theCustomer(run), SANDBOX_CARDS.declined)).id,
  }),
  defineTrigger({
    kind: 'payment_token.deleted',
    makes: 'a customer, the card 4000 0000 0000 3055 bound to it, and the token deleted',
    clock: 'none',
    fields: FIELDS,
    async run(run) {
      const customer = await theCustomer(run);
      const token = await bindCard(run, customer, SANDBOX_CARDS.frictionless);
      await deleteToken(run.ctx, customer, token.token);
      return token.id;
    },
  }),
];
