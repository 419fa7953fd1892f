import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { print, UsageError } from '../cli/output.js';
import { APP_CLIENT_OPTIONS, appClient, unreachable } from '../merchants/index.js';

/**
 * A purchase or a withdrawal from a terminal: the card network simulator of a running sandbox server, signed as an app.
 */
const AUTHORIZE = defineCommand({
  name: 'authorize',
  summary: 'simulate a purchase with an issued card on a running sandbox server, and show how it was decided',
  description:
    'Sends POST /svc/sandbox/api/v1/issuing/authorizations (or withdrawals, with --withdrawal) signed as the demo app of the ' +
    'data folder unless --app and --key say otherwise. Exits with 1 when the purchase is declined, printing the reason.',
  arguments: [
    { name: 'card', description: 'the card id' },
    { name: 'amount', description: 'decimal text, such as 120.50' },
  ],
  options: {
    ...APP_CLIENT_OPTIONS,
    currency: { type: 'string', value: 'CODE', default: 'HKD', description: "the purchase's currency" },
    'merchant-name': {
      type: 'string',
      value: 'NAME',
      default: 'paygate CLI',
      description: "the card network merchant's name",
    },
    city: { type: 'string', value: 'CITY', default: 'Hong Kong', description: "the card network merchant's city" },
    country: { type: 'string', value: 'CODE', default: 'HK', description: "the card network merchant's country" },
    mcc: { type: 'string', value: 'MCC', default: '5999', description: "the card network merchant's category code" },
    withdrawal: { type: 'boolean', description: 'a cash withdrawal at an ATM instead of a purchase' },
    json: JSON_OPTION,
  },
  async run({ options, args }) {
    const { client, baseUrl, timeoutSeconds } = appClient(options);
    const spend = {
      card_id: args.card,
      amount: args.amount,
      currency: options.currency,
      merchant: {
        id: 'CLI',
        name: options['merchant-name'],
        city: options.city,
        country: options.country,
        category: options.mcc,
      },
    };
    const outcome = await (options.withdrawal ? client.sandbox.withdraw(spend) : client.sandbox.authorize(spend)).catch(
      (error: unknown) => {
        throw unreachable(baseUrl, timeoutSeconds, error);
      },
    );
    const { transaction: t, decline_reason: reason } = outcome;
    print(options, outcome, () =>
      reason
        ? `Declined (${reason}): ${t.transaction_currency} ${t.transaction_amount.replace('-', '')} at ${t.merchant_name}, transaction ${t.id}`
        : `${t.status}: ${t.transaction_currency} ${t.transaction_amount.replace('-', '')} at ${t.merchant_name} = ${t.local_currency} ${t.local_amount}` +
          `${t.calculated_fee !== '0.00' ? ` + fee ${t.calculated_fee}` : ''}, transaction ${t.id}`,
    );
    return reason ? 1 : 0;
  },
});

const ENDPOINT = defineCommand({
  name: 'endpoint',
  summary: "register (or with --remove, remove) the merchant's real-time authorisation endpoint on a running server",
  description:
    'Signed as the app (the demo app unless --app and --key say otherwise): its webhook key then signs the requests sent to the endpoint.',
  options: {
    ...APP_CLIENT_OPTIONS,
    url: { type: 'string', value: 'URL', description: 'where each authorisation is sent' },
    default: {
      type: 'string',
      value: 'approve|decline',
      default: 'decline',
      description: 'what applies when the endpoint does not answer within 2 seconds',
    },
    remove: { type: 'boolean', description: 'remove the endpoint: the rules alone decide' },
    json: JSON_OPTION,
  },
  async run({ options }) {
    if (!options.remove && options.url === undefined) throw new UsageError('give --url, or --remove');
    if (options.default !== 'approve' && options.default !== 'decline')
      throw new UsageError('--default must be approve or decline');
    const { client, baseUrl, timeoutSeconds } = appClient(options);
    const failing = (error: unknown) => {
      throw unreachable(baseUrl, timeoutSeconds, error);
    };
    if (options.remove) {
      const removed = await client.cards.removeAuthorizationEndpoint().catch(failing);
      print(options, { removed }, () => (removed ? 'Removed: the rules alone decide.' : 'There was no endpoint.'));
      return 0;
    }
    const endpoint = await client.cards
      .setAuthorizationEndpoint({ url: options.url!, default_decision: options.default })
      .catch(failing);
    print(
      options,
      { authorization_endpoint: endpoint },
      () => `Authorisations go to ${endpoint.url}; silent for 2 s, ${endpoint.default_decision}.`,
    );
    return 0;
  },
});

export const ISSUING_COMMAND = defineCommandGroup({
  name: 'issuing',
  summary: 'simulate card purchases and set the real-time authorisation endpoint',
  commands: [AUTHORIZE, ENDPOINT],
});
