import { CreateUserBody, createUser, editUser, UpdateUserBody, type UserRow } from '../../users/index.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';

/** The fields of operation 2 a trigger lets `set` give (all but the last name, which decides the identity check). */
export const USER_FIELDS = [
  field('reference_id', 'text', "the user's reference id (a fresh TRIGGER-USER-… by default)"),
  field('first_name', 'text', "the user's first name"),
  field('calling_code', 'text', "the phone number's calling code (852 by default)"),
  field('phone_number', 'text', "the user's phone number (a fresh one by default)"),
  field('document_type', 'text', 'PASSPORT, DRIVER_LICENSE or ID_CARD (ID_CARD by default)'),
  field('document_number', 'text', "the document's number (a fresh one by default)"),
  field('date_of_birth', 'text', 'YYYY-MM-DD'),
  field('issuing_country', 'text', "the document's country, ISO 3166 alpha-3 (HKG by default)"),
];
const LAST_NAME = field(
  'last_name',
  'text',
  "the user's last name (Chan by default; Review leaves the identity check pending, Reject rejects)",
);

/**
 * A user, as operation 2 registers it; its identity check decided by `lastName` (docs/sandbox.md: `Reject` is
 * rejected, any other name but `Review` approved).
 */
export async function newUser(run: TriggerRun, lastName: unknown): Promise<UserRow> {
  const value = (name: string, fallback: unknown) => run.value(name, fallback);
  const body = {
    user: {
      reference_id: value('reference_id', run.unique('TRIGGER-USER')),
      calling_code: value('calling_code', '852'),
      phone_number: value('phone_number', `6${run.digits(7)}`),
      document_type: value('document_type', 'ID_CARD'),
      document_number: value('document_number', `T${run.digits(9)}`),
      first_name: value('first_name', 'Tai Man'),
      last_name: lastName,
      date_of_birth: value('date_of_birth', '1990-04-01'),
      issuing_country: value('issuing_country', 'HKG'),
    },
  };
  const user = await createUser(run.ctx, run.check(CreateUserBody, body).user);
  run.made('user', { user_id: user.id, reference_id: user.reference_id });
  return user;
}

export const USER_TRIGGERS = [
  defineTrigger({
    kind: 'user.created',
    makes: 'a user (operation 2)',
    clock: 'none',
    fields: [...USER_FIELDS, LAST_NAME],
    run: async (run) => (await newUser(run, run.value('last_name', 'Chan'))).id,
  }),
  defineTrigger({
    kind: 'user.updated',
    makes: 'a user, and a new phone number given to it',
    clock: 'none',
    fields: [...USER_FIELDS, LAST_NAME],
    async run(run) {
      const user = await newUser(run, run.value('last_name', 'Chan'));
      const change = run.check(UpdateUserBody, { user: { phone_number: `6${run.digits(7)}` } }).user;
      await editUser(run.ctx, user.id, change);
      return user.id;
    },
  }),
  defineTrigger({
    kind: 'user.approved',
    makes: 'a user the identity check approves (last name Chan)',
    clock: 'none',
    fields: USER_FIELDS,
    run: async (run) => (await newUser(run, 'Chan')).id,
  }),
  defineTrigger({
    kind: 'user.rejected',
    makes: 'a user the identity check rejects (last name Reject)',
    clock: 'none',
    fields: USER_FIELDS,
    run: async (run) => (await newUser(run, 'Reject')).id,
  }),
];
