import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { UserInput } from '@paygate/client';
import { merchantContext } from '../../src/context/context.js';
import { findMerchant } from '../../src/platform/tenants.js';
import { recoverInterrupted } from '../../src/rails/operation.js';
import { VERIFICATION_OPERATION } from '../../src/users/verification.js';
import { refusal } from '../support/refusal.js';
import { signedRaw, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

const USER = '/svc/ts/api/v1/openapi/user';
let counter = 0;

/** A user of its own reference, phone and document. */
function newUser(fields: Partial<UserInput> = {}): UserInput {
  counter += 1;
  const digits = `${process.pid % 1000}${counter}`.padStart(8, '0');
  return {
    reference_id: `STAFF-${randomUUID()}`,
    calling_code: '852',
    phone_number: digits,
    document_type: 'ID_CARD',
    document_number: `A${digits}`,
    first_name: 'Tai Man',
    last_name: 'Chan',
    date_of_birth: '1990-04-01',
    issuing_country: 'HKG',
    ...fields,
  };
}

describe('identity-verified users (operation 2)', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const events = (subjectId: string) =>
    server.platform.db
      .selectFrom('events')
      .select(['action', 'payload'])
      .where('subject_id', '=', subjectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const post = (m: TestMerchant, user: unknown) =>
    signedRaw(server.url, m, { method: 'POST', target: USER, body: JSON.stringify({ user }) });

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    other = await server.newMerchant();
  });
  after(() => server.close());

  test('create answers data.user_id only; the user reads back by reference_id and by user_id, approved, with every field', async () => {
    const input = newUser({ issuing_country: 'hkg' });
    const reply = await post(merchant, input);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(Object.keys(reply.json.data), ['user_id']);
    const id = reply.json.data.user_id as string;
    const user = await merchant.client.users.get(input.reference_id);
    assert.match(user.p_created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(user, {
      id,
      user_id: id,
      ...input,
      issuing_country: 'HKG',
      verification_status: 'approved',
      rejection_reason: null,
      p_created_at: user.p_created_at,
    });
    assert.deepEqual(await merchant.client.users.get(id), user);
    const sent = await events(id);
    assert.deepEqual(
      sent.map((event) => event.action),
      ['user.created', 'user.approved'],
    );
    assert.equal(JSON.parse(sent[0]!.payload).data.user.verification_status, 'pending');
    assert.equal(JSON.parse(sent[1]!.payload).data.user.verification_status, 'approved');
  });

  test('one name is enough, either of them; neither is refused', async () => {
    const onlyLast = newUser({ first_name: undefined });
    delete onlyLast.first_name;
    await merchant.client.users.create(onlyLast);
    assert.equal((await merchant.client.users.get(onlyLast.reference_id)).first_name, null);
    const onlyFirst = newUser({ last_name: null });
    await merchant.client.users.create(onlyFirst);
    assert.equal((await merchant.client.users.get(onlyFirst.reference_id)).last_name, null);
    for (const names of [{ first_name: null, last_name: null }, { first_name: ' ', last_name: '' }, {}]) {
      const body: Record<string, unknown> = { ...newUser(), ...names };
      if (Object.keys(names).length === 0) {
        delete body.first_name;
        delete body.last_name;
      }
      const refused = await post(merchant, body);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error_code, '100207');
      assert.match(refused.json.message, /user\.first_name or user\.last_name is required/);
    }
  });

  test('every rule of the table is refused naming its field, and nothing is stored', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ calling_code: '' }, /^user\.calling_code has an invalid format \(1 to 3 digits/],
      [{ calling_code: '8521' }, /^user\.calling_code has an invalid format/],
      [{ calling_code: '+85' }, /^user\.calling_code has an invalid format/],
      [{ calling_code: 852 }, /^user\.calling_code must be/],
      [{ phone_number: '' }, /^user\.phone_number has an invalid format \(1 to 11 digits/],
      [{ phone_number: '123456789012' }, /^user\.phone_number has an invalid format/],
      [{ phone_number: '6123 4567' }, /^user\.phone_number has an invalid format/],
      [{ document_type: 'VISA' }, /^user\.document_type must be one of: PASSPORT, DRIVER_LICENSE, ID_CARD\.$/],
      [{ document_number: '' }, /^user\.document_number must not be empty/],
      [{ document_number: '   ' }, /^user\.document_number must not be blank/],
      [{ date_of_birth: '1990-4-1' }, /^user\.date_of_birth has an invalid format \(YYYY-MM-DD/],
      [{ date_of_birth: '1990-02-30' }, /^user\.date_of_birth is not a real calendar date/],
      [{ date_of_birth: '1990-13-01' }, /^user\.date_of_birth is not a real calendar date/],
      [{ date_of_birth: '2999-01-01' }, /^user\.date_of_birth must be in the past/],
      [{ date_of_birth: '1990-04-01T00:00:00Z' }, /^user\.date_of_birth has an invalid format/],
      [{ issuing_country: 'HK' }, /^user\.issuing_country has an invalid format \(ISO 3166 alpha-3/],
      [{ issuing_country: 'XYZ' }, /^user\.issuing_country is not an ISO 3166 alpha-3 country code/],
      [{ reference_id: '' }, /^user\.reference_id must not be empty/],
    ];
    for (const [fields, message] of cases) {
      const body = newUser(fields as Partial<UserInput>);
      const refused = await post(merchant, body);
      assert.equal(refused.status, 400, `${JSON.stringify(fields)}: ${refused.text}`);
      assert.equal(refused.json.error_code, '100207');
      assert.match(refused.json.message, message, JSON.stringify(fields));
      await refusal(merchant.client.users.get(body.reference_id));
    }
    for (const field of [
      'reference_id',
      'calling_code',
      'phone_number',
      'document_type',
      'document_number',
      'date_of_birth',
      'issuing_country',
    ]) {
      const body: Record<string, unknown> = { ...newUser() };
      delete body[field];
      const refused = await post(merchant, body);
      assert.equal(refused.status, 400);
      assert.equal(refused.json.message, `user.${field} is required.`);
    }
  });

  test("reference_id, phone number and document are each unique per merchant, with the interface's codes", async () => {
    const first = newUser();
    await merchant.client.users.create(first);
    const reference = await post(merchant, newUser({ reference_id: first.reference_id }));
    assert.equal(reference.status, 409);
    assert.equal(reference.json.code, 300013);
    const phone = await post(merchant, newUser({ calling_code: first.calling_code, phone_number: first.phone_number }));
    assert.equal(phone.json.code, 30014, phone.text);
    assert.equal(phone.json.error_code, '30014');
    // Another calling code with the same number is another phone.
    await merchant.client.users.create(newUser({ calling_code: '86', phone_number: first.phone_number }));
    const document = await post(
      merchant,
      newUser({
        document_type: first.document_type,
        document_number: first.document_number,
        issuing_country: first.issuing_country,
      }),
    );
    assert.equal(document.json.code, 300008, document.text);
    // The same document issued by another country is another document.
    await merchant.client.users.create(newUser({ document_number: first.document_number, issuing_country: 'GBR' }));
    // The reference is checked first, then the phone.
    const all = await post(merchant, { ...first });
    assert.equal(all.json.code, 300013);
    // Another merchant has users of its own.
    await other.client.users.create({ ...first });
    assert.equal((await other.client.users.get(first.reference_id)).reference_id, first.reference_id);
  });

  test('concurrent creations of one user: one wins, the others get the code', async () => {
    const base = newUser();
    const sameReference = Array.from({ length: 8 }, (_, i) =>
      post(merchant, newUser({ reference_id: base.reference_id, phone_number: `7${counter}${i}` })),
    );
    const replies = await Promise.all(sameReference);
    assert.equal(
      replies.filter((reply) => reply.status === 200).length,
      1,
      replies.map((reply) => reply.text).join('\n'),
    );
    assert.deepEqual(
      new Set(replies.filter((reply) => reply.status !== 200).map((reply) => reply.json.code)),
      new Set([300013]),
    );

    const document = newUser();
    const sameDocument = Array.from({ length: 8 }, () =>
      post(merchant, newUser({ document_number: document.document_number })),
    );
    const documentReplies = await Promise.all(sameDocument);
    assert.equal(documentReplies.filter((reply) => reply.status === 200).length, 1);
    assert.deepEqual(
      new Set(documentReplies.filter((reply) => reply.status !== 200).map((reply) => reply.json.code)),
      new Set([300008]),
    );
    const stored = await server.platform.db
      .selectFrom('issuing_users')
      .select('id')
      .where('merchant_id', '=', merchant.merchantId)
      .where('document_number', '=', document.document_number)
      .execute();
    assert.equal(stored.length, 1);

    const phone = newUser();
    const samePhone = Array.from({ length: 8 }, () => post(merchant, newUser({ phone_number: phone.phone_number })));
    const phoneReplies = await Promise.all(samePhone);
    assert.equal(phoneReplies.filter((reply) => reply.status === 200).length, 1);
    assert.deepEqual(
      new Set(phoneReplies.filter((reply) => reply.status !== 200).map((reply) => reply.json.code)),
      new Set([30014]),
    );
  });

  test('verification: Reject is rejected with a reason, Review stays pending until the sandbox settles it', async () => {
    const rejected = newUser({ last_name: 'Reject' });
    const rejectedId = await merchant.client.users.create(rejected);
    const read = await merchant.client.users.get(rejectedId);
    assert.equal(read.verification_status, 'rejected');
    assert.equal(read.rejection_reason, 'The identity document could not be verified.');
    assert.deepEqual(
      (await events(rejectedId)).map((event) => event.action),
      ['user.created', 'user.rejected'],
    );

    const reviewed = await merchant.client.users.create(newUser({ last_name: 'Review' }));
    assert.equal((await merchant.client.users.get(reviewed)).verification_status, 'pending');
    const approved = await merchant.client.sandbox.approveUser(reviewed);
    assert.equal(approved.verification_status, 'approved');
    assert.equal((await merchant.client.users.get(reviewed)).verification_status, 'approved');
    const again = await refusal(merchant.client.sandbox.approveUser(reviewed));
    assert.equal(again.errorCode, '300102');

    const toReject = await merchant.client.users.create(newUser({ last_name: 'Review' }));
    const refusedUser = await merchant.client.sandbox.rejectUser(toReject, 'The document has expired.');
    assert.deepEqual(
      [refusedUser.verification_status, refusedUser.rejection_reason],
      ['rejected', 'The document has expired.'],
    );
    assert.deepEqual(
      (await events(toReject)).map((event) => event.action),
      ['user.created', 'user.rejected'],
    );
    const defaulted = await merchant.client.users.create(newUser({ last_name: 'Review' }));
    assert.equal(
      (await merchant.client.sandbox.rejectUser(defaulted)).rejection_reason,
      'The identity document could not be verified.',
    );

    // Another merchant's user is not there to settle.
    const theirs = await other.client.users.create(newUser({ last_name: 'Review' }));
    assert.equal((await refusal(merchant.client.sandbox.approveUser(theirs))).errorCode, '300101');
    assert.equal((await other.client.users.get(theirs)).verification_status, 'pending');
  });

  test('PUT replaces what is sent, under the same rules; a change of identity sends the user to the check again', async () => {
    const input = newUser();
    const id = await merchant.client.users.create(input);
    const phone = await merchant.client.users.update(input.reference_id, {
      phone_number: `98765432${String(counter).slice(-3)}`,
    });
    assert.equal(phone.verification_status, 'approved', 'a new phone is no new identity');
    assert.equal(phone.first_name, 'Tai Man');

    const renamed = await merchant.client.users.update(id, { last_name: 'Reject' });
    assert.deepEqual(
      [renamed.verification_status, renamed.rejection_reason],
      ['rejected', 'The identity document could not be verified.'],
    );
    const fixed = await merchant.client.users.update(id, { last_name: 'Chan', document_number: `B${counter}` });
    assert.deepEqual([fixed.verification_status, fixed.rejection_reason], ['approved', null]);
    assert.deepEqual(
      (await events(id)).map((event) => event.action),
      [
        'user.created',
        'user.approved',
        'user.updated',
        'user.updated',
        'user.rejected',
        'user.updated',
        'user.approved',
      ],
    );

    const newReference = `STAFF-${randomUUID()}`;
    assert.equal(
      (await merchant.client.users.update(input.reference_id, { reference_id: newReference })).reference_id,
      newReference,
    );
    assert.equal((await refusal(merchant.client.users.get(input.reference_id))).errorCode, '300101');

    const taken = newUser();
    await merchant.client.users.create(taken);
    const codes = [
      [{ reference_id: taken.reference_id }, '300013'],
      [{ phone_number: taken.phone_number }, '30014'],
      [{ document_number: taken.document_number }, '300008'],
    ] as const;
    for (const [change, code] of codes)
      assert.equal((await refusal(merchant.client.users.update(id, change))).errorCode, code);
    const rule = await refusal(merchant.client.users.update(id, { date_of_birth: '2001-02-29' }));
    assert.equal(rule.errorCode, '100207');
    assert.match(rule.message, /^user\.date_of_birth is not a real calendar date/);
    const noName = await refusal(merchant.client.users.update(id, { first_name: null, last_name: null }));
    assert.match(noName.message, /user\.first_name or user\.last_name is required/);
    assert.equal((await merchant.client.users.get(id)).last_name, 'Chan', 'a refused edit changes nothing');
  });

  test("another merchant's user is indistinguishable from a missing one", async () => {
    const input = newUser();
    const id = await merchant.client.users.create(input);
    for (const name of [input.reference_id, id, randomUUID(), 'nobody']) {
      const read = await refusal(other.client.users.get(name));
      assert.deepEqual([read.status, read.errorCode, read.message], [404, '300101', 'User not found.']);
      const edit = await refusal(other.client.users.update(name, { first_name: 'X' }));
      assert.deepEqual([edit.status, edit.errorCode], [404, '300101']);
    }
    assert.equal((await merchant.client.users.get(id)).first_name, 'Tai Man');
  });

  test('a verification whose answer a crash lost is asked again by recovery', async () => {
    const input = newUser();
    const id = await merchant.client.users.create(input);
    // As a crash between sending the identity and recording the answer leaves it.
    await server.platform.db
      .updateTable('issuing_users')
      .set({ verification_status: 'pending', verification_started_at: Date.now() - 60_000 })
      .where('id', '=', id)
      .execute();
    const found = await VERIFICATION_OPERATION.interrupted(server.platform.db, Date.now(), 100);
    assert.ok(found.some((row) => row.id === id));
    const recovered = await recoverInterrupted(
      server.platform,
      [VERIFICATION_OPERATION],
      Date.now(),
      async (merchantId) =>
        merchantContext(
          server.platform,
          (await findMerchant(server.platform.db, merchantId))!,
          { kind: 'system', job: 'recovery' },
          'test',
        ),
    );
    assert.ok(recovered >= 1);
    assert.equal((await merchant.client.users.get(id)).verification_status, 'approved');
    assert.equal(
      (await VERIFICATION_OPERATION.interrupted(server.platform.db, Date.now(), 100)).some((row) => row.id === id),
      false,
    );
  });
});
