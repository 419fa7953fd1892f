import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SandboxAcquirer } from '../../src/rails/sandbox/acquirer.js';
import { CARDS, futureExpiry } from '../support/fixtures.js';
import { openTestPlatform, type TestPlatform } from '../support/platform.js';
import { TestClock } from '../support/server.js';

const card = {
  number: CARDS.visa,
  expMonth: 12,
  expYear: Number(futureExpiry().exp_year),
  cvv: '123',
  holderName: 'Chan',
};

describe('the sandbox acquirer', () => {
  let platform: TestPlatform;
  let acquirer: SandboxAcquirer;
  before(async () => {
    platform = await openTestPlatform(new TestClock());
    acquirer = new SandboxAcquirer({
      db: platform.platform.db,
      wallClock: platform.platform.wallClock,
      config: { publicBaseUrl: 'http://sandbox.test' },
      secrets: platform.platform.secrets,
    });
  });
  after(() => platform.close());

  const operation = (reference: string) => ({ reference, merchantId: 'm-1', amount: 1000, currency: 'HKD' });

  test('does an operation once: the same reference again gets the first answer', async () => {
    const first = await acquirer.authorize({ ...operation('op-once'), capture: true, card });
    const again = await acquirer.authorize({
      ...operation('op-once'),
      capture: true,
      card: { ...card, number: '4000000000000002' },
    });
    assert.equal(first.status, 'approved');
    assert.deepEqual(again, first);
  });

  test('4000 0000 0000 0341: its verification is approved without a challenge; every charge of the stored card, and of the number, is declined 51', async () => {
    const bindsThenDeclines = { ...card, number: '4000000000000341' };
    const verified = await acquirer.authorize({
      ...operation('op-0341-bind'),
      amount: 100,
      capture: false,
      card: bindsThenDeclines,
      verification: true,
    });
    assert.deepEqual([verified.status, verified.responseCode, verified.payerAction], ['approved', '00', undefined]);
    const released = await acquirer.void({
      ...operation('op-0341-bind:void'),
      amount: 100,
      originalReference: 'op-0341-bind',
    });
    assert.equal(released.status, 'approved');
    for (const [reference, capture, entry] of [
      ['op-0341-mit', true, 'mit'],
      ['op-0341-mit-again', true, 'mit'],
      ['op-0341-cit-auth', false, 'cit'],
    ] as const) {
      const charged = await acquirer.authorize({
        ...operation(reference),
        capture,
        card: { storedReference: 'op-0341-bind', entry },
      });
      assert.deepEqual(
        [charged.status, charged.responseCode, charged.responseMessage, charged.authCode],
        ['declined', '51', 'Insufficient funds', undefined],
        reference,
      );
    }
    const direct = await acquirer.authorize({ ...operation('op-0341-direct'), capture: true, card: bindsThenDeclines });
    assert.deepEqual([direct.status, direct.responseCode], ['declined', '51']);
    // The control: an ordinary stored card is charged.
    await acquirer.authorize({
      ...operation('op-3055-bind'),
      amount: 100,
      capture: false,
      card: { ...card, number: '4000000000003055' },
      verification: true,
    });
    const ordinary = await acquirer.authorize({
      ...operation('op-3055-mit'),
      capture: true,
      card: { storedReference: 'op-3055-bind', entry: 'mit' },
    });
    assert.deepEqual([ordinary.status, ordinary.responseCode], ['approved', '00']);
  });

  test('a stored card still waiting for its 3-D Secure challenge is refused, and charged once the challenge is passed', async () => {
    const challenged = await acquirer.authorize({
      ...operation('op-3220-bind'),
      amount: 100,
      capture: false,
      card: { ...card, number: CARDS.challenge },
      verification: true,
    });
    assert.equal(challenged.status, 'awaiting_payer');
    const early = await acquirer.authorize({
      ...operation('op-3220-early'),
      capture: true,
      card: { storedReference: 'op-3220-bind', entry: 'mit' },
    });
    assert.deepEqual([early.status, early.responseCode], ['declined', '14']);
    assert.equal((await acquirer.completePayerAction('op-3220-bind', 'passed')).status, 'approved');
    // The stored cards the acquirer keeps in memory are approved ones only: the refusal above is not remembered.
    const charged = await acquirer.authorize({
      ...operation('op-3220-mit'),
      capture: true,
      card: { storedReference: 'op-3220-bind', entry: 'mit' },
    });
    assert.deepEqual([charged.status, charged.responseCode], ['approved', '00']);
    const again = await acquirer.authorize({
      ...operation('op-3220-mit-again'),
      capture: true,
      card: { storedReference: 'op-3220-bind', entry: 'mit' },
    });
    assert.deepEqual([again.status, again.responseCode], ['approved', '00']);
  });

  test('resolving an operation that never arrived cancels it: arriving late, it is refused', async () => {
    const resolved = await acquirer.resolve({ ...operation('op-late'), kind: 'authorize' });
    assert.deepEqual([resolved.status, resolved.responseCode], ['failed', '91']);
    const late = await acquirer.authorize({ ...operation('op-late'), capture: true, card });
    assert.deepEqual(late, resolved, 'the late request is not charged');
  });

  test('resolving an operation that did arrive returns what happened to it', async () => {
    const charged = await acquirer.authorize({ ...operation('op-arrived'), capture: true, card });
    assert.deepEqual(await acquirer.resolve({ ...operation('op-arrived'), kind: 'authorize' }), charged);
  });

  test('operations arriving at once are each recorded and answered; the same reference twice at once is done once', async () => {
    const references = Array.from({ length: 120 }, (_, i) => `op-together-${i}`);
    const answers = await Promise.all([
      ...references.map((reference, i) =>
        acquirer.authorize({
          ...operation(reference),
          amount: 1000 + i,
          capture: true,
          card: i % 2 ? card : { ...card, number: '4000000000000002' },
        }),
      ),
      acquirer.authorize({ ...operation('op-together-0'), amount: 5, capture: true, card }),
    ]);
    assert.deepEqual(
      answers.slice(0, 4).map((a) => a.status),
      ['declined', 'approved', 'declined', 'approved'],
    );
    assert.deepEqual(answers.at(-1), answers[0], "the second request of op-together-0 gets the first one's answer");
    const stored = await platform.platform.db
      .selectFrom('sandbox_acquirer_operations')
      .select(['reference', 'amount', 'status'])
      .where('reference', 'like', 'op-together-%')
      .execute();
    assert.equal(stored.length, 120);
    for (const row of stored) {
      const i = Number(row.reference.slice('op-together-'.length));
      assert.deepEqual([Number(row.amount), row.status], [1000 + i, i % 2 ? 'approved' : 'declined'], row.reference);
    }
  });

  test('an operation the store refuses, among others arriving at once, fails alone', async () => {
    const refused = acquirer.authorize({
      ...operation('op-refused'),
      merchantId: null as unknown as string,
      capture: true,
      card,
    });
    const others = ['op-beside-1', 'op-beside-2'].map((reference) =>
      acquirer.authorize({ ...operation(reference), capture: true, card }),
    );
    await assert.rejects(refused);
    assert.deepEqual(
      (await Promise.all(others)).map((a) => a.status),
      ['approved', 'approved'],
    );
    const stored = await platform.platform.db
      .selectFrom('sandbox_acquirer_operations')
      .select('reference')
      .where('reference', 'in', ['op-refused', 'op-beside-1', 'op-beside-2'])
      .orderBy('reference')
      .execute();
    assert.deepEqual(
      stored.map((row) => row.reference),
      ['op-beside-1', 'op-beside-2'],
    );
  });

  test('auth codes and reference numbers are derived from the reference, so runs repeat', async () => {
    const a = await acquirer.authorize({ ...operation('op-derived'), capture: true, card });
    assert.match(a.authCode ?? '', /^[0-9A-Z]{6}$/);
    assert.match(a.rrn, /^\d{12}$/);
    const other = new SandboxAcquirer({
      db: platform.platform.db,
      wallClock: platform.platform.wallClock,
      config: { publicBaseUrl: 'http://x' },
      secrets: platform.platform.secrets,
    });
    await platform.platform.db
      .deleteFrom('sandbox_acquirer_operations')
      .where('reference', '=', 'op-derived')
      .execute();
    const b = await other.authorize({ ...operation('op-derived'), capture: true, card });
    assert.deepEqual([b.authCode, b.rrn], [a.authCode, a.rrn]);
  });
});
