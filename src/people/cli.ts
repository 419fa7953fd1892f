import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { readFileArgument } from '../cli/input.js';
import { MERCHANT_OPTION, operatorMerchant } from '../cli/operator.js';
import { print } from '../cli/output.js';
import { withPlatform } from '../cli/platform-command.js';
import { ROLES } from '../platform/roles.js';
import { OPERATOR } from './audit.js';
import { addPerson, listPeople } from './people.js';

const ADD = defineCommand({
  name: 'add',
  summary: "add someone to a merchant's dashboard and print their password once",
  description:
    'Without --password-file a password is generated and printed this once: only its hash is kept. The address signs ' +
    `in at {public base URL}/dashboard. Roles: ${ROLES.join(', ')} (docs/dashboard.md).`,
  options: {
    merchant: MERCHANT_OPTION,
    email: { type: 'string', required: true, value: 'EMAIL', description: 'the address they sign in with' },
    role: { type: 'string', required: true, value: 'ROLE', description: `one of ${ROLES.join(', ')}` },
    'password-file': {
      type: 'string',
      value: 'FILE',
      description: 'read the password from FILE (- for standard input) instead of generating one',
    },
    json: JSON_OPTION,
  },
  async run({ options }, deps) {
    const given = options['password-file'];
    const password = given === undefined ? undefined : readFileArgument('--password-file', given).replace(/\r?\n$/, '');
    const added = await withPlatform(deps, async (platform) => {
      const merchant = await operatorMerchant(platform, options.merchant);
      return addPerson(
        platform,
        {
          merchantId: merchant.id,
          email: options.email,
          role: options.role,
          ...(password !== undefined && { password }),
        },
        OPERATOR,
      );
    });
    const reply = {
      person_id: added.person.id,
      merchant_id: added.person.merchantId,
      email: added.person.email,
      role: added.person.role,
      password: added.password ?? null,
    };
    print(options, reply, () =>
      added.password === undefined
        ? `Added ${reply.email} (${reply.role}) to merchant ${reply.merchant_id}.`
        : `Added ${reply.email} (${reply.role}) to merchant ${reply.merchant_id}. Password, shown this once: ${added.password}`,
    );
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: "list the people of a merchant's dashboard",
  options: { merchant: MERCHANT_OPTION, json: JSON_OPTION },
  async run({ options }, deps) {
    const people = await withPlatform(deps, async (platform) =>
      listPeople(platform, (await operatorMerchant(platform, options.merchant)).id),
    );
    const reply = people.map((person) => ({ person_id: person.id, email: person.email, role: person.role }));
    print(
      options,
      { people: reply },
      () => reply.map((person) => `${person.email}  ${person.role}`).join('\n') || 'Nobody yet.',
    );
  },
});

export const DASHBOARD_COMMAND = defineCommandGroup({
  name: 'dashboard',
  summary: "the merchant dashboard's people",
  commands: [
    defineCommandGroup({
      name: 'user',
      summary: 'add and list the people who sign in to a dashboard',
      commands: [ADD, LIST],
    }),
  ],
});
